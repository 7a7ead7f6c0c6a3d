// Input files for the leakhound command: expanding PATH arguments (files and
// directories, walked recursively), reading a file with a size bound and
// extracting its text (cli/formats/extraction.h).
//
// Thread-safety: free functions without shared state; safe to call
// concurrently.
#ifndef LEAKHOUND_CLI_COMMANDS_INPUT_FILES_H_
#define LEAKHOUND_CLI_COMMANDS_INPUT_FILES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/formats/extraction.h"

namespace leakhound {

struct InputFile {
  std::string path;  // as given, or joined below a given directory
  // For a file found in a directory given: the directory's own name, then
  // the path below it ("share/board/memo.txt" for share/board/memo.txt),
  // so that two folders holding the same relative path give two ids. The
  // path itself for a file given directly.
  std::string id;
  bool walked = false;  // found by walking a directory given, not named
  // Why the walk could not take this entry as a file to read, else OK:
  // a directory it could not list (PermissionDenied, ...: an error, never
  // skipped) or a special file inside a directory (a FIFO, socket or
  // device: UnreadableError kUnsupported, skipped like other unreadable
  // files). ExtractInput returns it.
  absl::Status problem = absl::OkStatus();
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
// reports why). A directory that cannot be listed (a subdirectory of mode
// 000, or the one given) and a special file inside a directory are
// entries with a `problem`, in path order with the files: the walk goes on
// past them, and the command decides (never silently clean, never gone).
// `notes`, when given, is filled in.
struct ExpandNotes {
  size_t skipped_links = 0;  // symlinks skipped (not following them)
  // Directories given that held no entry at all (empty, or only links).
  std::vector<std::string> empty_folders;
};
std::vector<InputFile> ExpandInputs(const std::vector<std::string>& args,
                                    bool follow_symlinks = false,
                                    ExpandNotes* notes = nullptr);

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
// file: a FIFO, device or socket is refused at once, never waited on) /
// ResourceExhausted (larger than max_bytes) with a one-line message that
// does not repeat the path.
absl::StatusOr<std::string> ReadFileBounded(const std::string& path,
                                            size_t max_bytes);

// Reads the file at `path` within limits.max_input_bytes and extracts it
// (ExtractBytes). Errors as ReadFileBounded and ExtractBytes; messages do
// not repeat the path.
absl::StatusOr<Extraction> ExtractFile(const std::string& path,
                                       const ExtractionLimits& limits);

// ExtractFile of `file.path`, or `file.problem` when the walk found one.
absl::StatusOr<Extraction> ExtractInput(const InputFile& file,
                                        const ExtractionLimits& limits);

// What `--on-unreadable` decides for a file that holds no text leakhound
// can read (an Unimplemented status of UnreadableError: an image without
// text, unknown binary data, a special file found in a directory).
enum class UnreadablePolicy {
  kByOrigin,  // skip inside directories, error for files named (default)
  kSkip,
  kError,
};

// The policy named by `value` ("skip" or "error"; nullopt: kByOrigin), or
// InvalidArgument with a one-line message naming the option.
absl::StatusOr<UnreadablePolicy> ParseUnreadablePolicy(
    const std::optional<std::string>& value);

// Whether the extraction error `s` of `file` makes it a skipped file
// rather than an error under `policy`. An error that is not "no readable
// text" (permission denied, an unreadable directory, a limit, an
// encrypted file) is never skipped.
bool SkipUnreadable(const absl::Status& s, const InputFile& file,
                    UnreadablePolicy policy);

// "PATH (CLASS: reason)" for a file SkipUnreadable skips, printable
// (control characters escaped).
std::string SkippedFileText(const InputFile& file, const absl::Status& why);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_INPUT_FILES_H_
