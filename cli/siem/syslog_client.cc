// The one file that calls OpenSSL.
#include "cli/siem/syslog_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {

namespace {

// Printable US-ASCII (33..126) of at most `max` bytes; "" is "-".
std::string HeaderField(std::string_view value, size_t max) {
  if (value.empty()) return "-";
  std::string out(value.substr(0, max));
  for (char& c : out) {
    if (c < 33 || c > 126) c = '_';
  }
  return out;
}

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "unknown TLS error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return text;
}

// Splits "HOST:PORT" or "[V6]:PORT".
bool SplitHostPort(std::string_view text, std::string& host,
                   std::string& port) {
  size_t colon;
  if (text.starts_with("[")) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return false;
    }
    host = std::string(text.substr(1, close - 1));
    colon = close + 1;
  } else {
    colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = std::string(text.substr(0, colon));
  }
  port = std::string(text.substr(colon + 1));
  uint32_t number = 0;
  return !host.empty() && absl::SimpleAtoi(port, &number) && number > 0 &&
         number < 65536;
}

void SetTimeouts(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - std::floor(seconds)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// Connects `fd` to `addr` within `seconds`; errno-style error text or "".
std::string ConnectWithin(int fd, const addrinfo* addr, double seconds) {
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = connect(fd, addr->ai_addr, addr->ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = poll(&p, 1, static_cast<int>(seconds * 1000));
    if (rc == 0) return "connection timed out";
    int error = 0;
    socklen_t length = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return std::strerror(error);
  } else if (rc != 0) {
    return std::strerror(errno);
  }
  fcntl(fd, F_SETFL, flags);
  return "";
}

}  // namespace

struct SyslogClient::Tls {
  SSL_CTX* context = nullptr;
  SSL* session = nullptr;
  ~Tls() {
    SSL_free(session);
    SSL_CTX_free(context);
  }
};

std::string OpenSslVersion() {
  std::string v = OpenSSL_version(OPENSSL_VERSION);
  // "OpenSSL 3.0.17 1 Jul 2025": the name and number.
  const size_t second = v.find(' ', v.find(' ') + 1);
  return second == std::string::npos ? v : v.substr(0, second);
}

std::string FormatSyslog(const SyslogMessage& m) {
  const time_t seconds = static_cast<time_t>(m.time_ms / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  const int pri = m.facility * 8 + m.severity;
  return absl::StrFormat(
      "<%d>1 %04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s %s %s %s - %s", pri,
      utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
      utc.tm_sec, static_cast<int>(m.time_ms % 1000),
      HeaderField(m.hostname, 255), HeaderField(m.app_name, 48),
      m.proc_id != 0 ? absl::StrCat(m.proc_id) : "-", HeaderField(m.msg_id, 32),
      m.msg);
}

absl::StatusOr<std::unique_ptr<SyslogClient>> SyslogClient::Create(
    const Options& options) {
  const size_t sep = options.url.find("://");
  const std::string scheme =
      sep == std::string::npos ? "" : options.url.substr(0, sep);
  std::string host, port;
  if ((scheme != "udp" && scheme != "tcp" && scheme != "tls") ||
      !SplitHostPort(std::string_view(options.url).substr(sep + 3), host,
                     port)) {
    return absl::InvalidArgumentError(
        absl::StrCat("syslog url '", options.url,
                     "': expected udp://, tcp:// or tls://HOST:PORT"));
  }
  return std::unique_ptr<SyslogClient>(
      new SyslogClient(options, scheme, host, port));
}

SyslogClient::SyslogClient(const Options& options, std::string scheme,
                           std::string host, std::string port)
    : options_(options),
      scheme_(std::move(scheme)),
      host_(std::move(host)),
      port_(std::move(port)) {}

SyslogClient::~SyslogClient() { Close(); }

void SyslogClient::Close() {
  if (tls_ != nullptr && tls_->session != nullptr) {
    SSL_shutdown(tls_->session);  // close_notify; the answer is not awaited
  }
  tls_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::Status SyslogClient::Connect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = scheme_ == "udp" ? SOCK_DGRAM : SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &found);
      rc != 0) {
    return absl::UnavailableError(absl::StrCat(
        "syslog ", options_.url, ": cannot resolve: ", gai_strerror(rc)));
  }
  std::string error = "no address";
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    error = ConnectWithin(fd_, a, options_.timeout_seconds);
    if (error.empty()) break;
    ::close(fd_);
    fd_ = -1;
  }
  freeaddrinfo(found);
  if (fd_ < 0) {
    return absl::UnavailableError(
        absl::StrCat("syslog ", options_.url, ": ", error));
  }
  SetTimeouts(fd_, options_.timeout_seconds);
  if (scheme_ != "tls") return absl::OkStatus();
  absl::Status s = StartTls();
  if (!s.ok()) Close();
  return s;
}

absl::Status SyslogClient::StartTls() {
  tls_ = std::make_unique<Tls>();
  tls_->context = SSL_CTX_new(TLS_client_method());
  if (tls_->context == nullptr) {
    return absl::InternalError(absl::StrCat("syslog: ", OpenSslError()));
  }
  SSL_CTX_set_min_proto_version(tls_->context, TLS1_2_VERSION);
  SSL_CTX_set_verify(tls_->context, SSL_VERIFY_PEER, nullptr);
  const int loaded =
      options_.ca_file.empty()
          ? SSL_CTX_set_default_verify_paths(tls_->context)
          : SSL_CTX_load_verify_locations(tls_->context,
                                          options_.ca_file.c_str(), nullptr);
  if (loaded != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("syslog ", options_.url, ": cannot read the CA file '",
                     options_.ca_file, "': ", OpenSslError()));
  }
  tls_->session = SSL_new(tls_->context);
  SSL_set_fd(tls_->session, fd_);
  // SSL_set_tlsext_host_name, without its C cast.
  SSL_ctrl(tls_->session, SSL_CTRL_SET_TLSEXT_HOSTNAME,
           TLSEXT_NAMETYPE_host_name, const_cast<char*>(host_.c_str()));
  SSL_set1_host(tls_->session, host_.c_str());
  if (SSL_connect(tls_->session) == 1) return absl::OkStatus();
  const long verify = SSL_get_verify_result(tls_->session);
  if (verify != X509_V_OK) {
    return absl::PermissionDeniedError(absl::StrCat(
        "syslog ", options_.url, ": the receiver's certificate is refused: ",
        X509_verify_cert_error_string(verify)));
  }
  return absl::UnavailableError(absl::StrCat(
      "syslog ", options_.url, ": TLS handshake failed: ", OpenSslError()));
}

bool SyslogClient::PeerClosed() {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR)) return true;
  const int flags = fcntl(fd_, F_GETFL);
  fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  bool closed = false;
  char buffer[4096];
  if (tls_ != nullptr) {
    // TLS 1.3 session tickets arrive after the handshake: read and drop.
    for (;;) {
      const int n = SSL_read(tls_->session, buffer, sizeof buffer);
      if (n > 0) continue;
      const int error = SSL_get_error(tls_->session, n);
      closed = error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE;
      ERR_clear_error();
      break;
    }
  } else {
    ssize_t n;
    while ((n = recv(fd_, buffer, sizeof buffer, 0)) > 0) {
    }
    closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
  }
  fcntl(fd_, F_SETFL, flags);
  return closed;
}

absl::Status SyslogClient::WriteAll(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n;
    if (tls_ != nullptr) {
      n = SSL_write(tls_->session, bytes.data(),
                    static_cast<int>(bytes.size()));
      if (n <= 0) {
        return absl::UnavailableError(absl::StrCat(
            "syslog ", options_.url, ": write failed: ", OpenSslError()));
      }
    } else {
      n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return absl::UnavailableError(absl::StrCat(
            "syslog ", options_.url, ": write failed: ", std::strerror(errno)));
      }
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status SyslogClient::Send(std::string_view framed) {
  if (scheme_ == "udp" && framed.size() > kMaxUdpMessage) {
    return absl::FailedPreconditionError(
        absl::StrCat("syslog ", options_.url, ": a message of ", framed.size(),
                     " bytes is too long for UDP; use tcp:// or tls://"));
  }
  if (fd_ >= 0 && scheme_ != "udp" && PeerClosed()) Close();
  if (fd_ < 0) {
    if (absl::Status s = Connect(); !s.ok()) return s;
  }
  absl::Status s;
  if (scheme_ == "udp") {
    // A connected datagram socket: an ICMP refusal shows at the next send.
    if (send(fd_, framed.data(), framed.size(), MSG_NOSIGNAL) < 0) {
      s = absl::UnavailableError(absl::StrCat(
          "syslog ", options_.url, ": send failed: ", std::strerror(errno)));
    }
  } else {
    s = WriteAll(absl::StrCat(framed.size(), " ",
                              absl::string_view(framed.data(), framed.size())));
  }
  if (!s.ok()) Close();
  return s;
}

}  // namespace leakhound
