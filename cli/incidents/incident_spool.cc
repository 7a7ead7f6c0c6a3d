#include "cli/incidents/incident_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/incidents/incident_codec.h"

namespace leakhound {
namespace {

absl::Status Errno(int error, const std::string& what) {
  const std::string text =
      absl::StrCat("incident spool: ", what, ": ", std::strerror(error));
  if (error == ENOSPC || error == EDQUOT) {
    return absl::ResourceExhaustedError(text);
  }
  return absl::InternalError(text);
}

absl::Status WriteAll(int fd, const std::string& bytes,
                      const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(errno, "cannot write " + path);
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return Errno(errno, "cannot sync " + path);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "cannot open " + path);
  std::string bytes;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Errno(error, "cannot read " + path);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<IncidentSpool>> IncidentSpool::Open(
    const std::string& dir, uint64_t max_incidents) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "cannot create " + dir);
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return Errno(errno, "cannot read " + dir);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("incident spool: ", dir, " is not a folder"));
  }
  if ((st.st_mode & 077) != 0 || st.st_uid != ::geteuid()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "incident spool: ", dir,
        " must be a folder of this user's that others cannot read (chmod "
        "700)"));
  }
  const std::string lock = dir + "/LOCK";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(errno, "cannot open " + lock);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          "incident spool: ", dir, " is in use by another leakhound"));
    }
    return Errno(error, "cannot lock " + lock);
  }
  std::unique_ptr<IncidentSpool> spool(
      new IncidentSpool(dir, fd, max_incidents));
  if (absl::Status s = spool->Scan(); !s.ok()) return s;
  return spool;
}

absl::StatusOr<std::unique_ptr<IncidentSpool>> IncidentSpool::OpenSlot(
    const std::string& parent, uint64_t max_incidents) {
  if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "cannot create " + parent);
  }
  for (int slot = 0; slot < kSlots; ++slot) {
    auto spool = Open(absl::StrCat(parent, "/", slot), max_incidents);
    if (spool.ok() || !absl::IsFailedPrecondition(spool.status()) ||
        slot + 1 == kSlots) {
      return spool;
    }
  }
  return absl::FailedPreconditionError("unreachable");
}

IncidentSpool::~IncidentSpool() { ::close(lock_fd_); }

absl::Status IncidentSpool::Scan() {
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return Errno(errno, "cannot list " + dir_);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    uint64_t seq = 0;
    uint64_t count = 0;
    int64_t oldest = 0;
    char tail[8] = {};
    if (name.ends_with(".tmp")) {  // a write a crash cut short
      ::unlink((dir_ + "/" + name).c_str());
      continue;
    }
    if (std::sscanf(name.c_str(), "%20" SCNu64 "-%" SCNu64 "-%" SCNd64 ".%6s",
                    &seq, &count, &oldest, tail) != 4 ||
        std::strcmp(tail, "batch") != 0) {
      continue;
    }
    batches_[seq] = Entry{name, count, oldest};
    depth_ += count;
    if (seq >= next_seq_) next_seq_ = seq + 1;
  }
  ::closedir(d);
  return absl::OkStatus();
}

absl::Status IncidentSpool::SyncDir() const {
  const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "cannot open " + dir_);
  const bool ok = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  return ok ? absl::OkStatus() : Errno(error, "cannot sync " + dir_);
}

int64_t IncidentSpool::oldest_ms() const {
  return batches_.empty() ? 0 : batches_.begin()->second.oldest_ms;
}

absl::Status IncidentSpool::Put(std::span<const Incident> incidents) {
  if (depth_ + incidents.size() > max_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("incident spool ", dir_, " is full (", depth_, " of ",
                     max_, " incidents)"));
  }
  int64_t oldest = incidents.front().time_ms;
  for (const Incident& i : incidents) oldest = std::min(oldest, i.time_ms);
  const uint64_t seq = next_seq_++;
  const std::string name =
      absl::StrFormat("%020d-%d-%d.batch", seq, incidents.size(), oldest);
  const std::string temp = absl::StrCat(dir_, "/", name, ".tmp");
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(errno, "cannot create " + temp);
  absl::Status s = WriteAll(fd, EncodeIncidents(incidents), temp);
  ::close(fd);
  if (s.ok() && ::rename(temp.c_str(), (dir_ + "/" + name).c_str()) != 0) {
    s = Errno(errno, "cannot rename " + temp);
  }
  if (s.ok()) s = SyncDir();
  if (!s.ok()) {
    ::unlink(temp.c_str());
    return s;
  }
  batches_[seq] = Entry{name, incidents.size(), oldest};
  depth_ += incidents.size();
  return absl::OkStatus();
}

absl::StatusOr<std::optional<IncidentSpool::Batch>> IncidentSpool::Oldest() {
  if (batches_.empty()) return std::nullopt;
  const auto& [seq, entry] = *batches_.begin();
  auto bytes = ReadAll(dir_ + "/" + entry.file);
  if (!bytes.ok()) return bytes.status();
  auto incidents = DecodeIncidents(*bytes);
  if (!incidents.ok()) {
    // Kept for a person to look at, out of the way of the next batches.
    const std::string aside = dir_ + "/damaged";
    ::mkdir(aside.c_str(), 0700);
    ::rename((dir_ + "/" + entry.file).c_str(),
             (aside + "/" + entry.file).c_str());
    const std::string file = entry.file;
    depth_ -= entry.count;
    batches_.erase(batches_.begin());
    return absl::DataLossError(absl::StrCat("incident spool: ", file,
                                            " moved to ", aside, ": ",
                                            incidents.status().message()));
  }
  return Batch{seq, *std::move(incidents)};
}

absl::Status IncidentSpool::Remove(uint64_t seq) {
  auto it = batches_.find(seq);
  if (it == batches_.end()) return absl::OkStatus();
  const std::string path = dir_ + "/" + it->second.file;
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Errno(errno, "cannot remove " + path);
  }
  depth_ -= it->second.count;
  batches_.erase(it);
  return SyncDir();
}

}  // namespace leakhound
