// The one file that calls libmicrohttpd.
#include "cli/gateway/metrics_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

MHD_Result Respond(MHD_Connection* connection, unsigned status,
                   const std::string& body, const char* type) {
  MHD_Response* response = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, "Content-Type", type);
  const MHD_Result queued = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result Handle(void* cls, MHD_Connection* connection, const char* url,
                  const char* method, const char* /*version*/,
                  const char* /*upload_data*/, size_t* upload_size,
                  void** /*state*/) {
  auto* server = static_cast<MetricsServer*>(cls);
  if (std::strcmp(method, "GET") != 0 || *upload_size != 0) {
    return Respond(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n",
                   "text/plain; charset=utf-8");
  }
  if (std::strcmp(url, "/metrics") != 0) {
    return Respond(connection, MHD_HTTP_NOT_FOUND, "see /metrics\n",
                   "text/plain; charset=utf-8");
  }
  return Respond(connection, MHD_HTTP_OK, server->page_(),
                 "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& address, Page page) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics wants HOST:PORT, not '", address, "'"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  sockaddr_storage storage{};
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    flags |= MHD_USE_IPv6;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics: '", host, "' is not an IP address"));
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->page_ = std::move(page);
  server->daemon_ = MHD_start_daemon(
      flags, static_cast<uint16_t>(port), nullptr, nullptr, &Handle,
      server.get(), MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&storage),
      MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
      MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve metrics on ", address, " (in use, or no permission)"));
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(
      static_cast<MHD_Daemon*>(server->daemon_), MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info != nullptr ? info->port : port;
  return server;
}

MetricsServer::~MetricsServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(static_cast<MHD_Daemon*>(daemon_));
}

}  // namespace leakhound
