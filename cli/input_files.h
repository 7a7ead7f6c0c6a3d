// Input files for the leakhound command: expanding PATH arguments (files and
// directories, walked recursively), reading a file with a size bound and
// extracting its text (cli/formats/extraction.h).
//
// Thread-safety: free functions without shared state; safe to call
// concurrently.
#ifndef LEAKHOUND_CLI_INPUT_FILES_H_
#define LEAKHOUND_CLI_INPUT_FILES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/extraction.h"

namespace leakhound {

struct InputFile {
  std::string path;  // as given, or joined below a given directory
  std::string id;    // path relative to the directory given; the path itself
                     // for a file given directly
  bool walked = false;  // found by walking a directory given, not named
  // The absolute, normalized path ("-" for standard input): what the index
  // records as a document's source, so that `leakhound rekey` can read it
  // again from any working directory.
  std::string Source() const;
};

// Expands each argument: a regular file is itself, a directory yields its
// regular files recursively (sorted by path). Symlinks inside a directory
// are skipped unless `follow_symlinks`: then a link to a file is that file
// and a link to a directory is walked, each directory (by device and inode)
// once, so a link cycle ends. "-" is kept as is (standard input), and so is
// an argument that is not a directory or cannot be examined (reading it
// reports why). Returns an error ("DIR: reason") only when a directory
// cannot be walked. `skipped_links`, when given, is set to the number of
// symlinks skipped.
absl::StatusOr<std::vector<InputFile>> ExpandInputs(
    const std::vector<std::string>& args, bool follow_symlinks = false,
    size_t* skipped_links = nullptr);

// One shard of `files` for a scan split over `shards` machines (`scan
// --shard I/N`): the files whose path's FNV-1a hash is `shard` modulo
// `shards`, in their order. The same paths give the same shards on every
// machine, and the shards of 0..N-1 partition `files`.
// REQUIRES: shard < shards.
std::vector<InputFile> ShardOf(std::vector<InputFile> files, uint32_t shard,
                               uint32_t shards);

// Sum of the sizes of the files that can be examined (for progress).
uint64_t TotalSize(const std::vector<InputFile>& files);

// Reads the whole file ("-" = standard input).
// Returns NotFound / PermissionDenied / FailedPrecondition (not a regular
// file) / ResourceExhausted (larger than max_bytes) with a one-line message
// that does not repeat the path.
absl::StatusOr<std::string> ReadFileBounded(const std::string& path,
                                            size_t max_bytes);

// Reads the file at `path` within limits.max_input_bytes and extracts it
// (ExtractBytes). Errors as ReadFileBounded and ExtractBytes; messages do
// not repeat the path.
absl::StatusOr<Extraction> ExtractFile(const std::string& path,
                                       const ExtractionLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INPUT_FILES_H_
