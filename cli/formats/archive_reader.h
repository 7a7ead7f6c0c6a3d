// ArchiveReader: the members of an archive (zip, tar, 7z, rar, cpio, cab,
// ISO 9660) or of a single compressed file (gzip, bzip2, xz, lzma, zstd,
// lz4, compress) held in memory, read one after the other. The one place
// that calls libarchive; only compression filters built into the library
// are enabled, never ones that run an external program.
//
// Reading is bounded: ReadData stops at a byte limit and passes every
// chunk it inflates to a charge callback (the extraction's expansion and
// time budget), so a zip bomb costs at most the limits.
//
// Thread-safety: an ArchiveReader is used by one thread; separate readers
// are independent.
#ifndef LEAKHOUND_CLI_FORMATS_ARCHIVE_READER_H_
#define LEAKHOUND_CLI_FORMATS_ARCHIVE_READER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

struct archive;

namespace leakhound {

struct ArchiveMember {
  std::string name;        // path inside the archive, UTF-8 as stored
  bool regular = false;    // a regular file (not a directory, link, ...)
  bool encrypted = false;  // its data is encrypted
};

class ArchiveReader {
 public:
  // Opens `bytes`, which must outlive the reader. InvalidArgument when
  // libarchive recognizes no archive or compressed format in it.
  static absl::StatusOr<std::unique_ptr<ArchiveReader>> Open(
      std::string_view bytes);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // Moves to the next member; false at the end. InvalidArgument for a
  // truncated or malformed archive.
  absl::StatusOr<bool> Next(ArchiveMember* member);

  // Reads the current member's data. ResourceExhausted past `max_bytes`;
  // `charge` is called with the size of every chunk read, and its error
  // stops the read and is returned. InvalidArgument for corrupt data.
  absl::StatusOr<std::string> ReadData(
      size_t max_bytes, const std::function<absl::Status(size_t)>& charge);

 private:
  explicit ArchiveReader(struct archive* a) : archive_(a) {}
  struct archive* archive_;
};

// Reads every regular member of the archive `bytes` whose name `wanted`
// accepts, within the sink's limits (the clock checked per member, each
// member at most max_input_bytes, every inflated byte charged), and passes
// it to `visit`. InvalidArgument for a malformed archive or an encrypted
// member (its text cannot be checked); a member's read error is prefixed
// with its name; an error of `visit` stops the walk and is returned.
absl::Status ForEachMember(
    std::string_view bytes, ExtractionSink& sink,
    const std::function<bool(std::string_view name)>& wanted,
    const std::function<absl::Status(std::string name, std::string data)>&
        visit);

// The libarchive version (for `leakhound --version`).
std::string LibarchiveVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_ARCHIVE_READER_H_
