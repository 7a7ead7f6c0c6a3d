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
#include "cli/formats/text_extractor.h"
#include "cli/incidents/fleet_status.h"
#include "cli/incidents/held_mail.h"

namespace leakhound {

struct ConsoleOptions {
  std::string host = "127.0.0.1";
  int port = 8080;       // 0: any free port (Bind returns it)
  std::string tls_cert;  // both or neither: HTTPS
  std::string tls_key;
  std::string index_dir;  // "": no documents page, no allow-listing
  std::string incidents_path;
  // When a node of the fleet is flagged on the Nodes page (docs/fleet.md).
  FleetThresholds fleet;
  HeldMailOptions held_mail;
  std::chrono::seconds idle_timeout{30 * 60};
  // The address of a reverse proxy (TLS in front): requests from it take
  // the client's address from X-Forwarded-For, and the session cookie is
  // Secure with HSTS sent. "": none.
  std::string trusted_proxy;
  // When set, a request whose Host header names another host is refused
  // (421): DNS rebinding cannot reach the console.
  std::string server_name;
  // A session ends this long after its login, however busy.
  std::chrono::seconds session_max_age{12 * 60 * 60};
  ExtractionLimits limits;  // for uploaded documents
  size_t max_upload_bytes = size_t{64} << 20;
  // The policy file shown, read-only, at /policy ("": none). When it has
  // a [directory] with roles, people the console does not know log in
  // against the directory with the role of their directory group.
  std::string policy_file;
};

using ConsoleLog = std::function<void(const std::string& line)>;

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
  struct Impl;
  explicit ConsoleServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The HTTP library's version (for `leakhound --version`).
std::string HttpLibraryVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_SERVER_H_
