// MetricsServer: serves one page, GET /metrics, in the Prometheus text
// format, from a callback, over plain HTTP on the address given (a
// loopback address in practice: metrics name no protected text, but they
// are not for everyone). The one file that calls libmicrohttpd.
//
// Thread-safety: the callback runs on libmicrohttpd's thread; Start and
// the destructor are called by the owner.
#ifndef LEAKHOUND_CLI_GATEWAY_METRICS_SERVER_H_
#define LEAKHOUND_CLI_GATEWAY_METRICS_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace leakhound {

class MetricsServer {
 public:
  using Page = std::function<std::string()>;

  // Listens on `address` ("127.0.0.1:9527", "[::1]:9527"; port 0: any
  // free port). InvalidArgument for a malformed address, Unavailable when
  // it cannot listen. `page` must be thread-safe.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& address, Page page);
  ~MetricsServer();  // stops serving

  int port() const { return port_; }

 private:
  MetricsServer() = default;
  void* daemon_ = nullptr;  // struct MHD_Daemon*, owned

 public:  // for the callback in metrics_server.cc
  Page page_;

 private:
  int port_ = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_METRICS_SERVER_H_
