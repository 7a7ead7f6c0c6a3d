// SyslogClient: sends RFC 5424 syslog messages to one receiver over UDP
// (RFC 5426), TCP with octet counting (RFC 6587) or TLS (RFC 5425; OpenSSL,
// the server's certificate checked against a CA and its name). The one
// file that calls OpenSSL.
//
// A stream is opened on the first Send and kept. Before each message the
// stream is checked for the receiver having closed it (a syslog receiver
// never writes, so anything readable but TLS housekeeping means it went
// away), so a message is not written into a dead connection; a failed
// write closes the stream and the next Send opens a new one. Syslog has no
// acknowledgement: a message written is a message the kernel took.
//
// Thread-safety: not thread-safe; one client per sender thread.
#ifndef LEAKHOUND_CLI_SIEM_SYSLOG_CLIENT_H_
#define LEAKHOUND_CLI_SIEM_SYSLOG_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

// A message over UDP longer than this is refused (FailedPrecondition):
// IPv4's limit is 65,507 bytes of payload.
inline constexpr size_t kMaxUdpMessage = 65000;

struct SyslogMessage {
  int facility = 20;  // local4
  int severity = 6;   // informational
  int64_t time_ms = 0;
  std::string hostname;  // "": "-"
  std::string app_name = "leakhound";
  int64_t proc_id = 0;  // 0: "-"
  std::string msg_id;   // "": "-"
  std::string msg;
};

// OpenSSL's name and version ("OpenSSL 3.0.x ..."), for --version.
std::string OpenSslVersion();

// The message as RFC 5424 writes it: "<PRI>1 TIMESTAMP HOSTNAME APP-NAME
// PROCID MSGID - MSG", the time in UTC with milliseconds; header fields
// are printable US-ASCII of their maximum lengths (others become '_').
std::string FormatSyslog(const SyslogMessage& message);

class SyslogClient {
 public:
  struct Options {
    std::string url;      // udp://HOST:PORT, tcp://HOST:PORT, tls://HOST:PORT
    std::string ca_file;  // TLS: PEM CA file; "": the system's CAs
    double timeout_seconds = 10;  // to connect, and for a write
  };
  // InvalidArgument for a URL that is not one of those.
  static absl::StatusOr<std::unique_ptr<SyslogClient>> Create(
      const Options& options);
  ~SyslogClient();
  SyslogClient(const SyslogClient&) = delete;
  SyslogClient& operator=(const SyslogClient&) = delete;

  // Sends `framed` (FormatSyslog's): Unavailable when the receiver cannot
  // be reached or the stream broke (to be retried), FailedPrecondition for
  // a message too long for UDP, PermissionDenied when the receiver's
  // certificate is refused.
  absl::Status Send(std::string_view framed);
  // Closes the stream (the next Send opens one).
  void Close();

 private:
  struct Tls;
  SyslogClient(const Options& options, std::string scheme, std::string host,
               std::string port);
  absl::Status Connect();
  absl::Status StartTls();
  // Whether the open stream was closed by the receiver.
  bool PeerClosed();
  absl::Status WriteAll(std::string_view bytes);

  const Options options_;
  const std::string scheme_;  // "udp", "tcp", "tls"
  const std::string host_;
  const std::string port_;
  int fd_ = -1;
  std::unique_ptr<Tls> tls_;  // TLS: the context and the session
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_SIEM_SYSLOG_CLIENT_H_
