#include "cli/formats/tnef_extractor.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/mapi_properties.h"

namespace leakhound {
namespace {

constexpr uint8_t kMessageLevel = 0x01;
constexpr uint8_t kAttachmentLevel = 0x02;
// Attribute ids (MS-OXTNEF 2.1.3.3), type in the high word.
constexpr uint32_t kAttSubject = 0x00018004;
constexpr uint32_t kAttBody = 0x0002800C;
constexpr uint32_t kAttMapiProps = 0x00069003;
constexpr uint32_t kAttOemCodePage = 0x00069007;
constexpr uint32_t kAttAttachRendData = 0x00069002;
constexpr uint32_t kAttAttachTitle = 0x00018010;
constexpr uint32_t kAttAttachData = 0x0006800F;
constexpr uint32_t kAttAttachment = 0x00069005;
constexpr size_t kIidBytes = 16;  // before an attached item's TNEF stream

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed TNEF: ", std::string(what)));
}

struct PendingAttachment {
  bool open = false;
  std::string title;
  std::string data;
  MapiProperties props;
};

std::string Trimmed(std::string_view s) {
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

absl::Status TnefExtractor::Extract(std::string_view bytes,
                                    ExtractionSink& sink) const {
  if (!bytes.starts_with(kTnefSignature) || bytes.size() < 6) {
    return Malformed("no signature");
  }
  const ByteView v(bytes);
  uint32_t code_page = 0;
  std::string subject, body;
  MapiProperties message;
  PendingAttachment attachment;
  int unnamed = 0;
  auto flush = [&]() -> absl::Status {
    if (!attachment.open) return absl::OkStatus();
    PendingAttachment a = std::move(attachment);
    attachment = {};
    std::string name = MapiString(a.props, kPrAttachLongFilename, code_page);
    if (name.empty()) name = MapiString(a.props, kPrAttachFilename, code_page);
    if (name.empty()) name = Trimmed(a.title);
    if (name.empty()) name = absl::StrCat("attachment", ++unnamed);
    auto object = a.props.find(kPrAttachDataObject);
    if (a.data.empty() && object != a.props.end() &&
        object->second.bytes.size() > kIidBytes) {
      a.data = object->second.bytes.substr(kIidBytes);
    }
    return sink.AddMember(name, std::move(a.data));
  };

  for (size_t pos = 6; pos < bytes.size();) {
    uint8_t level = 0;
    uint32_t id = 0, length = 0;
    uint16_t checksum = 0;
    std::string_view data;
    if (!v.Get(pos, &level) || !v.Get(pos + 1, &id) ||
        !v.Get(pos + 5, &length) || !v.Slice(pos + 9, length, &data) ||
        !v.Get(pos + 9 + length, &checksum)) {
      return Malformed("record past the end of the stream");
    }
    pos += 11 + size_t{length};
    uint16_t sum = 0;
    for (char c : data)
      sum = static_cast<uint16_t>(sum + static_cast<unsigned char>(c));
    if (sum != checksum) return Malformed("record checksum mismatch");
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    if (level == kMessageLevel) {
      if (id == kAttSubject) subject = Trimmed(data);
      if (id == kAttBody) body = Trimmed(data);
      if (id == kAttOemCodePage) ByteView(data).Get(0, &code_page);
      if (id == kAttMapiProps) {
        auto props = ParseTnefProperties(data);
        if (!props.ok()) return props.status();
        message = std::move(*props);
      }
    } else if (level == kAttachmentLevel) {
      if (id == kAttAttachRendData) {
        if (auto s = flush(); !s.ok()) return s;
        attachment.open = true;
      }
      attachment.open = true;
      if (id == kAttAttachTitle) attachment.title = std::string(data);
      if (id == kAttAttachData) attachment.data = std::string(data);
      if (id == kAttAttachment) {
        auto props = ParseTnefProperties(data);
        if (!props.ok()) return props.status();
        attachment.props = std::move(*props);
      }
    } else {
      return Malformed("unknown record level");
    }
  }
  // The attributes' 8-bit subject and body stand in for absent MAPI ones.
  if (!subject.empty() && !message.contains(kPrSubject)) {
    message[kPrSubject] = MapiValue{kPtString8, subject};
  }
  if (!body.empty() && !message.contains(kPrBody)) {
    message[kPrBody] = MapiValue{kPtString8, body};
  }
  if (auto s = ExtractMapiBody(message, code_page, sink); !s.ok()) return s;
  return flush();
}

}  // namespace leakhound
