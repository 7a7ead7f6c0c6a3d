// The one file that calls libmicrohttpd for the console.
#include "cli/console/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "cli/console/work_pool.h"
#include "cli/gateway/html_text.h"

namespace leakhound {

struct HttpServer::RouteEntry {
  std::string method;
  std::vector<std::string> segments;  // of the pattern, split at '/'
  Handler handler;
  WorkPool* pool = nullptr;  // null: on the event loop
};

namespace {

// Header names compare ignoring ASCII case.
bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return absl::ascii_tolower(static_cast<unsigned char>(x)) ==
                  absl::ascii_tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (SameName(key, name)) return value;
  }
  return "";
}

std::vector<std::string> HttpRequest::Headers(std::string_view name) const {
  std::vector<std::string> found;
  for (const auto& [key, value] : headers) {
    if (SameName(key, name)) found.push_back(value);
  }
  return found;
}

bool HttpRequest::HasHeader(std::string_view name) const {
  for (const auto& entry : headers) {
    if (SameName(entry.first, name)) return true;
  }
  return false;
}

std::string HttpRequest::Query(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? "" : it->second;
}

std::string HttpRequest::Field(const std::string& name) const {
  if (auto it = form.find(name); it != form.end()) return it->second;
  if (auto it = files.find(name); it != files.end()) return it->second.content;
  return "";
}

namespace {

// One request in flight: its head, then its body as it arrives.
struct Exchange {
  HttpRequest request;
  std::vector<std::pair<std::string, std::string>> arguments;  // in order
  MHD_PostProcessor* form_reader = nullptr;
  size_t body_bytes = 0;
  bool head_seen = false;
  bool too_large = false;
  // Set by a pool's worker before it resumes the connection (the resume's
  // lock orders the writes before the event loop's next read).
  bool ready = false;
  HttpResponse pending;

  ~Exchange() {
    if (form_reader != nullptr) MHD_destroy_post_processor(form_reader);
  }
};

MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key,
                         const char* value) {
  auto* exchange = static_cast<Exchange*>(cls);
  exchange->request.headers.emplace_back(key, value != nullptr ? value : "");
  return MHD_YES;
}

MHD_Result CollectArgument(void* cls, MHD_ValueKind, const char* key,
                           const char* value) {
  auto* exchange = static_cast<Exchange*>(cls);
  const std::string v = value != nullptr ? value : "";
  exchange->arguments.emplace_back(key, v);
  exchange->request.query.emplace(key, v);  // the first of a name wins
  return MHD_YES;
}

MHD_Result CollectField(void* cls, MHD_ValueKind, const char* key,
                        const char* filename, const char*, const char*,
                        const char* data, uint64_t, size_t size) {
  auto* exchange = static_cast<Exchange*>(cls);
  if (filename != nullptr) {
    HttpRequest::File& file = exchange->request.files[key];
    file.filename = filename;
    file.content.append(data, size);
  } else {
    exchange->request.form[key].append(data, size);
  }
  return MHD_YES;
}

// Whether `path` matches a pattern's `segments`: each the same literal, or
// "{id}" against one or more digits, or "{ref}" against 1 to 64 letters,
// digits and '-' (an incident's reference), which are appended to
// `captures`.
bool Matches(std::string_view path, const std::vector<std::string>& segments,
             std::vector<std::string>* captures) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() != segments.size()) return false;
  std::vector<std::string> found;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool id = segments[i] == "{id}";
    if (!id && segments[i] != "{ref}") {
      if (parts[i] != segments[i]) return false;
      continue;
    }
    const bool fits =
        !parts[i].empty() && (id || parts[i].size() <= 64) &&
        std::all_of(parts[i].begin(), parts[i].end(), [id](char c) {
          const auto u = static_cast<unsigned char>(c);
          return id ? absl::ascii_isdigit(u)
                    : absl::ascii_isalnum(u) || c == '-';
        });
    if (!fits) return false;
    found.emplace_back(parts[i]);
  }
  captures->insert(captures->end(), found.begin(), found.end());
  return true;
}

std::string PeerAddress(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = "";
  const sockaddr* addr = info->client_addr;
  if (addr->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr,
                text, sizeof text);
  } else if (addr->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6,
                &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, text,
                sizeof text);
  }
  return text;
}

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in || ss.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read the TLS ", what, " ", path));
  }
  return ss.str();
}

}  // namespace

struct HttpServer::Daemon {
  HttpServer* server = nullptr;
  int listen_fd = -1;
  MHD_Daemon* mhd = nullptr;
  std::string cert, key;  // PEM; they outlive the daemon
  absl::Mutex mu;
  bool stop ABSL_GUARDED_BY(mu) = false;

  ~Daemon() {
    if (mhd != nullptr) MHD_stop_daemon(mhd);
    if (listen_fd >= 0) ::close(listen_fd);
  }

  static MHD_Result Access(void* cls, MHD_Connection* connection,
                           const char* url, const char* method, const char*,
                           const char* upload_data, size_t* upload_data_size,
                           void** con_cls);
  static void Completed(void*, MHD_Connection*, void** con_cls,
                        MHD_RequestTerminationCode) {
    delete static_cast<Exchange*>(*con_cls);
    *con_cls = nullptr;
  }

  MHD_Result Send(MHD_Connection* connection, const HttpRequest& request,
                  HttpResponse& response);
  // The route of `request` (its matches set), or null with `response` a
  // 404 or 405.
  const RouteEntry* Find(HttpRequest& request, HttpResponse& response);
  // Runs `route`'s handler; a throw is a 500.
  void Run(const RouteEntry& route, const HttpRequest& request,
           HttpResponse& response);
  // The body is in: runs the handler here, or suspends the connection and
  // hands it to the route's pool.
  MHD_Result Answer(MHD_Connection* connection, Exchange* exchange);
};

MHD_Result HttpServer::Daemon::Send(MHD_Connection* connection,
                                    const HttpRequest& request,
                                    HttpResponse& response) {
  if (server->finish_) server->finish_(request, response);
  MHD_Response* reply = MHD_create_response_from_buffer(
      response.body.size(), response.body.data(), MHD_RESPMEM_MUST_COPY);
  if (reply == nullptr) return MHD_NO;
  for (const auto& [name, value] : response.headers) {
    MHD_add_response_header(reply, name.c_str(), value.c_str());
  }
  const MHD_Result queued = MHD_queue_response(
      connection, static_cast<unsigned>(response.status), reply);
  MHD_destroy_response(reply);
  return queued;
}

const HttpServer::RouteEntry* HttpServer::Daemon::Find(
    HttpRequest& request, HttpResponse& response) {
  bool path_known = false;
  for (const RouteEntry& route : server->routes_) {
    std::vector<std::string> captures;
    if (!Matches(request.path, route.segments, &captures)) continue;
    path_known = true;
    if (route.method != request.method) continue;
    request.matches = {request.path};
    request.matches.insert(request.matches.end(), captures.begin(),
                           captures.end());
    return &route;
  }
  response.status = path_known ? 405 : 404;
  response.SetContent(path_known ? "Method not allowed\n" : "Not found\n",
                      "text/plain; charset=utf-8");
  return nullptr;
}

void HttpServer::Daemon::Run(const RouteEntry& route,
                             const HttpRequest& request,
                             HttpResponse& response) {
  try {
    route.handler(request, response);
  } catch (...) {
    response = HttpResponse();
    response.status = 500;
    if (server->failure_) server->failure_(request, response);
  }
}

MHD_Result HttpServer::Daemon::Answer(MHD_Connection* connection,
                                      Exchange* exchange) {
  HttpResponse response;
  const RouteEntry* route = exchange->too_large
                                ? nullptr
                                : Find(exchange->request, response);
  if (exchange->too_large) {
    response.status = 413;
    response.SetContent("The request is larger than the limit.\n",
                        "text/plain; charset=utf-8");
  }
  if (route == nullptr || route->pool == nullptr) {
    if (route != nullptr) Run(*route, exchange->request, response);
    return Send(connection, exchange->request, response);
  }
  MHD_suspend_connection(connection);
  const bool queued = route->pool->TrySubmit([this, route, exchange,
                                              connection] {
    Run(*route, exchange->request, exchange->pending);
    exchange->ready = true;
    MHD_resume_connection(connection);
  });
  if (!queued) {
    exchange->pending.status = 503;
    exchange->pending.SetHeader("Retry-After", "5");
    exchange->pending.SetContent("Busy: try again in a few seconds.\n",
                                 "text/plain; charset=utf-8");
    exchange->ready = true;
    MHD_resume_connection(connection);
  }
  return MHD_YES;
}

MHD_Result HttpServer::Daemon::Access(void* cls, MHD_Connection* connection,
                                      const char* url, const char* method,
                                      const char*, const char* upload_data,
                                      size_t* upload_data_size,
                                      void** con_cls) {
  auto* daemon = static_cast<Daemon*>(cls);
  HttpServer* server = daemon->server;
  auto* exchange = static_cast<Exchange*>(*con_cls);
  if (exchange == nullptr) {  // the head: answered here, or read on
    exchange = new Exchange();
    *con_cls = exchange;
    HttpRequest& request = exchange->request;
    request.method = std::strcmp(method, "HEAD") == 0 ? "GET" : method;
    request.path = url;
    request.remote_addr = PeerAddress(connection);
    MHD_get_connection_values(connection, MHD_HEADER_KIND, CollectHeader,
                              exchange);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND,
                              CollectArgument, exchange);
    // The target as sent, rebuilt (libmicrohttpd gives it decoded): each
    // path segment and query name and value percent-encoded again.
    request.target = absl::StrJoin(
        absl::StrSplit(request.path, '/'), "/",
        [](std::string* out, absl::string_view segment) {
          out->append(Url(std::string_view(segment.data(), segment.size())));
        });
    for (size_t i = 0; i < exchange->arguments.size(); ++i) {
      absl::StrAppend(&request.target, i == 0 ? "?" : "&",
                      Url(exchange->arguments[i].first), "=",
                      Url(exchange->arguments[i].second));
    }
    HttpResponse response;
    if (server->gate_ && server->gate_(request, response)) {
      return daemon->Send(connection, request, response);
    }
    uint64_t length = 0;
    if (absl::SimpleAtoi(request.Header("Content-Length"), &length) &&
        length > server->options_.max_body_bytes) {
      response.status = 413;
      response.SetContent("The request is larger than the limit.\n",
                          "text/plain; charset=utf-8");
      return daemon->Send(connection, request, response);
    }
    exchange->form_reader = MHD_create_post_processor(connection, 64 * 1024,
                                                      CollectField, exchange);
    return MHD_YES;
  }
  if (*upload_data_size > 0) {  // more of the body
    exchange->body_bytes += *upload_data_size;
    if (exchange->body_bytes > server->options_.max_body_bytes) {
      exchange->too_large = true;
    } else if (exchange->form_reader != nullptr &&
               MHD_post_process(exchange->form_reader, upload_data,
                                *upload_data_size) != MHD_YES) {
      return MHD_NO;  // a malformed form: the connection is closed
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (exchange->ready) {  // back from a pool
    return daemon->Send(connection, exchange->request, exchange->pending);
  }
  return daemon->Answer(connection, exchange);
}

HttpServer::HttpServer(HttpServerOptions options)
    : options_(std::move(options)) {}

HttpServer::~HttpServer() = default;

void HttpServer::Route(const std::string& method, const std::string& pattern,
                       Handler handler, WorkPool* pool) {
  routes_.push_back(RouteEntry{method, absl::StrSplit(pattern, '/'),
                               std::move(handler), pool});
}

namespace {

// The PEM certificate and key of --tls-cert and --tls-key (both or
// neither); false in *tls for neither.
absl::Status ReadTls(const HttpServerOptions& o, std::string* cert,
                     std::string* key, bool* tls) {
  *tls = false;
  if (o.tls_cert_file.empty() && o.tls_key_file.empty()) {
    return absl::OkStatus();
  }
  if (o.tls_cert_file.empty() || o.tls_key_file.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  auto read_cert = ReadPem(o.tls_cert_file, "certificate");
  if (!read_cert.ok()) return read_cert.status();
  auto read_key = ReadPem(o.tls_key_file, "key");
  if (!read_key.ok()) return read_key.status();
  *cert = std::move(*read_cert);
  *key = std::move(*read_key);
  *tls = true;
  return absl::OkStatus();
}

// A socket listening on host:port (port 0: any free one): its descriptor
// in *fd (owned by the caller, also on error), the port it got in
// *bound_port and whether it is IPv6 in *ipv6.
absl::Status Listen(const std::string& host, int port, int* fd, int* bound_port,
                    bool* ipv6) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot resolve ", host));
  }
  const auto unavailable = absl::UnavailableError(absl::StrCat(
      "cannot listen on ", host, ":", port, " (in use, or no permission)"));
  *fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (*fd < 0) {
    ::freeaddrinfo(found);
    return unavailable;
  }
  const int on = 1;
  ::setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  *ipv6 = found->ai_family == AF_INET6;
  const bool bound = ::bind(*fd, found->ai_addr, found->ai_addrlen) == 0 &&
                     ::listen(*fd, 128) == 0;
  ::freeaddrinfo(found);
  if (!bound) return unavailable;
  sockaddr_storage local{};
  socklen_t local_size = sizeof local;
  if (::getsockname(*fd, reinterpret_cast<sockaddr*>(&local), &local_size) !=
      0) {
    return unavailable;
  }
  *bound_port = local.ss_family == AF_INET6
                    ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
                    : ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> HttpServer::Bind() {
  auto daemon = std::make_unique<Daemon>();
  daemon->server = this;
  unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
  bool tls = false;
  absl::Status s = ReadTls(options_, &daemon->cert, &daemon->key, &tls);
  if (!s.ok()) return s;
  if (tls) flags |= MHD_USE_TLS;
  int bound_port = 0;
  bool ipv6 = false;
  s = Listen(options_.host, options_.port, &daemon->listen_fd, &bound_port,
             &ipv6);
  if (!s.ok()) return s;
  if (ipv6) flags |= MHD_USE_IPv6;
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_LISTEN_SOCKET, daemon->listen_fd, nullptr},
      {MHD_OPTION_THREAD_POOL_SIZE, static_cast<intptr_t>(options_.threads),
       nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, static_cast<intptr_t>(options_.connections),
       nullptr},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT,
       static_cast<intptr_t>(options_.per_address_connections), nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT,
       static_cast<intptr_t>(options_.idle_seconds), nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED,
       reinterpret_cast<intptr_t>(&Daemon::Completed), nullptr},
  };
  if (tls) {
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, daemon->cert.data()});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, daemon->key.data()});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  daemon->mhd = MHD_start_daemon(flags, 0, nullptr, nullptr, &Daemon::Access,
                                 daemon.get(), MHD_OPTION_ARRAY, items.data(),
                                 MHD_OPTION_END);
  if (daemon->mhd == nullptr) {
    if (tls) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load the TLS certificate ", options_.tls_cert_file,
          " and key ", options_.tls_key_file));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options_.host, ":", options_.port,
                     " (in use, or no permission)"));
  }
  daemon->listen_fd = -1;  // the daemon's now: MHD_stop_daemon closes it
  daemon_ = std::move(daemon);
  return bound_port;
}

absl::Status HttpServer::Serve() {
  if (daemon_ == nullptr) return absl::FailedPreconditionError("not bound");
  {
    absl::MutexLock lock(&daemon_->mu);
    daemon_->mu.Await(absl::Condition(&daemon_->stop));
  }
  // The pools first: their work runs and resumes its connections, which
  // the daemon then answers or closes.
  for (const RouteEntry& route : routes_) {
    if (route.pool != nullptr) route.pool->Stop();
  }
  MHD_stop_daemon(daemon_->mhd);  // waits for the requests in flight
  daemon_->mhd = nullptr;
  return absl::OkStatus();
}

void HttpServer::Stop() {
  if (daemon_ == nullptr) return;
  {
    absl::MutexLock lock(&daemon_->mu);
    daemon_->stop = true;
  }
}

std::string HttpServer::LibraryVersion() { return MHD_get_version(); }

}  // namespace leakhound
