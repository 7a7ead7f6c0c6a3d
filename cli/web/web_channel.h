// WebChannel: the web channel's judgement of one HTTP request, the part of
// the ICAP service (cli/icap) that knows nothing of ICAP. A request's body
// is read as a person sent it (request_body.h), scanned through the
// gateway (cli/gateway), and the policy decides with channel "web": the
// destination host stands where mail has recipients (an upload to a host
// under `internal_domains` is not an external transfer) and the proxy's
// authenticated user where mail has a sender. A block is an HTTP answer
// of its own: an HTML page naming the incident and the rule's text, or a
// JSON error for a request that asked for JSON. A rule with an override
// coaches instead (docs/overrides.md): the block offers a form (or the
// JSON error a grant URL) whose justification, recorded by the console,
// lets that user retry that body to that host once.
// docs/web-gateway.md.
//
// Thread-safety: Judge may run concurrently; the channel is immutable
// after construction.
#ifndef LEAKHOUND_CLI_WEB_WEB_CHANNEL_H_
#define LEAKHOUND_CLI_WEB_WEB_CHANNEL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/gateway/gateway.h"
#include "cli/incidents/incident.h"
#include "cli/policy/policy.h"
#include "cli/web/request_body.h"

namespace leakhound {

// What the channel does when the policy does not speak: the flags of
// `leakhound milter`, for the web. A disposition more restrictive than
// kRemoveExternalRecipients blocks the request; the others let it pass
// (the web has no headers to tag, no queue to hold a request in).
struct WebPolicy {
  Disposition on_error = Disposition::kReject;
  Disposition on_oversize = Disposition::kReject;
  Disposition on_unreadable = Disposition::kLog;
  Disposition on_unread_limit = Disposition::kReject;
  // The block page's text when the deciding rule has none.
  std::string block_text = "This upload contains protected content";
  // Body bytes buffered per request; past it the request is oversized.
  uint64_t max_body_bytes = 26214400;
  // The console's address as users reach it: where a block page's
  // coaching form sends its justification (docs/overrides.md); "": no
  // coaching, every block is final.
  std::string console_url;
};

// Takes the grant of a blocked upload's override for `user`'s retry of
// the same body (`digest`, SHA-256 hex) to `host`
// (IncidentStore::TakeWebGrant); nullopt when none. Must be thread-safe.
using GrantTaker = std::function<absl::StatusOr<std::optional<WebGrant>>(
    const std::string& user, const std::string& host,
    const std::string& digest)>;

// One request as the proxy forwarded it.
struct WebRequest {
  std::string method;       // "POST"
  std::string url;          // absolute, as the client asked for it
  std::string user;         // X-Authenticated-User, decoded; "" when none
  std::string client_ip;    // X-Client-IP; "" when none
  std::string accept;       // the Accept header
  HttpRequestBody body;     // body.body empty when oversized
  bool oversized = false;   // the body passed max_body_bytes
  uint64_t body_bytes = 0;  // as received, oversized or not
};

// What to answer.
struct WebAnswer {
  bool block = false;
  // For a block: the HTTP status line's code, the Content-Type and the
  // page (HTML or JSON).
  int status = 403;
  std::string content_type;
  std::string page;
  std::string reference;  // the incident's ("" when none was recorded)
  std::string log_line;   // one line for the daemon log
};

// The grants of the incident store at `store` (a file or a URI), opened
// for each call: a lookup happens only for a block its rule lets its user
// override, and a connection held for the process's life would keep its
// caches past the service's memory trims.
GrantTaker StoreGrants(std::string store);

// Whether `d` stops a request: the web cannot tag, hold or redirect an
// upload, so what mail would hold or send elsewhere is refused (kRedirect
// and above); the rest let it pass.
bool BlocksRequest(Disposition d);

// `url` without its user information (user:password@) and fragment;
// "" for a URL that does not start with a scheme ("http:", "https:",
// "ftp:").
std::string UrlWithoutCredentials(std::string_view url);
// The host of an absolute URL, lower case, without port or brackets.
std::string UrlHost(std::string_view url);

class WebChannel {
 public:
  // REQUIRES: `gateway` outlives the channel; `record` may be empty (no
  // incidents); `grants` may be empty (no coaching: nothing to record a
  // grant in).
  WebChannel(const Gateway* gateway, WebPolicy policy, IncidentSink record,
             GrantTaker grants = {});

  // Judges `request`, records its incident (a leak, an error, unread
  // parts) and returns the answer. Never fails: what cannot be read is an
  // error verdict and goes through on_error (or the policy's rules).
  WebAnswer Judge(WebRequest request) const;

  const WebPolicy& policy() const { return policy_; }

 private:
  const Gateway* gateway_;
  const WebPolicy policy_;
  const IncidentSink record_;
  const GrantTaker grants_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_WEB_CHANNEL_H_
