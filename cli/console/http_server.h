// HttpServer: the console's HTTP(S) server, on libmicrohttpd (the one file
// that calls it; docs/console.md says why not cpp-httplib). Connections are
// served by a few event-loop threads (epoll), so that idle or slow clients
// hold a socket, not a thread: each address may keep at most
// `per_address_connections` open and all of them `connections`, and a
// connection without a byte for `idle_seconds` is closed. A request's
// `Gate` sees its head before any of its body is read and may answer it
// there; a body is read only up to `max_body_bytes` (411 without a
// Content-Length, 413 above the limit). Routes are paths with "{id}"
// segments, per method (a HEAD is routed as a GET).
//
// Slow handlers (a directory bind, a password hash, an upload's OCR) run
// on a WorkPool with their connection suspended, so that the event loops
// keep serving everyone else.
//
// Thread-safety: Route, SetGate, SetFinish and SetFailure before Bind;
// handlers run on the server's threads, concurrently (each must be
// thread-safe); Stop may be called from any thread.
#ifndef LEAKHOUND_CLI_CONSOLE_HTTP_SERVER_H_
#define LEAKHOUND_CLI_CONSOLE_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

class WorkPool;

struct HttpRequest {
  std::string method;       // "GET", "POST", ...; "GET" for a HEAD
  std::string path;         // decoded, without the query
  std::string target;       // the path and query as sent
  std::string remote_addr;  // the connection's peer address
  // In the order sent; names as sent (Header compares them ignoring case).
  std::vector<std::pair<std::string, std::string>> headers;
  std::map<std::string, std::string> query;  // the query's arguments
  // A POST's form fields (urlencoded or multipart), files apart.
  std::map<std::string, std::string> form;
  struct File {
    std::string filename;
    std::string content;
  };
  std::map<std::string, File> files;  // multipart parts with a file name
  std::vector<std::string> matches;   // the path, then the route's {id}s

  // The first header `name` (any case), or "" when absent.
  std::string Header(std::string_view name) const;
  // Every header `name` (any case), in order.
  std::vector<std::string> Headers(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
  // A query argument, or "".
  std::string Query(const std::string& name) const;
  // A form field (never the query), or a file part's content, or "".
  std::string Field(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  void SetHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
  void SetContent(std::string content, std::string type) {
    body = std::move(content);
    SetHeader("Content-Type", std::move(type));
  }
  void SetRedirect(std::string location, int code = 303) {
    status = code;
    SetHeader("Location", std::move(location));
  }
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;            // 0: any free port
  std::string tls_cert_file;  // both or neither: HTTPS (PEM)
  std::string tls_key_file;
  size_t max_body_bytes = size_t{64} << 20;
  unsigned threads = 4;  // event loops
  unsigned connections = 1024;
  unsigned per_address_connections = 32;
  unsigned idle_seconds = 15;
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;
  // Sees a request before its body is read (form, files empty): true after
  // filling the response answers it so, and the body is never read.
  using Gate = std::function<bool(const HttpRequest&, HttpResponse&)>;

  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `pattern` is a path whose segments are literal, "{id}" (one or more
  // digits) or "{ref}" (1 to 64 letters, digits and '-'), captured in
  // order into HttpRequest::matches (after the path).
  // With `pool`, the handler runs there, off the event loops: the
  // connection is suspended (MHD_suspend_connection) until it is done, and
  // a full pool answers 503 at once. `pool` must outlive Serve; Serve
  // stops it (its queued work runs) before the daemon.
  void Route(const std::string& method, const std::string& pattern,
             Handler handler, WorkPool* pool = nullptr);
  void SetGate(Gate gate) { gate_ = std::move(gate); }
  // Runs on every response before it is sent (common headers).
  void SetFinish(Handler finish) { finish_ = std::move(finish); }
  // Runs when a handler throws: fills a 500.
  void SetFailure(Handler failure) { failure_ = std::move(failure); }

  // Binds the listening socket; returns its port. InvalidArgument for a
  // TLS certificate or key that cannot be read, Unavailable when the
  // address is taken.
  absl::StatusOr<int> Bind();
  // Serves until Stop. REQUIRES: Bind succeeded.
  absl::Status Serve();
  void Stop();

  // The libmicrohttpd version (for `leakhound --version`).
  static std::string LibraryVersion();

 private:
  struct RouteEntry;
  struct Daemon;
  friend struct Daemon;

  const HttpServerOptions options_;
  std::vector<RouteEntry> routes_;
  Gate gate_;
  Handler finish_;
  Handler failure_;
  std::unique_ptr<Daemon> daemon_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_HTTP_SERVER_H_
