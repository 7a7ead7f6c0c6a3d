#include "cli/formats/archive_extractor.h"

#include "absl/strings/str_cat.h"
#include "cli/formats/archive_reader.h"

namespace leakhound {

ZipContent ZipContentKind(std::string_view bytes) {
  auto reader = ArchiveReader::Open(bytes);
  if (!reader.ok()) return {};
  bool content_types = false;
  std::string office, mimetype;
  ArchiveMember m;
  // Names come from the central directory; only the tiny "mimetype" entry
  // is inflated. The count is bounded so that a zip of a million entries
  // is not listed twice.
  for (int i = 0; i < 100000; ++i) {
    auto next = (*reader)->Next(&m);
    if (!next.ok() || !*next) break;
    if (m.name == "[Content_Types].xml") content_types = true;
    if (m.name == "word/document.xml") office = "docx";
    if (m.name == "xl/workbook.xml") office = "xlsx";
    if (m.name == "ppt/presentation.xml") office = "pptx";
    if (m.name == "mimetype" && !m.encrypted) {
      auto data =
          (*reader)->ReadData(256, [](size_t) { return absl::OkStatus(); });
      mimetype = data.ok() ? *data : "?";
    }
    if (content_types && !office.empty()) {
      return {FileKind::kOfficeOpenXml, office};
    }
  }
  if (mimetype.empty()) return {};
  if (mimetype == "application/epub+zip") return {FileKind::kEpub, "epub"};
  constexpr std::string_view kPrefix = "application/vnd.oasis.opendocument.";
  constexpr std::string_view kStarOffice = "application/vnd.sun.xml.";
  // A mimetype naming no format we know: the zip is read as an archive
  // of members, never refused for its mimetype.
  if (!mimetype.starts_with(kPrefix) && !mimetype.starts_with(kStarOffice)) {
    return {};
  }
  std::string format = "odf";
  if (mimetype.starts_with(kPrefix)) {
    const std::string_view kind =
        std::string_view(mimetype).substr(kPrefix.size());
    if (kind.starts_with("text")) format = "odt";
    if (kind.starts_with("spreadsheet")) format = "ods";
    if (kind.starts_with("presentation")) format = "odp";
  }
  return {FileKind::kOpenDocument, format};
}

absl::Status ArchiveExtractor::Extract(std::string_view bytes,
                                       ExtractionSink& sink) const {
  return ForEachMember(
      bytes, sink, [](std::string_view) { return true; },
      [&sink](std::string name, std::string data) {
        // A lone compressed file's member is named as gzip stored it, else
        // "data" by libarchive.
        if (name.empty()) name = "data";
        return sink.AddMember(name, std::move(data));
      });
}

}  // namespace leakhound
