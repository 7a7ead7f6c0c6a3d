#include "cli/formats/mapi_properties.h"

#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/compressed_rtf.h"
#include "cli/formats/html_extractor.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

constexpr uint16_t kMultiValued = 0x1000;
constexpr uint16_t kFirstNamedId = 0x8000;

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed TNEF property list: ", std::string(what)));
}

// Bytes of one value of a fixed-size type, 0 for a variable-size one.
size_t FixedSize(uint16_t type) {
  switch (type) {
    case 0x0002: case 0x0003: case 0x0004: case 0x000A: case 0x000B:
      return 4;  // short (padded), long, float, error, boolean
    case 0x0005: case 0x0006: case 0x0007: case 0x0014: case 0x0040:
      return 8;  // double, currency, apptime, int64, systime
    case 0x0048:
      return 16;  // CLSID
    default:
      return 0;
  }
}

size_t Padded(size_t n) { return (n + 3) & ~size_t{3}; }

}  // namespace

std::string MapiString(const MapiProperties& props, uint16_t id,
                       uint32_t code_page) {
  auto it = props.find(id);
  if (it == props.end()) return "";
  std::string out;
  std::string_view bytes = it->second.bytes;
  if (it->second.type == kPtUnicode) {
    AppendUtf16Le(bytes, &out);
  } else {
    while (!bytes.empty() && bytes.back() == '\0') bytes.remove_suffix(1);
    auto utf8 = ConvertToUtf8(
        bytes, absl::StrCat("windows-", code_page == 0 ? 1252 : code_page));
    if (!utf8.ok()) utf8 = ConvertToUtf8(bytes, "windows-1252");
    out = utf8.ok() ? *utf8 : std::string(bytes);
  }
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

absl::StatusOr<MapiProperties> ParseTnefProperties(std::string_view bytes) {
  const ByteView v(bytes);
  uint32_t count = 0;
  if (!v.Get(0, &count)) return Malformed("no count");
  // Each property takes at least eight bytes.
  if (count > bytes.size() / 8) return Malformed("count past the data");
  MapiProperties props;
  size_t at = 4;
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t type = 0, id = 0;
    if (!v.Get(at, &type) || !v.Get(at + 2, &id)) return Malformed("truncated");
    at += 4;
    if (id >= kFirstNamedId) {  // GUID, kind, then an id or a name
      uint32_t kind = 0;
      if (!v.Get(at + 16, &kind)) return Malformed("truncated name");
      at += 20;
      if (kind == 0) {
        at += 4;
      } else {
        uint32_t length = 0;
        if (!v.Get(at, &length) || length > bytes.size()) {
          return Malformed("bad name");
        }
        at += 4 + Padded(length);
      }
    }
    const bool multi = (type & kMultiValued) != 0;
    const auto base = static_cast<uint16_t>(type & ~kMultiValued);
    const size_t fixed = FixedSize(base);
    uint32_t values = 1;
    if (multi || fixed == 0) {
      if (!v.Get(at, &values) || values > bytes.size()) {
        return Malformed("bad value count");
      }
      at += 4;
    }
    for (uint32_t k = 0; k < values; ++k) {
      if (fixed != 0) {
        std::string_view value;
        if (!v.Slice(at, fixed, &value)) return Malformed("truncated value");
        if (id < kFirstNamedId && k == 0)
          props[id] = {base, std::string(value)};
        at += fixed;
        continue;
      }
      uint32_t length = 0;
      std::string_view value;
      if (!v.Get(at, &length) || !v.Slice(at + 4, length, &value)) {
        return Malformed("truncated value");
      }
      if (id < kFirstNamedId && k == 0) props[id] = {base, std::string(value)};
      at += 4 + Padded(length);
    }
    if (at > bytes.size()) return Malformed("truncated");
  }
  return props;
}

absl::Status ExtractMapiBody(const MapiProperties& props, uint32_t code_page,
                             ExtractionSink& sink) {
  const size_t max_bytes = sink.limits().max_output_bytes;
  std::string text = MapiString(props, kPrSubject, code_page);
  if (!text.empty()) text += "\n\n";
  std::string body = MapiString(props, kPrBody, code_page);
  if (body.empty() && props.contains(kPrBodyHtml)) {
    // A binary HTML body is in the message's Internet code page; a
    // string one as MapiString reads it.
    const MapiValue& html = props.at(kPrBodyHtml);
    std::string utf8;
    if (html.type == kPtBinary) {
      auto decoded = DecodeText(html.bytes);
      if (!decoded.ok()) return decoded.status();
      utf8 = std::move(decoded->utf8);
    } else {
      utf8 = MapiString(props, kPrBodyHtml, code_page);
    }
    auto plain = HtmlToText(utf8, max_bytes);
    if (!plain.ok()) return plain.status();
    body = std::move(*plain);
  }
  if (auto s = AppendWithin(body, max_bytes, &text); !s.ok()) return s;
  if (auto s = sink.AppendText(text); !s.ok()) return s;
  if (body.empty() && props.contains(kPrRtfCompressed)) {
    auto rtf = DecompressRtf(props.at(kPrRtfCompressed).bytes,
                             sink.limits().max_input_bytes,
                             sink.limits().max_expansion_ratio);
    if (!rtf.ok()) return rtf.status();
    if (auto s = sink.ChargeExpansion(rtf->size()); !s.ok()) return s;
    return sink.AddMember("body.rtf", std::move(*rtf));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
