// SessionTable: the console's logged-in sessions, kept in memory (a
// restart logs everyone out), each with its CSRF token, an idle timeout
// and an absolute lifetime; and LoginLimiter, which refuses logins after
// repeated failures from one client address or for one user name.
//
// Thread-safety: both are thread-safe (one mutex each). Times are passed
// in, so that tests need no sleeping.
#ifndef LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_
#define LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace leakhound {

using ConsoleClock = std::chrono::steady_clock;

struct ConsoleSession {
  std::string id;  // the cookie's value (RandomToken)
  std::string user;
  std::string role;  // "viewer", "reviewer" or "admin", as at login
  std::string csrf;  // every state-changing request carries it
  // The user's password hash at login: a session whose user has another
  // one now (a new password) is over (the console checks at each request).
  std::string credential;
  ConsoleClock::time_point created;
  ConsoleClock::time_point last_seen;
};

class SessionTable {
 public:
  // A session ends after `idle_timeout` without a request, and `max_age`
  // after its login whatever its use.
  SessionTable(std::chrono::seconds idle_timeout, std::chrono::seconds max_age)
      : idle_timeout_(idle_timeout), max_age_(max_age) {}

  ConsoleSession Create(const std::string& user, const std::string& role,
                        const std::string& credential,
                        ConsoleClock::time_point now);
  // The session `id`, its idle time renewed; nullopt when unknown, idle
  // longer than the timeout or older than the lifetime (it is then
  // forgotten).
  std::optional<ConsoleSession> Find(const std::string& id,
                                     ConsoleClock::time_point now);
  void Erase(const std::string& id);
  // Logs `user` out everywhere (removed, or a new password).
  void EraseUser(const std::string& user);
  size_t size() const;

 private:
  bool Expired(const ConsoleSession& s, ConsoleClock::time_point now) const {
    return now - s.last_seen > idle_timeout_ || now - s.created > max_age_;
  }

  const std::chrono::seconds idle_timeout_;
  const std::chrono::seconds max_age_;
  mutable absl::Mutex mu_;
  std::map<std::string, ConsoleSession> sessions_ ABSL_GUARDED_BY(mu_);
};

class LoginLimiter {
 public:
  // Failures for one user name within kWindow before it is refused.
  static constexpr int kMaxFailures = 5;
  // Failures from one client address within kWindow before it is refused:
  // high, so that many people behind one proxy or NAT are not locked out
  // by one of them, while one address guessing many names still is.
  static constexpr int kMaxClientFailures = 100;
  static constexpr std::chrono::minutes kWindow{10};

  // Whether a login for `user` from `client` may be tried now: false after
  // kMaxFailures failures for the user name, or kMaxClientFailures from
  // the client, within kWindow. User names compare case-folded (ASCII).
  bool Allowed(const std::string& client, const std::string& user,
               ConsoleClock::time_point now);
  void Failed(const std::string& client, const std::string& user,
              ConsoleClock::time_point now);
  // A success clears the user's failures (not the address's).
  void Succeeded(const std::string& user);

 private:
  struct Failures {
    int count = 0;
    ConsoleClock::time_point first;
  };
  bool Under(const std::string& key, int max, ConsoleClock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Note(const std::string& key, ConsoleClock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::map<std::string, Failures> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_
