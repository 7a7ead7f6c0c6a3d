#include "cli/formats/legacy_office_extractor.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/excel97_text.h"
#include "cli/formats/ole_storage.h"
#include "cli/formats/outlook_message.h"
#include "cli/formats/powerpoint97_text.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/formats/word97_text.h"

namespace leakhound {
namespace {

absl::Status ExtractStorage(const Ole2Storage& storage, std::string_view dir,
                            ExtractionSink& sink, int depth);

// The embedded objects in the storages below `dir` (Word's ObjectPool,
// Excel's MBD... storages at the root) as members. `depth`: storages
// entered so far, at most --max-depth.
absl::Status ExtractObjects(const Ole2Storage& storage, std::string_view dir,
                            ExtractionSink& sink, int depth) {
  auto entries = storage.List(dir);
  if (!entries.ok()) return absl::OkStatus();
  int n = 0;
  for (const Ole2Storage::Entry& e : *entries) {
    if (!e.is_storage) continue;
    const std::string path = Ole2Path(dir, e.name);
    if (e.name == "ObjectPool") {
      // A storage nested in itself counts as a level: a crafted directory
      // of ObjectPools inside ObjectPools ends at --max-depth.
      if (depth + 1 > static_cast<int>(sink.limits().max_depth)) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "embedded objects nested deeper than ", sink.limits().max_depth,
            " levels (--max-depth)"));
      }
      if (auto s = ExtractObjects(storage, path, sink, depth + 1); !s.ok()) {
        return s;
      }
      continue;
    }
    if (!e.name.starts_with("_") && !e.name.starts_with("MBD")) continue;
    const std::string name = absl::StrCat("object", ++n);
    if (storage.Has(Ole2Path(path, "WordDocument")) ||
        storage.Has(Ole2Path(path, "Workbook")) ||
        storage.Has(Ole2Path(path, "PowerPoint Document"))) {
      auto member = sink.OpenMember(name, "ole");
      if (!member.ok()) return member.status();
      if (auto s = ExtractStorage(storage, path, **member, depth + 1);
          !s.ok()) {
        return s;
      }
      continue;
    }
    for (std::string_view stream : {"Package", "CONTENTS", "\x01Ole10Native"}) {
      const std::string stream_path = Ole2Path(path, stream);
      if (!storage.Has(stream_path)) continue;
      auto bytes = ReadCharged(storage, stream_path, sink);
      if (!bytes.ok()) return bytes.status();
      if (stream == "\x01Ole10Native") {
        // OLE1 packager: a 4-byte size, then (for files packed by the
        // Packager) the label, path, and the file's own size and bytes;
        // what follows the size word is passed on and typed by content.
        std::string_view rest = *bytes;
        rest.remove_prefix(std::min<size_t>(4, rest.size()));
        *bytes = std::string(rest);
      }
      if (auto s = sink.AddMember(name, std::move(*bytes)); !s.ok()) return s;
      break;
    }
  }
  return absl::OkStatus();
}

// The sensitivity labels MSIP writes as user-defined properties of the
// document summary (docs/labels.md).
absl::Status NoteSummaryLabels(const Ole2Storage& storage, std::string_view dir,
                               ExtractionSink& sink) {
  const std::string path = Ole2Path(dir,
                                    "\x05"
                                    "DocumentSummaryInformation");
  if (!storage.Has(path)) return absl::OkStatus();
  auto properties = storage.Properties(path, sink.limits().max_input_bytes);
  if (!properties.ok()) return properties.status();
  LabelProperties labels;
  for (const auto& [name, value] : *properties) labels.Add(name, value);
  if (std::vector<SensitivityLabel> found = labels.Labels(); !found.empty()) {
    sink.NoteLabels(found);
  }
  return absl::OkStatus();
}

absl::Status ExtractStorage(const Ole2Storage& storage, std::string_view dir,
                            ExtractionSink& sink, int depth) {
  if (depth > static_cast<int>(sink.limits().max_depth)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "embedded objects nested deeper than ", sink.limits().max_depth,
        " levels (--max-depth)"));
  }
  const size_t max_text = sink.limits().max_output_bytes;
  std::string text;
  absl::Status s;
  if (storage.Has(Ole2Path(dir, "EncryptionInfo")) ||
      storage.Has(Ole2Path(dir, "EncryptedPackage")) ||
      storage.Has(Ole2Path(dir, "EncryptedSummary"))) {
    return UnreadableError(Unreadable::kEncrypted,
                           "password-protected Office document");
  }
  if (storage.Has(Ole2Path(dir, "WordDocument"))) {
    s = AppendWord97Text(storage, dir, sink.limits().max_input_bytes, max_text,
                         &text);
  } else if (storage.Has(Ole2Path(dir, "Workbook"))) {
    auto workbook = ReadCharged(storage, Ole2Path(dir, "Workbook"), sink);
    s = workbook.ok() ? AppendExcel97Text(*workbook, max_text, &text)
                      : workbook.status();
  } else if (storage.Has(Ole2Path(dir, "Book"))) {
    return UnreadableError(Unreadable::kUnsupported,
                           "Excel 5/95 workbook: unsupported format");
  } else if (storage.Has(Ole2Path(dir, "PowerPoint Document"))) {
    auto document =
        ReadCharged(storage, Ole2Path(dir, "PowerPoint Document"), sink);
    s = document.ok() ? AppendPowerPoint97Text(*document, max_text, &text)
                      : document.status();
  } else if (IsOutlookMessage(storage, dir)) {
    return ExtractOutlookMessage(storage, dir, sink);
  } else {
    return UnreadableError(Unreadable::kUnsupported,
                           "OLE2 compound file of an unknown kind: unsupported "
                           "format");
  }
  if (!s.ok()) return s;
  if (auto a = sink.AppendText(text); !a.ok()) return a;
  if (auto l = NoteSummaryLabels(storage, dir, sink); !l.ok()) return l;
  return ExtractObjects(storage, dir, sink, depth);
}

}  // namespace

absl::Status LegacyOfficeExtractor::Extract(std::string_view bytes,
                                            ExtractionSink& sink) const {
  auto storage = Ole2Storage::Open(bytes);
  if (!storage.ok()) return storage.status();
  return ExtractStorage(**storage, "", sink, 0);
}

}  // namespace leakhound
