#include "cli/console/override_link.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cli/console/secrets.h"

namespace leakhound {
namespace {

// PERSISTED: the MAC's input.
std::string MacInput(const OverrideLinkClaims& c) {
  return absl::StrCat("leakhound-override-link/1\n", c.reference, "\n",
                      absl::AsciiStrToLower(c.sender), "\n", c.expires_ms, "\n",
                      c.nonce);
}

bool IsHex(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string SignOverrideLink(std::string_view key,
                             const OverrideLinkClaims& claims) {
  return absl::StrCat(claims.expires_ms, ".", claims.nonce, ".",
                      HmacSha256Hex(key, MacInput(claims)));
}

absl::StatusOr<std::string> VerifyOverrideLink(std::string_view key,
                                               std::string_view token,
                                               const std::string& reference,
                                               const std::string& sender,
                                               int64_t now_ms) {
  const absl::Status refused =
      absl::PermissionDeniedError("this link is not valid for this message");
  const std::vector<std::string> parts =
      absl::StrSplit(std::string(token), '.');
  OverrideLinkClaims c;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &c.expires_ms) ||
      !IsHex(parts[1]) || parts[1].size() > 64 || !IsHex(parts[2])) {
    return refused;
  }
  c.reference = reference;
  c.sender = sender;
  c.nonce = parts[1];
  if (!TokensEqual(parts[2], HmacSha256Hex(key, MacInput(c)))) return refused;
  if (now_ms >= c.expires_ms) {
    return absl::DeadlineExceededError("this link has expired");
  }
  return c.nonce;
}

absl::StatusOr<std::string> LoadLinkKey(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    const std::string temp = path + ".tmp";
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", temp, ": ", std::strerror(errno)));
    }
    const std::string key = RandomToken() + "\n";
    const bool written = ::write(fd, key.data(), key.size()) ==
                             static_cast<ssize_t>(key.size()) &&
                         ::fsync(fd) == 0;
    ::close(fd);
    // link(2): of two consoles starting at once, one key wins.
    if (!written ||
        (::link(temp.c_str(), path.c_str()) != 0 && errno != EEXIST)) {
      ::unlink(temp.c_str());
      return absl::InternalError(absl::StrCat("cannot write ", path));
    }
    ::unlink(temp.c_str());
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  }
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  struct stat st;
  char buffer[256];
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (stat_ok && (st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, " may be read by others: chmod 600 it"));
  }
  const std::string key(absl::StripAsciiWhitespace(
      std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0)));
  if (key.size() != 64 || !IsHex(key)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " does not hold a link key (64 hex digits)"));
  }
  return key;
}

}  // namespace leakhound
