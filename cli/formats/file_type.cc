// The one file that calls libmagic.
#include "cli/formats/file_type.h"

#include <magic.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>


namespace leakhound {
namespace {

// The compiled magic database (the default path's last entry, .mgc), read
// once for the process; empty when it cannot be read or $MAGIC names
// another. Every handle then uses this one buffer (magic_load_buffers
// does not copy it): with magic_load each handle mapped the 8 MB file, and
// 16 threads with two handles each counted over 100 MB of resident pages.
const std::string& CompiledDatabase() {
  static const std::string* database = [] {
    auto* bytes = new std::string();
    if (std::getenv("MAGIC") != nullptr) return bytes;
    const char* paths = magic_getpath(nullptr, 0);
    if (paths == nullptr) return bytes;
    std::string last(paths);
    last = last.substr(last.rfind(':') + 1) + ".mgc";
    std::ifstream in(last, std::ios::binary);
    std::ostringstream read;
    read << in.rdbuf();
    if (in) *bytes = read.str();
    return bytes;
  }();
  return *database;
}

// One libmagic handle per thread: magic_t is not thread-safe,
// and loading the database costs milliseconds, so it is loaded once.
class Magic {
 public:
  explicit Magic(int flags) : cookie_(magic_open(flags | MAGIC_ERROR)) {
    if (cookie_ == nullptr) return;
    const std::string& database = CompiledDatabase();
    void* buffers[] = {const_cast<char*>(database.data())};
    size_t sizes[] = {database.size()};
    const bool loaded = database.empty()
                            ? magic_load(cookie_, nullptr) == 0
                            : magic_load_buffers(cookie_, buffers, sizes, 1) == 0;
    if (!loaded) {
      magic_close(cookie_);
      cookie_ = nullptr;
    }
  }
  ~Magic() {
    if (cookie_ != nullptr) magic_close(cookie_);
  }
  Magic(const Magic&) = delete;
  Magic& operator=(const Magic&) = delete;

  // "" when libmagic is unavailable or fails. `flags` for this call: one
  // handle (one copy of the database) serves both MIME type and name.
  std::string Of(std::string_view bytes, int flags) const {
    if (cookie_ == nullptr || magic_setflags(cookie_, flags | MAGIC_ERROR) != 0) {
      return "";
    }
    const char* out = magic_buffer(cookie_, bytes.data(), bytes.size());
    return out == nullptr ? "" : out;
  }

 private:
  magic_t cookie_;
};

// Compressed data is named, not looked into (the archive extractor does).
constexpr int kFlags = MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_CHECK_ELF;

const Magic& ThreadMagic() {
  thread_local const Magic magic(kFlags);
  return magic;
}

std::string MimeOf(std::string_view bytes) {
  return ThreadMagic().Of(bytes, kFlags | MAGIC_MIME_TYPE);
}

std::string DescriptionOf(std::string_view bytes) {
  std::string d = ThreadMagic().Of(bytes, kFlags);
  const size_t comma = d.find(',');
  if (comma != std::string::npos) d.resize(comma);
  return d.empty() ? "unknown data" : d;
}

// ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Extension(std::string_view name) {
  const size_t slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view()
                                       : name.substr(dot + 1);
}

bool ExtensionIs(std::string_view name,
                 std::initializer_list<std::string_view> any) {
  const std::string_view ext = Extension(name);
  return std::any_of(any.begin(), any.end(), [&](std::string_view e) {
    return EqualsIgnoreCase(ext, e);
  });
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

bool LooksLikeHtml(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head[0]))) {
    head.remove_prefix(1);
  }
  if (StartsWithIgnoreCase(head, "<!doctype html") ||
      StartsWithIgnoreCase(head, "<html")) {
    return true;
  }
  // A fragment ("<p>&#98;&#105;...</p>"): it starts with an element HTML
  // has and holds a tag's end; read as text, its character references
  // would hide its words.
  static constexpr std::string_view kElements[] = {
      "<p", "<div", "<span", "<br", "<a ", "<b>", "<i>", "<u>", "<em",
      "<strong", "<table", "<tr", "<td", "<ul", "<ol", "<li", "<h1", "<h2",
      "<h3", "<h4", "<h5", "<h6", "<body", "<head", "<meta", "<title",
      "<section", "<article", "<pre", "<blockquote", "<font", "<img",
      "<hr", "<form", "<style", "<script", "<!--", "<main", "<header",
      "<footer", "<nav", "<code", "<small", "<sup", "<sub", "<label"};
  for (std::string_view element : kElements) {
    if (!StartsWithIgnoreCase(head, element)) continue;
    const char next = head.size() > element.size() ? head[element.size()] : ' ';
    const bool whole = element.back() == '>' || element.back() == ' ' ||
                       element == "<!--" || next == '>' || next == ' ' ||
                       next == '/' || next == '\t' || next == '\n';
    if (whole && head.find('>') != std::string_view::npos) return true;
  }
  return false;
}

bool AnyOf(std::string_view mime, std::initializer_list<std::string_view> any) {
  return std::find(any.begin(), any.end(), mime) != any.end();
}

FileKind KindOfMime(std::string_view mime) {
  if (mime == "application/pdf") return FileKind::kPdf;
  if (mime.starts_with("application/vnd.openxmlformats-officedocument.") ||
      mime.starts_with("application/vnd.ms-word.document.macroenabled") ||
      mime.starts_with("application/vnd.ms-excel.sheet.macroenabled") ||
      mime.starts_with(
          "application/vnd.ms-powerpoint.presentation.macroenabled")) {
    return FileKind::kOfficeOpenXml;
  }
  if (mime.starts_with("application/vnd.oasis.opendocument.")) {
    return FileKind::kOpenDocument;
  }
  if (AnyOf(mime, {"application/zip", "application/java-archive",
                   "application/epub+zip", "application/x-zip-compressed"})) {
    return FileKind::kZip;
  }
  if (AnyOf(mime, {"application/x-tar", "application/gzip",
                   "application/x-gzip", "application/x-bzip2",
                   "application/x-xz", "application/x-lzma",
                   "application/zstd", "application/x-lz4",
                   "application/x-compress", "application/x-7z-compressed",
                   "application/x-rar", "application/vnd.rar",
                   "application/x-cpio", "application/x-iso9660-image",
                   "application/vnd.ms-cab-compressed"})) {
    return FileKind::kArchive;
  }
  if (AnyOf(mime, {"message/rfc822", "message/news"})) return FileKind::kMail;
  if (mime == "application/mbox") return FileKind::kMbox;
  if (AnyOf(mime, {"text/rtf", "application/rtf"})) return FileKind::kRtf;
  if (AnyOf(mime, {"application/msword", "application/vnd.ms-excel",
                   "application/vnd.ms-powerpoint", "application/vnd.ms-office",
                   "application/vnd.ms-outlook", "application/x-ole-storage",
                   "application/CDFV2", "application/encrypted"})) {
    // "application/encrypted" is libmagic's name for an OLE2 file holding
    // an encrypted Office Open XML package: the extractor says so.
    return FileKind::kLegacyOffice;
  }
  if (AnyOf(mime, {"text/html", "application/xhtml+xml"})) {
    return FileKind::kHtml;
  }
  if (mime == "application/vnd.ms-tnef") return FileKind::kTnef;
  if (AnyOf(mime, {"image/png", "image/jpeg", "image/tiff", "image/gif",
                   "image/bmp", "image/x-ms-bmp", "image/webp", "image/jp2",
                   "image/x-portable-bitmap", "image/x-portable-greymap",
                   "image/x-portable-pixmap"})) {
    return FileKind::kImage;
  }
  if (mime.starts_with("image/") || mime.starts_with("audio/") ||
      mime.starts_with("video/") || mime.starts_with("font/") ||
      AnyOf(mime, {"application/x-executable", "application/x-sharedlib",
                   "application/x-pie-executable", "application/x-mach-binary",
                   "application/x-dosexec", "application/vnd.ms-opentype",
                   "application/x-font-ttf", "application/vnd.ms-fontobject",
                   "application/x-shockwave-flash", "application/x-sqlite3"})) {
    return FileKind::kNoText;
  }
  if (mime.starts_with("text/") ||
      AnyOf(mime, {"application/json", "application/xml",
                   "application/javascript", "application/x-empty",
                   "application/csv"})) {
    return FileKind::kText;
  }
  return FileKind::kUnknownBinary;
}

// A header field's name: printable ASCII but the colon, then a colon.
bool IsFieldLine(std::string_view line, std::string_view* name) {
  const size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (char c : line.substr(0, colon)) {
    if (c <= ' ' || c > '~') return false;
  }
  *name = line.substr(0, colon);
  return true;
}

// Whether `head` is plain text that needs no libmagic verdict: no NUL and
// no control character but white space and escape (every binary format
// has some in its first bytes: zip, gzip, 7z, PNG, ELF, OLE2, tar...),
// and none of the formats that start with printable bytes. libmagic's text
// tests cost more than scanning the file (docs/cli.md, "Measured");
// this check costs microseconds.
bool PlainTextHead(std::string_view head) {
  // Text may hold a few control bytes (GNU Info's node separators 0x1F and
  // the NULs of its index entries, a stray NUL pasted into a document);
  // binary formats hold many. Text has at most one in 256 bytes, or two in
  // a short text of at least 32.
  size_t controls = 0;
  for (char c : head) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' &&
        c != '\r' && c != '\x1b') {
      ++controls;
    }
  }
  if (controls * 256 > head.size() &&
      (controls > 2 || controls * 16 > head.size())) {
    return false;
  }
  std::string_view start = head.substr(0, 64);
  if (start.starts_with("\xEF\xBB\xBF")) start.remove_prefix(3);
  while (!start.empty() && std::isspace(static_cast<unsigned char>(start[0]))) {
    start.remove_prefix(1);
  }
  for (std::string_view magic : {"%PDF", "{\\rtf", "%!", "<?xml", "BZh"}) {
    if (start.starts_with(magic)) return false;
  }
  return true;
}

}  // namespace

bool LooksLikeMailHeaders(std::string_view head) {
  static constexpr std::string_view kKnown[] = {
      "from",       "to",           "cc",         "subject",   "date",
      "message-id", "mime-version", "received",   "return-path",
      "content-type", "reply-to",   "delivered-to", "x-mailer"};
  int known = 0;
  size_t lines = 0;
  while (!head.empty()) {
    const size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return known >= 2;  // the blank line ending the header
    if (line[0] == ' ' || line[0] == '\t') {
      if (lines == 0) return false;  // a continuation needs a field
    } else {
      std::string_view name;
      if (!IsFieldLine(line, &name)) return false;
      for (std::string_view k : kKnown) {
        if (EqualsIgnoreCase(name, k)) ++known;
      }
    }
    ++lines;
    if (end == std::string_view::npos) break;
    head.remove_prefix(end + 1);
  }
  return known >= 2;  // the head ended inside the header block
}

FileType DetectFileType(std::string_view name, std::string_view bytes) {
  const std::string_view head = bytes.substr(0, kTypeHeadBytes);
  FileType type;
  if (PlainTextHead(head.substr(0, kPlainTextCheckBytes))) {
    type.mime = "text/plain";
    type.kind = FileKind::kText;
  } else {
    type.mime = MimeOf(head);
    type.kind = KindOfMime(type.mime);
    if (head.starts_with("\x78\x9F\x3E\x22")) {  // TNEF's signature
      type.mime = "application/vnd.ms-tnef";
      type.kind = FileKind::kTnef;
    }
  }
  const bool utf16 =
      head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF");
  if (type.kind == FileKind::kUnknownBinary && !utf16 &&
      head.find('\0') == std::string_view::npos) {
    type.kind = FileKind::kText;  // e.g. text in an encoding libmagic
                                  // does not name
  }
  if (utf16 && type.kind == FileKind::kUnknownBinary) {
    type.kind = FileKind::kText;
  }
  if (type.kind == FileKind::kText || type.kind == FileKind::kHtml) {
    if (head.starts_with("From ") &&
        LooksLikeMailHeaders(head.substr(std::min(head.find('\n'),
                                                  head.size() - 1) + 1))) {
      type.kind = FileKind::kMbox;
    } else if (LooksLikeMailHeaders(head)) {
      type.kind = FileKind::kMail;
    } else if (type.kind == FileKind::kText &&
               (ExtensionIs(name, {"html", "htm", "xhtml"}) ||
                LooksLikeHtml(head))) {
      type.kind = FileKind::kHtml;
    } else if (type.kind == FileKind::kText &&
               ExtensionIs(name, {"md", "markdown"})) {
      type.kind = FileKind::kMarkdown;
    }
  }
  switch (type.kind) {
    case FileKind::kText: type.description = "text"; break;
    case FileKind::kMarkdown: type.description = "Markdown"; break;
    case FileKind::kHtml: type.description = "HTML"; break;
    case FileKind::kPdf: type.description = "PDF document"; break;
    case FileKind::kMail: type.description = "e-mail message"; break;
    case FileKind::kMbox: type.description = "mailbox"; break;
    default: type.description = DescriptionOf(head); break;
  }
  return type;
}

}  // namespace leakhound
