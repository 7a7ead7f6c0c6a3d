// SessionTable: the console's logged-in sessions, kept in memory (a
// restart logs everyone out), each with its CSRF token and an idle
// timeout; and LoginLimiter, which refuses logins after repeated failures
// from one client address or for one user name.
//
// Thread-safety: both are thread-safe (one mutex each). Times are passed
// in, so that tests need no sleeping.
#ifndef LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_
#define LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace leakhound {

using ConsoleClock = std::chrono::steady_clock;

struct ConsoleSession {
  std::string id;  // the cookie's value (RandomToken)
  std::string user;
  std::string role;  // "viewer", "reviewer" or "admin"
  std::string csrf;  // every state-changing request carries it
  ConsoleClock::time_point last_seen;
};

class SessionTable {
 public:
  explicit SessionTable(std::chrono::seconds idle_timeout)
      : idle_timeout_(idle_timeout) {}

  ConsoleSession Create(const std::string& user, const std::string& role,
                        ConsoleClock::time_point now);
  // The session `id`, its idle time renewed; nullopt when unknown or idle
  // longer than the timeout (it is then forgotten).
  std::optional<ConsoleSession> Find(const std::string& id,
                                     ConsoleClock::time_point now);
  void Erase(const std::string& id);
  // Logs `user` out everywhere (removed, or a new password).
  void EraseUser(const std::string& user);
  size_t size() const;

 private:
  const std::chrono::seconds idle_timeout_;
  mutable std::mutex mu_;
  std::map<std::string, ConsoleSession> sessions_;
};

class LoginLimiter {
 public:
  static constexpr int kMaxFailures = 5;
  static constexpr std::chrono::minutes kWindow{10};

  // Whether a login for `user` from `client` may be tried now: false after
  // kMaxFailures failures of either within kWindow.
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
  bool Under(const std::string& key, ConsoleClock::time_point now);
  void Note(const std::string& key, ConsoleClock::time_point now);

  std::mutex mu_;
  std::map<std::string, Failures> failures_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_SESSION_TABLE_H_
