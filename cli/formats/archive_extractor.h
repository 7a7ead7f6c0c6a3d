// ArchiveExtractor: archives (zip, tar, 7z, rar, cpio, cab, ISO 9660) and
// compressed files (gzip, bzip2, xz, zstd, ...) through archive_reader.h.
// Every regular member becomes a member part, extracted by the extractor
// its content calls for; directories and links are passed over. An
// encrypted member is an error (its text cannot be checked).
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_ARCHIVE_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_ARCHIVE_EXTRACTOR_H_

#include <string>
#include <string_view>

#include "cli/formats/file_type.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

class ArchiveExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

// What a zip archive holds, from its entries: kOfficeOpenXml
// ([Content_Types].xml with word/, xl/ or ppt/ parts; format "docx",
// "xlsx" or "pptx"), kOpenDocument (a "mimetype" entry naming an
// OpenDocument or StarOffice type; format "odt", "ods", "odp" or "odf"),
// kEpub (mimetype application/epub+zip), else kZip (format "zip"): a zip
// whose mimetype names no format we know is an archive of members. A zip
// whose directory cannot be read is kZip (the archive extractor then
// reports why).
struct ZipContent {
  FileKind kind = FileKind::kZip;
  std::string format = "zip";
};
ZipContent ZipContentKind(std::string_view bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_ARCHIVE_EXTRACTOR_H_
