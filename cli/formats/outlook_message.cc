#include "cli/formats/outlook_message.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/formats/mapi_properties.h"

namespace leakhound {
namespace {

constexpr std::string_view kPropertyPrefix = "__substg1.0_";
constexpr std::string_view kAttachmentPrefix = "__attach_version1.0_#";
constexpr std::string_view kPropertiesStream = "__properties_version1.0";

// The string and binary properties stored as streams in `dir`.
absl::StatusOr<MapiProperties> ReadProperties(const Ole2Storage& storage,
                                              std::string_view dir,
                                              ExtractionSink& sink) {
  auto entries = storage.List(dir);
  if (!entries.ok()) return entries.status();
  MapiProperties props;
  for (const Ole2Storage::Entry& e : *entries) {
    if (e.is_storage || !e.name.starts_with(kPropertyPrefix) ||
        e.name.size() != kPropertyPrefix.size() + 8) {
      continue;
    }
    uint32_t tag = 0;
    if (!absl::SimpleHexAtoi(e.name.substr(kPropertyPrefix.size()), &tag)) {
      continue;
    }
    const auto id = static_cast<uint16_t>(tag >> 16);
    const auto type = static_cast<uint16_t>(tag & 0xFFFF);
    if (type != kPtUnicode && type != kPtString8 && type != kPtBinary) continue;
    if (id != kPrSubject && id != kPrBody && id != kPrBodyHtml &&
        id != kPrRtfCompressed && id != kPrAttachDataObject &&
        id != kPrAttachFilename && id != kPrAttachLongFilename &&
        id != kPrDisplayName) {
      continue;
    }
    auto bytes = ReadCharged(storage, Ole2Path(dir, e.name), sink);
    if (!bytes.ok()) return bytes.status();
    props[id] = MapiValue{type, std::move(*bytes)};
  }
  return props;
}

}  // namespace

bool IsOutlookMessage(const Ole2Storage& storage, std::string_view dir) {
  return storage.Has(Ole2Path(dir, kPropertiesStream));
}

absl::Status ExtractOutlookMessage(const Ole2Storage& storage,
                                   std::string_view dir, ExtractionSink& sink) {
  auto props = ReadProperties(storage, dir, sink);
  if (!props.ok()) return props.status();
  if (auto s = ExtractMapiBody(*props, 0, sink); !s.ok()) return s;
  auto entries = storage.List(dir);
  if (!entries.ok()) return entries.status();
  int unnamed = 0;
  for (const Ole2Storage::Entry& e : *entries) {
    if (!e.is_storage || !e.name.starts_with(kAttachmentPrefix)) continue;
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    const std::string attach_dir = Ole2Path(dir, e.name);
    auto attach = ReadProperties(storage, attach_dir, sink);
    if (!attach.ok()) return attach.status();
    std::string name = MapiString(*attach, kPrAttachLongFilename, 0);
    if (name.empty()) name = MapiString(*attach, kPrAttachFilename, 0);
    if (name.empty()) name = MapiString(*attach, kPrDisplayName, 0);
    if (name.empty()) name = absl::StrCat("attachment", ++unnamed);
    const std::string embedded = Ole2Path(attach_dir, "__substg1.0_3701000D");
    if (IsOutlookMessage(storage, embedded)) {
      auto member = sink.OpenMember(name, "msg");
      if (!member.ok()) return member.status();
      if (auto s = ExtractOutlookMessage(storage, embedded, **member);
          !s.ok()) {
        return s;
      }
      continue;
    }
    auto data = attach->find(kPrAttachDataObject);
    if (data == attach->end()) continue;
    if (auto s = sink.AddMember(name, std::move(data->second.bytes)); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace leakhound
