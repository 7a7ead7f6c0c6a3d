#include "cli/console/session_table.h"

#include "absl/strings/ascii.h"
#include "cli/console/secrets.h"

namespace leakhound {

ConsoleSession SessionTable::Create(const std::string& user,
                                    const std::string& role,
                                    const std::string& credential,
                                    ConsoleClock::time_point now) {
  ConsoleSession s{RandomToken(), user, role, RandomToken(),
                   credential,    now,  now};
  absl::MutexLock lock(&mu_);
  // Forget expired sessions as new ones come: the table stays bounded by
  // the logins of one idle period.
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = Expired(it->second, now) ? sessions_.erase(it) : std::next(it);
  }
  sessions_[s.id] = s;
  return s;
}

std::optional<ConsoleSession> SessionTable::Find(const std::string& id,
                                                 ConsoleClock::time_point now) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  if (Expired(it->second, now)) {
    sessions_.erase(it);
    return std::nullopt;
  }
  it->second.last_seen = now;
  return it->second;
}

void SessionTable::Erase(const std::string& id) {
  absl::MutexLock lock(&mu_);
  sessions_.erase(id);
}

void SessionTable::EraseUser(const std::string& user) {
  absl::MutexLock lock(&mu_);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second.user == user ? sessions_.erase(it) : std::next(it);
  }
}

size_t SessionTable::size() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

bool LoginLimiter::Under(const std::string& key, int max,
                         ConsoleClock::time_point now) {
  auto it = failures_.find(key);
  if (it == failures_.end()) return true;
  if (now - it->second.first > kWindow) {
    failures_.erase(it);
    return true;
  }
  return it->second.count < max;
}

void LoginLimiter::Note(const std::string& key, ConsoleClock::time_point now) {
  Failures& f = failures_[key];
  if (f.count == 0 || now - f.first > kWindow) f = Failures{0, now};
  ++f.count;
}

bool LoginLimiter::Allowed(const std::string& client, const std::string& user,
                           ConsoleClock::time_point now) {
  absl::MutexLock lock(&mu_);
  // Both checked (no short cut): each expires its own old entry.
  const bool by_client = Under("client " + client, kMaxClientFailures, now);
  const bool by_user =
      Under("user " + absl::AsciiStrToLower(user), kMaxFailures, now);
  return by_client && by_user;
}

void LoginLimiter::Failed(const std::string& client, const std::string& user,
                          ConsoleClock::time_point now) {
  absl::MutexLock lock(&mu_);
  if (failures_.size() > 100'000) {
    // A flood of names: drop what has expired, then everything.
    for (auto it = failures_.begin(); it != failures_.end();) {
      it = now - it->second.first > kWindow ? failures_.erase(it)
                                            : std::next(it);
    }
    if (failures_.size() > 100'000) failures_.clear();
  }
  Note("client " + client, now);
  Note("user " + absl::AsciiStrToLower(user), now);
}

void LoginLimiter::Succeeded(const std::string& user) {
  absl::MutexLock lock(&mu_);
  failures_.erase("user " + absl::AsciiStrToLower(user));
}

}  // namespace leakhound
