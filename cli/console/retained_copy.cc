#include "cli/console/retained_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "engine/content_digest.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

// Characters of a name kept as they are in a copy's file name.
bool Plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

// At most this many characters of the name (its end: the extension).
constexpr size_t kMaxNameChars = 80;

absl::Status Errno(int error, const std::string& what) {
  return absl::ErrnoToStatus(error, what);
}

// Writes `bytes` to `path` through a temporary file, synced, owner-only.
absl::Status WriteDurably(const std::string& dir, const std::string& path,
                          std::string_view bytes) {
  std::string tmp = absl::StrCat(dir, "/.tmp-XXXXXX");
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) return Errno(errno, "cannot create a retained copy in " + dir);
  size_t done = 0;
  int error = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    return Errno(error, "cannot write the retained copy " + path);
  }
  // The rename is durable once the folder is.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return absl::OkStatus();
}

}  // namespace

std::string RetainedCopiesDir(const std::string& index_dir) {
  std::error_code ec;
  std::string dir = fs::absolute(index_dir, ec).lexically_normal().string();
  if (ec) dir = index_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + ".sources";
}

absl::StatusOr<RetainedCopy> RetainCopy(const std::string& index_dir,
                                        std::string_view name,
                                        std::string_view bytes) {
  const std::string dir = RetainedCopiesDir(index_dir);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "cannot create " + dir);
  }
  std::string plain;
  if (name.size() > kMaxNameChars)
    name.remove_prefix(name.size() - kMaxNameChars);
  for (const char c : name) plain.push_back(Plain(c) ? c : '_');
  // 128 bits of the SHA-256 tell copies apart; the name keeps the format.
  const std::string path = absl::StrCat(
      dir, "/", absl::BytesToHexString(ContentDigest(bytes)).substr(0, 32), "-",
      plain);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) == bytes.size()) {
    return RetainedCopy{path, false};  // retained before
  }
  if (absl::Status s = WriteDurably(dir, path, bytes); !s.ok()) return s;
  return RetainedCopy{path, true};
}

absl::Status DropRetainedCopy(const std::string& index_dir,
                              const std::string& source) {
  const std::string dir = RetainedCopiesDir(index_dir) + "/";
  if (!source.starts_with(dir) ||
      source.find('/', dir.size()) != std::string::npos) {
    return absl::OkStatus();
  }
  if (::unlink(source.c_str()) != 0 && errno != ENOENT) {
    return Errno(errno, "cannot delete the retained copy " + source);
  }
  return absl::OkStatus();
}

std::string DocumentSource(const ProtectedIndex& index, std::string_view id) {
  auto doc = index.store().FindExternalId(id);
  if (!doc.ok() || !doc->has_value()) return "";
  auto record = index.store().ReadDocument(**doc);
  if (!record.ok() || !record->has_value()) return "";
  return (*record)->source;
}

}  // namespace leakhound
