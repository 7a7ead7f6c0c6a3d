#include "cli/formats/archive_extractor.h"

#include "absl/strings/str_cat.h"
#include "cli/formats/archive_reader.h"

namespace leakhound {

FileKind ZipContentKind(std::string_view bytes) {
  auto reader = ArchiveReader::Open(bytes);
  if (!reader.ok()) return FileKind::kZip;
  bool content_types = false, office_part = false, mimetype = false;
  ArchiveMember m;
  // The names come from the central directory: no data is inflated. The
  // count is bounded so that a zip of a million entries is not listed
  // twice.
  for (int i = 0; i < 100000; ++i) {
    auto next = (*reader)->Next(&m);
    if (!next.ok() || !*next) break;
    if (m.name == "[Content_Types].xml") content_types = true;
    if (m.name == "word/document.xml" || m.name == "xl/workbook.xml" ||
        m.name == "ppt/presentation.xml") {
      office_part = true;
    }
    if (m.name == "mimetype") mimetype = true;
    if (content_types && office_part) return FileKind::kOfficeOpenXml;
  }
  if (mimetype) return FileKind::kOpenDocument;
  return FileKind::kZip;
}

absl::Status ArchiveExtractor::Extract(std::string_view bytes,
                                       ExtractionSink& sink) const {
  auto reader = ArchiveReader::Open(bytes);
  if (!reader.ok()) return reader.status();
  const bool raw = (*reader)->FormatName() == "raw";
  ArchiveMember member;
  for (;;) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    auto next = (*reader)->Next(&member);
    if (!next.ok()) return next.status();
    if (!*next) return absl::OkStatus();
    if (!member.regular) continue;
    if (member.encrypted) {
      return absl::InvalidArgumentError(absl::StrCat(
          member.name, ": encrypted member: its text cannot be checked"));
    }
    auto data = (*reader)->ReadData(
        sink.limits().max_input_bytes,
        [&sink](size_t n) { return sink.ChargeExpansion(n); });
    if (!data.ok()) {
      return absl::Status(data.status().code(),
                          absl::StrCat(member.name, ": ",
                                       data.status().message()));
    }
    // A lone compressed file's one member is named "data" by libarchive.
    const std::string name = raw ? "decompressed" : member.name;
    if (auto s = sink.AddMember(name, std::move(*data)); !s.ok()) return s;
  }
}

}  // namespace leakhound
