// The one file that calls libarchive.
#include "cli/formats/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

std::string ErrorOf(struct archive* a) {
  const char* e = archive_error_string(a);
  return e != nullptr ? e : "unknown error";
}

}  // namespace

absl::StatusOr<std::unique_ptr<ArchiveReader>> ArchiveReader::Open(
    std::string_view bytes) {
  struct archive* a = archive_read_new();
  if (a == nullptr) return absl::InternalError("libarchive: out of memory");
  std::unique_ptr<ArchiveReader> reader(new ArchiveReader(a));
  // Formats that hold files, then "raw" (a lone compressed file), which
  // bids lowest. Filters: the ones linked into libarchive, none that would
  // run an external program.
  archive_read_support_format_zip_seekable(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  archive_read_support_format_7zip(a);
  archive_read_support_format_rar(a);
  archive_read_support_format_rar5(a);
  archive_read_support_format_cpio(a);
  archive_read_support_format_cab(a);
  archive_read_support_format_iso9660(a);
  archive_read_support_format_raw(a);
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_bzip2(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_lzma(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_lz4(a);
  archive_read_support_filter_compress(a);
  if (archive_read_open_memory(a, bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a readable archive (libarchive: ", ErrorOf(a), ")"));
  }
  return reader;
}

ArchiveReader::~ArchiveReader() { archive_read_free(archive_); }

absl::StatusOr<bool> ArchiveReader::Next(ArchiveMember* member) {
  struct archive_entry* entry = nullptr;
  const int rc = archive_read_next_header(archive_, &entry);
  if (rc == ARCHIVE_EOF) return false;
  if (rc < ARCHIVE_WARN || entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("truncated or malformed archive (libarchive: ",
                     ErrorOf(archive_), ")"));
  }
  // "raw" takes anything no other format bid for; only a compressed file
  // is one (a truncated zip must not read as a member of itself).
  if (archive_format(archive_) == ARCHIVE_FORMAT_RAW &&
      archive_filter_code(archive_, 0) == ARCHIVE_FILTER_NONE) {
    return absl::InvalidArgumentError(
        "truncated or malformed archive (no format libarchive reads)");
  }
  const char* utf8 = archive_entry_pathname_utf8(entry);
  const char* raw = archive_entry_pathname(entry);
  member->name = utf8 != nullptr ? utf8 : (raw != nullptr ? raw : "");
  member->regular = archive_entry_filetype(entry) == AE_IFREG;
  member->encrypted = archive_entry_is_encrypted(entry) != 0;
  return true;
}

absl::StatusOr<std::string> ArchiveReader::ReadData(
    size_t max_bytes, const std::function<absl::Status(size_t)>& charge) {
  std::string out;
  char buffer[64 * 1024];
  for (;;) {
    const la_ssize_t n = archive_read_data(archive_, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "corrupt archive member (libarchive: ", ErrorOf(archive_), ")"));
    }
    const auto got = static_cast<size_t>(n);
    if (auto s = charge(got); !s.ok()) return s;
    if (out.size() + got > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "member larger than the limit of ", max_bytes,
          " bytes once unpacked (--max-file-size)"));
    }
    out.append(buffer, got);
  }
  return out;
}

absl::Status ForEachMember(
    std::string_view bytes, ExtractionSink& sink,
    const std::function<bool(std::string_view name)>& wanted,
    const std::function<absl::Status(std::string name, std::string data)>&
        visit) {
  auto reader = ArchiveReader::Open(bytes);
  if (!reader.ok()) return reader.status();
  ArchiveMember member;
  for (;;) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    auto next = (*reader)->Next(&member);
    if (!next.ok()) return next.status();
    if (!*next) return absl::OkStatus();
    if (!member.regular || !wanted(member.name)) continue;
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
    if (auto s = visit(std::move(member.name), std::move(*data)); !s.ok()) {
      return s;
    }
  }
}

std::string LibarchiveVersion() {
  std::string v = archive_version_string();  // "libarchive 3.6.2"
  return v.substr(v.find(' ') + 1);
}

}  // namespace leakhound
