// WebhookClient: POSTs an event's JSON to one HTTPS endpoint, signed so
// that the receiver can check where it came from and that it is fresh
// (docs/siem.md, "Webhooks"). The one file that calls libcurl.
//
// The signature header, PERSISTED (receivers check it):
//   X-Leakhound-Signature: t=UNIX_SECONDS,v1=HEX
// where HEX is HMAC-SHA-256(key, "UNIX_SECONDS." + body) in lowercase hex
// (libsodium's crypto_auth_hmacsha256). The event's id travels in the
// body and in X-Leakhound-Event-Id, for a receiver to drop repeats.
//
// Thread-safety: not thread-safe; one client per sender thread (it keeps
// its connection alive between posts).
#ifndef LEAKHOUND_CLI_SIEM_WEBHOOK_CLIENT_H_
#define LEAKHOUND_CLI_SIEM_WEBHOOK_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

// libcurl's version ("7.88.1"), for --version.
std::string CurlVersion();

// "t=TIMESTAMP,v1=HEX" for `body` sent at `timestamp` (Unix seconds).
std::string WebhookSignature(std::string_view key, int64_t timestamp,
                             std::string_view body);

// The key in `path`: its first line, at least 16 bytes. PermissionDenied
// when others may read the file, NotFound when it cannot be read,
// InvalidArgument when it is shorter.
absl::StatusOr<std::string> ReadWebhookKey(const std::string& path);

class WebhookClient {
 public:
  struct Options {
    std::string url;              // https://...
    std::string ca_file;          // PEM CA file; "": the system's CAs
    double timeout_seconds = 10;  // the whole request, connection included
    std::string key;              // the HMAC key
  };
  // InvalidArgument for a URL that is not https://.
  static absl::StatusOr<std::unique_ptr<WebhookClient>> Create(
      const Options& options);
  ~WebhookClient();
  WebhookClient(const WebhookClient&) = delete;
  WebhookClient& operator=(const WebhookClient&) = delete;

  // POSTs `body` (JSON) signed at `now_seconds`. OK on a 2xx answer;
  // Unavailable (to be retried) when the endpoint cannot be reached or
  // times out, or answers 408, 429 or 5xx; FailedPrecondition (for good)
  // on any other answer, naming its status.
  absl::Status Post(std::string_view body, std::string_view event_id,
                    int64_t now_seconds);

 private:
  explicit WebhookClient(const Options& options);
  const Options options_;
  void* curl_ = nullptr;  // CURL*, owned
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_SIEM_WEBHOOK_CLIENT_H_
