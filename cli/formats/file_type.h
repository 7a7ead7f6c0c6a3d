// FileType: what a file holds, decided from its content (libmagic, after a
// fast check for plain text) with the file name's extension only as a
// hint: a renamed .docx is still read as
// one, and a text file named .eml is read as mail only if it starts with
// mail headers.
//
// Thread-safety: DetectFileType is safe to call concurrently (one libmagic
// handle per thread).
#ifndef LEAKHOUND_CLI_FORMATS_FILE_TYPE_H_
#define LEAKHOUND_CLI_FORMATS_FILE_TYPE_H_

#include <string>
#include <string_view>

namespace leakhound {

enum class FileKind {
  kText,           // plain text in any encoding
  kMarkdown,       // text named .md / .markdown
  kHtml,           // HTML or XHTML
  kPdf,
  kZip,            // a zip archive (OOXML and OpenDocument inside are
                   // recognized from its entries)
  kOfficeOpenXml,  // .docx, .xlsx, .pptx (and their macro variants)
  kOpenDocument,   // .odt, .ods, .odp
  kArchive,        // tar, 7z, rar, cpio, cab, iso, or a compressed file
  kMail,           // RFC 5322 / MIME message
  kMbox,           // a mailbox of messages
  kRtf,
  kLegacyOffice,   // OLE2 compound files: .doc, .xls, .ppt, .msg
  kTnef,           // winmail.dat (application/vnd.ms-tnef)
  kEpub,           // an EPUB e-book (recognized from the zip's mimetype)
  kImage,          // raster images OCR reads: PNG, JPEG, TIFF, GIF, BMP,
                   // WebP, JPEG 2000, PNM
  kNoText,         // audio, video, fonts, executables, other images
  kUnknownBinary,  // binary data libmagic does not name
};

struct FileType {
  FileKind kind = FileKind::kUnknownBinary;
  std::string mime;         // libmagic's MIME type
  std::string description;  // for messages: "PNG image", "PDF document"...
};

// Bytes of the file libmagic looks at.
inline constexpr size_t kTypeHeadBytes = 64 * 1024;
// Bytes checked for plain text first: a file whose first bytes are plain
// text (no control characters, no text-based format's signature such as
// %PDF or {\rtf) is text without asking libmagic, whose text tests cost
// milliseconds.
inline constexpr size_t kPlainTextCheckBytes = 4096;

// Decides the type of `bytes` (the whole file or at least its first
// kTypeHeadBytes) named `name` (used for its extension only).
FileType DetectFileType(std::string_view name, std::string_view bytes);

// Whether `head` starts with RFC 5322 header fields (at least two of the
// usual ones, then a blank line or the end of `head`). Exposed for tests.
bool LooksLikeMailHeaders(std::string_view head);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_FILE_TYPE_H_
