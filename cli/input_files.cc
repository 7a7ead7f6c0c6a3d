#include "cli/input_files.h"

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

namespace leakhound {

std::string InputFile::Source() const {
  if (path == "-") return path;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}
namespace {

namespace fs = std::filesystem;

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

absl::StatusOr<std::vector<InputFile>> ExpandInputs(
    const std::vector<std::string>& args, bool follow_symlinks,
    size_t* skipped_links) {
  std::vector<InputFile> files;
  if (skipped_links != nullptr) *skipped_links = 0;
  for (const std::string& arg : args) {
    if (arg == "-") {
      files.push_back({arg, arg});
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(arg, ec);
    if (ec || !fs::is_directory(st)) {  // reading it will say what is wrong
      files.push_back({arg, arg});
      continue;
    }
    std::vector<InputFile> found;
    auto options = fs::directory_options::skip_permission_denied;
    if (follow_symlinks) {
      options |= fs::directory_options::follow_directory_symlink;
    }
    // Directories walked, by device and inode: a followed link to one
    // already walked (a cycle, or two links to one place) is not entered.
    std::set<std::pair<dev_t, ino_t>> walked;
    auto first_visit = [&](const fs::path& dir) {
      struct stat dir_stat {};
      return ::stat(dir.c_str(), &dir_stat) == 0 &&
             walked.insert({dir_stat.st_dev, dir_stat.st_ino}).second;
    };
    first_visit(arg);
    fs::recursive_directory_iterator it(arg, options, ec);
    if (ec) return ErrnoStatus(ec.value(), arg);
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return ErrnoStatus(ec.value(), arg);
      const bool link = it->is_symlink(ec);
      if (link && !follow_symlinks) {
        if (skipped_links != nullptr) ++*skipped_links;
        continue;
      }
      if (it->is_directory(ec)) {
        if (!first_visit(it->path())) it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(ec)) continue;
      found.push_back({it->path().string(),
                       it->path().lexically_relative(arg).string(), true});
    }
    if (ec) return ErrnoStatus(ec.value(), arg);
    std::sort(found.begin(), found.end(),
              [](const InputFile& a, const InputFile& b) {
                return a.path < b.path;
              });
    files.insert(files.end(), found.begin(), found.end());
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
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    if (fd != STDIN_FILENO) ::close(fd);
    return ErrnoStatus(err);
  }
  if (S_ISDIR(st.st_mode) || (path != "-" && !S_ISREG(st.st_mode))) {
    if (fd != STDIN_FILENO) ::close(fd);
    return absl::FailedPreconditionError(
        "not a regular file");
  }
  auto too_big = [&] {
    return absl::ResourceExhaustedError(
        absl::StrCat("larger than the limit of ", max_bytes,
                     " bytes (--max-file-size)"));
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

}  // namespace leakhound
