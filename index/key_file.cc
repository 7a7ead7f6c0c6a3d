#include "index/key_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "index/trusted_path.h"

namespace leakhound {

absl::Status WriteKeyFile(const std::string& path, std::string_view key) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot create " + path);
  const bool ok =
      ::write(fd, key.data(), key.size()) ==
          static_cast<ssize_t>(key.size()) &&
      ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return absl::ErrnoToStatus(err, "cannot write " + path);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadKeyFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open " + path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, "cannot stat " + path);
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "key file ", path, " is accessible to other users (mode ",
        absl::StrFormat("%04o", st.st_mode & 07777), "); run chmod 600 on it"));
  }
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof(buf));
  const int err = errno;
  ::close(fd);
  if (n < 0) return absl::ErrnoToStatus(err, "cannot read " + path);
  return std::string(buf, static_cast<size_t>(n));
}

namespace {

std::string LocationFile(const std::string& dir) {
  return dir + "/" + kKeyLocationFile;
}

}  // namespace

absl::StatusOr<std::string> IndexKeyPath(const std::string& dir) {
  std::ifstream in(LocationFile(dir));
  if (!in) return dir + "/key";
  std::string path;
  std::getline(in, path);
  path = std::string(absl::StripAsciiWhitespace(path));
  if (path.empty() || path[0] != '/') {
    return absl::DataLossError(absl::StrCat(
        LocationFile(dir), " does not name an absolute key file path"));
  }
  // Outside the index folder, so its own folders must be trusted too.
  if (absl::Status s = CheckTrustedFile(path, "key file"); !s.ok()) return s;
  return path;
}

absl::Status PlaceKey(const std::string& dir, const std::string& key_file,
                      std::string_view key) {
  if (key_file.empty()) return WriteKeyFile(dir + "/key", key);
  if (key_file[0] != '/' || key_file.find('\n') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--key-file ", key_file, ": an absolute path, please"));
  }
  if (absl::Status s = CheckTrustedFile(key_file, "key file"); !s.ok()) {
    return s;
  }
  absl::Status s = WriteKeyFile(key_file, key);
  if (!s.ok()) return s;
  return WriteKeyFile(LocationFile(dir), key_file + "\n");
}

}  // namespace leakhound
