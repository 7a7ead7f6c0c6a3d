#include "cli/discover/remediation.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/discover/file_facts.h"
#include "cli/incidents/incident.h"

namespace leakhound {
namespace {

// The tombstone's first line: a tombstone found at the path is ours.
constexpr char kTombstoneHead[] = "leakhound: this file was quarantined";

absl::Status Errno(const std::string& what, int e) {
  const std::string message = absl::StrCat(what, ": ", std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string Folder(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

absl::Status SyncFolder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open " + folder, errno);
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  return rc == 0 ? absl::OkStatus() : Errno("cannot sync " + folder, e);
}

absl::Status MakeFolder(const std::string& folder) {
  if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno("cannot make " + folder, errno);
  }
  return absl::OkStatus();
}

// Copies `from` to `to` (created 0600, or failing if it exists), synced.
absl::Status CopySynced(const std::string& from, const std::string& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Errno("cannot read " + from, errno);
  const int out =
      ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) {
    const int e = errno;
    ::close(in);
    return Errno("cannot create " + to, e);
  }
  char buffer[1 << 16];
  ssize_t n = 0;
  absl::Status s;
  while (s.ok() && (n = ::read(in, buffer, sizeof buffer)) > 0) {
    for (ssize_t done = 0; s.ok() && done < n;) {
      const ssize_t w =
          ::write(out, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno != EINTR) s = Errno("cannot write " + to, errno);
      if (w > 0) done += w;
    }
  }
  if (s.ok() && n < 0) s = Errno("cannot read " + from, errno);
  if (s.ok() && ::fsync(out) != 0) s = Errno("cannot sync " + to, errno);
  ::close(in);
  ::close(out);
  return s;
}

// Moves `from` to `to`: a rename, or across file systems a synced copy
// to TO.partial renamed to `to`, then `from` unlinked.
absl::Status MoveFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return SyncFolder(Folder(to));
  if (errno != EXDEV) return Errno("cannot move " + from, errno);
  const std::string partial = to + ".partial";
  ::unlink(partial.c_str());
  if (absl::Status s = CopySynced(from, partial); !s.ok()) {
    ::unlink(partial.c_str());
    return s;
  }
  if (::rename(partial.c_str(), to.c_str()) != 0) {
    return Errno("cannot rename " + partial, errno);
  }
  if (absl::Status s = SyncFolder(Folder(to)); !s.ok()) return s;
  if (::unlink(from.c_str()) != 0) return Errno("cannot remove " + from, errno);
  return SyncFolder(Folder(from));
}

bool IsOurTombstone(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  return in && std::getline(in, first) && first == kTombstoneHead;
}

absl::Status WriteTombstone(const DiscoverFinding& f, const std::string& text) {
  const std::string path = TombstonePath(f.path);
  if (Exists(path) && !IsOurTombstone(path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " exists and is not leakhound's: not replaced"));
  }
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot write " + tmp, errno);
  const std::string body = absl::StrCat(kTombstoneHead, "\n", text);
  absl::Status s;
  if (::write(fd, body.data(), body.size()) !=
      static_cast<ssize_t>(body.size())) {
    s = Errno("cannot write " + tmp, errno);
  }
  if (s.ok() && ::fchmod(fd, 0644) != 0)
    s = Errno("cannot chmod " + tmp, errno);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("cannot sync " + tmp, errno);
  ::close(fd);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = Errno("cannot write " + path, errno);
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return SyncFolder(Folder(path));
}

// The quarantined copy readable by the service alone.
absl::Status SealQuarantined(const DiscoverFinding& f) {
  if (::chmod(f.quarantine_path.c_str(), 0600) != 0) {
    return Errno("cannot chmod " + f.quarantine_path, errno);
  }
  // As root, the service takes the file over; otherwise it is its own.
  if (::geteuid() == 0 && ::lchown(f.quarantine_path.c_str(), 0, 0) != 0) {
    return Errno("cannot chown " + f.quarantine_path, errno);
  }
  return absl::OkStatus();
}

}  // namespace

Remediation RemediationOf(const PolicyDecision& decision) {
  Remediation out = Remediation::kLog;
  for (const RuleMatch& m : decision.matches) {
    if (!m.rule->monitor) out = std::max(out, m.rule->remediation);
  }
  return out;
}

std::string TombstonePath(const std::string& path) {
  return path + kTombstoneSuffix;
}

bool IsTombstone(std::string_view path) {
  const std::string_view suffix(kTombstoneSuffix);
  return path.size() >= suffix.size() &&
         path.substr(path.size() - suffix.size()) == suffix;
}

std::string QuarantinePathFor(const std::string& quarantine_dir,
                              const std::string& reference,
                              const std::string& path) {
  const size_t slash = path.rfind('/');
  return absl::StrCat(
      quarantine_dir, "/", reference, "/",
      slash == std::string::npos ? path : path.substr(slash + 1));
}

std::string TombstoneText(const DiscoverFinding& f,
                          const std::string& rule_text,
                          const std::string& rule_name) {
  const std::string why =
      rule_text.empty()
          ? "It holds content the organisation protects, and was readable "
            "where it was. Ask the security team to restore it if you need "
            "it."
          : rule_text;
  return absl::StrCat("File: ", f.path,
                      "\nQuarantined: ", FormatTime(NowUnixMs()),
                      " UTC\nRule: ", rule_name, "\nIncident: ", f.reference,
                      "\n\n", why, "\n");
}

absl::Status MoveToQuarantine(const DiscoverFinding& f,
                              const std::string& tombstone_text) {
  if (absl::Status s = MakeFolder(Folder(Folder(f.quarantine_path))); !s.ok()) {
    return s;
  }
  if (absl::Status s = MakeFolder(Folder(f.quarantine_path)); !s.ok()) {
    return s;
  }
  if (Exists(f.quarantine_path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(f.quarantine_path, " exists already"));
  }
  if (absl::Status s = MoveFile(f.path, f.quarantine_path); !s.ok()) return s;
  if (absl::Status s = SealQuarantined(f); !s.ok()) return s;
  return WriteTombstone(f, tombstone_text);
}

absl::StatusOr<bool> CompleteQuarantine(const DiscoverFinding& f,
                                        const std::string& tombstone_text) {
  const bool there = Exists(f.quarantine_path);
  const bool here = Exists(f.path);
  if (there) {
    // The copy was complete (renamed from .partial): the original goes.
    if (here && ::unlink(f.path.c_str()) != 0) {
      return Errno("cannot remove " + f.path, errno);
    }
    if (absl::Status s = SealQuarantined(f); !s.ok()) return s;
    if (absl::Status s = WriteTombstone(f, tombstone_text); !s.ok()) return s;
    return true;
  }
  ::unlink((f.quarantine_path + ".partial").c_str());
  if (here) return false;
  return absl::DataLossError(
      absl::StrCat(f.path, " is neither at its place nor in quarantine (",
                   f.quarantine_path, ")"));
}

absl::StatusOr<std::string> RestoreQuarantined(const DiscoverFinding& f) {
  const bool there = Exists(f.quarantine_path);
  if (there && Exists(f.path)) {
    return absl::FailedPreconditionError(
        absl::StrCat("a file is at ", f.path,
                     " again: not overwritten (the quarantined "
                     "copy stays at ",
                     f.quarantine_path, ")"));
  }
  if (there) {
    if (absl::Status s = MoveFile(f.quarantine_path, f.path); !s.ok()) {
      return s;
    }
  } else if (!Exists(f.path)) {
    return absl::DataLossError(
        absl::StrCat(f.path, " is neither in quarantine (", f.quarantine_path,
                     ") nor at its place"));
  }
  std::string unrestored;
  if (::chmod(f.path.c_str(), f.mode) != 0) {
    absl::StrAppend(&unrestored, "mode: ", std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(f.path.c_str(), &st) == 0 &&
      (st.st_uid != f.uid || st.st_gid != f.gid) &&
      ::lchown(f.path.c_str(), f.uid, f.gid) != 0) {
    absl::StrAppend(&unrestored, unrestored.empty() ? "" : "; ", "owner ",
                    f.owner, ":", f.group, ": ", std::strerror(errno));
  }
  const std::string tombstone = TombstonePath(f.path);
  if (IsOurTombstone(tombstone)) ::unlink(tombstone.c_str());
  ::rmdir(Folder(f.quarantine_path).c_str());
  return unrestored;
}

absl::Status RestrictFile(const DiscoverFinding& f) {
  if (::chmod(f.path.c_str(), f.mode & ~static_cast<uint32_t>(077)) != 0) {
    return Errno("cannot chmod " + f.path, errno);
  }
  return absl::OkStatus();
}

absl::Status RestoreMode(const DiscoverFinding& f) {
  if (::chmod(f.path.c_str(), f.mode) != 0) {
    return Errno("cannot chmod " + f.path, errno);
  }
  return absl::OkStatus();
}

}  // namespace leakhound
