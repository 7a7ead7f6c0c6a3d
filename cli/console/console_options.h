// ConsoleOptions: how `leakhound console` runs its web console
// (console_server.h), and where its log lines go.
//
// Thread-safety: plain values.
#ifndef LEAKHOUND_CLI_CONSOLE_CONSOLE_OPTIONS_H_
#define LEAKHOUND_CLI_CONSOLE_CONSOLE_OPTIONS_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

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
  // Senders' self-service override (docs/overrides.md): one-time links are
  // mailed when all three are set: the console's address as senders reach
  // it, sendmail's command, and the links' key file (created 0600 when
  // missing; "": STORE.link-key beside a SQLite store, none for a URI).
  std::string public_url;
  std::vector<std::string> sendmail;
  std::string link_key_file;
};

using ConsoleLog = std::function<void(const std::string& line)>;

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_OPTIONS_H_
