#include "cli/commands/input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/commands/exit_codes.h"

namespace leakhound {

std::string InputFile::Source() const {
  if (path == "-") return path;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}
namespace {

namespace fs = std::filesystem;

// What a file that is not a regular one is, for its message.
const char* NonRegularKind(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "a special file";
  }
}

// `err` as a status; the message is "PATH: reason", or "reason" without a
// path.
absl::Status ErrnoStatus(int err, const std::string& path = "") {
  std::string msg = path.empty() ? std::string(std::strerror(err))
                                 : absl::StrCat(path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    default:
      return absl::UnavailableError(msg);
  }
}

}  // namespace

std::vector<InputFile> ShardOf(std::vector<InputFile> files, uint32_t shard,
                               uint32_t shards) {
  std::erase_if(files, [&](const InputFile& f) {
    uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
    for (const char c : f.path) {
      hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    return hash % shards != shard;
  });
  return files;
}

namespace {

// The last component of `dir` made absolute ("share" for "share/",
// "main" for "." in /work/main); "" for the root.
std::string FolderName(const std::string& dir) {
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec).lexically_normal();
  if (ec) absolute = fs::path(dir).lexically_normal();
  if (absolute.filename().empty()) absolute = absolute.parent_path();
  return absolute.filename().string();
}

// The files below `arg`, a directory, sorted by path; a folder that
// cannot be listed, a special file and a file that cannot be stat'ed are
// entries with their problem. Symbolic links are followed with
// `follow_symlinks` (else counted in notes->skipped_links); a directory is
// entered once, by device and inode, so that a cycle of links ends.
std::vector<InputFile> WalkFolder(const std::string& arg, bool follow_symlinks,
                                  ExpandNotes* notes) {
  const fs::path root(arg);
  const fs::path folder(FolderName(arg));
  auto entry_of = [&](const fs::path& path, absl::Status problem) {
    return InputFile{path.string(),
                     (folder / path.lexically_relative(root)).string(), true,
                     std::move(problem)};
  };
  std::vector<InputFile> found;
  std::set<std::pair<dev_t, ino_t>> walked;
  auto first_visit = [&](const fs::path& dir) {
    struct stat dir_stat {};
    return ::stat(dir.c_str(), &dir_stat) == 0 &&
           walked.insert({dir_stat.st_dev, dir_stat.st_ino}).second;
  };
  first_visit(root);
  // Each directory is listed on its own, so that one it cannot list is an
  // entry with its error and the walk goes on with its siblings.
  std::vector<fs::path> pending = {root};
  std::error_code ec;
  while (!pending.empty()) {
    const fs::path dir = std::move(pending.back());
    pending.pop_back();
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const fs::directory_entry& entry = *it;
      std::error_code type_ec;
      if (entry.is_symlink(type_ec) && !follow_symlinks) {
        ++notes->skipped_links;
        continue;
      }
      const fs::file_type type = entry.status(type_ec).type();
      switch (type) {
        case fs::file_type::directory:
          if (first_visit(entry.path())) pending.push_back(entry.path());
          break;
        case fs::file_type::regular:
          found.push_back(entry_of(entry.path(), absl::OkStatus()));
          break;
        case fs::file_type::not_found:  // a dangling link
          break;
        case fs::file_type::none:
        case fs::file_type::unknown:  // stat failed: the reason
          found.push_back(entry_of(
              entry.path(), ErrnoStatus(type_ec ? type_ec.value() : EIO)));
          break;
        default:
          found.push_back(entry_of(
              entry.path(),
              UnreadableError(Unreadable::kUnsupported, NonRegularKind(type))));
          break;
      }
    }
    if (ec) {
      found.push_back(entry_of(
          dir, absl::Status(
                   ErrnoStatus(ec.value()).code(),
                   absl::StrCat("cannot read the directory: ", ec.message()))));
      ec.clear();
    }
  }
  std::sort(
      found.begin(), found.end(),
      [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
  return found;
}

}  // namespace

std::vector<InputFile> ExpandInputs(const std::vector<std::string>& args,
                                    bool follow_symlinks, ExpandNotes* notes) {
  std::vector<InputFile> files;
  ExpandNotes ignored;
  if (notes == nullptr) notes = &ignored;
  *notes = ExpandNotes();
  for (const std::string& arg : args) {
    std::error_code ec;
    if (arg == "-" || !fs::is_directory(fs::status(arg, ec)) || ec) {
      files.push_back({arg, arg});  // reading it will say what is wrong
      continue;
    }
    std::vector<InputFile> found = WalkFolder(arg, follow_symlinks, notes);
    if (found.empty()) notes->empty_folders.push_back(arg);
    files.insert(files.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
  }
  return files;
}

uint64_t TotalSize(const std::vector<InputFile>& files) {
  uint64_t total = 0;
  for (const InputFile& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(f.path, ec);
    if (!ec) total += size;
  }
  return total;
}

absl::StatusOr<std::string> ReadFileBounded(const std::string& path,
                                            size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO waits for a writer otherwise; a special
  // file is refused below, after fstat, and a regular file ignores it.
  int fd = path == "-" ? STDIN_FILENO
                       : ::open(path.c_str(),
                                O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return ErrnoStatus(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    if (fd != STDIN_FILENO) ::close(fd);
    return ErrnoStatus(err);
  }
  if (S_ISDIR(st.st_mode) || (path != "-" && !S_ISREG(st.st_mode))) {
    if (fd != STDIN_FILENO) ::close(fd);
    std::error_code ec;  // the type again, for the message only
    const char* what = NonRegularKind(
        path == "-" ? fs::file_type::directory : fs::status(path, ec).type());
    return absl::FailedPreconditionError(
        absl::StrCat(what, ", not a regular file"));
  }
  auto too_big = [&] {
    return absl::ResourceExhaustedError(absl::StrCat(
        "larger than the limit of ", max_bytes, " bytes (--max-file-size)"));
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    if (fd != STDIN_FILENO) ::close(fd);
    return too_big();
  }
  std::string data;
  if (S_ISREG(st.st_mode)) data.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buf, sizeof(buf));
    if (got < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (fd != STDIN_FILENO) ::close(fd);
      return ErrnoStatus(err);
    }
    if (got == 0) break;
    if (data.size() + static_cast<size_t>(got) > max_bytes) {
      if (fd != STDIN_FILENO) ::close(fd);
      return too_big();
    }
    data.append(buf, static_cast<size_t>(got));
  }
  if (fd != STDIN_FILENO) ::close(fd);
  return data;
}

absl::StatusOr<Extraction> ExtractFile(const std::string& path,
                                       const ExtractionLimits& limits) {
  auto bytes = ReadFileBounded(path, limits.max_input_bytes);
  if (!bytes.ok()) return bytes.status();
  return ExtractBytes(path, std::move(*bytes), limits);
}

absl::StatusOr<Extraction> ExtractInput(const InputFile& file,
                                        const ExtractionLimits& limits) {
  if (!file.problem.ok()) return file.problem;
  return ExtractFile(file.path, limits);
}

absl::StatusOr<UnreadablePolicy> ParseUnreadablePolicy(
    const std::optional<std::string>& value) {
  if (!value) return UnreadablePolicy::kByOrigin;
  if (*value == "skip") return UnreadablePolicy::kSkip;
  if (*value == "error") return UnreadablePolicy::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("--on-unreadable wants skip or error, not '", *value, "'"));
}

bool SkipUnreadable(const absl::Status& s, const InputFile& file,
                    UnreadablePolicy policy) {
  if (s.code() != absl::StatusCode::kUnimplemented) return false;
  switch (policy) {
    case UnreadablePolicy::kSkip:
      return true;
    case UnreadablePolicy::kError:
      return false;
    case UnreadablePolicy::kByOrigin:
      return file.walked;
  }
  return false;
}

std::string SkippedFileText(const InputFile& file, const absl::Status& why) {
  return Printable(absl::StrCat(
      file.path, " (",
      UnreadableName(UnreadableOf(why).value_or(Unreadable::kUnsupported)),
      ": ", why.message(), ")"));
}

}  // namespace leakhound
