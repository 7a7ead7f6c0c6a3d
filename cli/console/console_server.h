// ConsoleServer: the incident desk's web console (docs/console.md): its
// routes and pages, served by HttpServer (http_server.h), over the
// incident store and, optionally, the index. Logins are checked against
// the store's users (Argon2id hashes, secrets.h) and rate-limited;
// sessions live in memory with an idle timeout (session_table.h); every
// POST carries the session's CSRF token; cookies are HttpOnly and
// SameSite=Strict (and Secure under TLS); every review action is audited.
// Roles: viewer (read), reviewer (+ resolve, release, delete held mail,
// allow-list), admin (+ add and remove protected documents).
//
// Thread-safety: Serve blocks its thread while HttpServer's threads handle
// requests; Stop may be called from any thread.
#ifndef LEAKHOUND_CLI_CONSOLE_CONSOLE_SERVER_H_
#define LEAKHOUND_CLI_CONSOLE_CONSOLE_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/console/console_options.h"

namespace leakhound {

struct ConsoleServerImpl;  // console_impl.h

class ConsoleServer {
 public:
  // Opens the store (and the index, when given). `log` must be
  // thread-safe.
  static absl::StatusOr<std::unique_ptr<ConsoleServer>> Create(
      const ConsoleOptions& options, ConsoleLog log);
  ~ConsoleServer();

  // Binds the listening socket; returns the port. Unavailable when it is
  // taken.
  absl::StatusOr<int> Bind();
  // Serves until Stop. REQUIRES: Bind succeeded.
  absl::Status Serve();
  void Stop();

 private:
  explicit ConsoleServer(std::unique_ptr<ConsoleServerImpl> impl);
  std::unique_ptr<ConsoleServerImpl> impl_;
};

// The HTTP library's version (for `leakhound --version`).
std::string HttpLibraryVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_SERVER_H_
