// srv_leakhound: the web channel as a c-icap service module (REQMOD), the
// one file that calls c-icap (docs/web-gateway.md). c-icap loads it into
// its master process; every child process it forks opens its own gateway
// (index, policy, incidents: cli/gateway) when it starts
// (CI_CMD_CHILD_START), reloads it on a timer thread, and closes it when
// it stops. One child with many threads (StartServers 1, MaxServers 1)
// keeps one index in memory; docs/web-gateway.md has why.
//
// A request's body is buffered whole before anything is sent on: a
// preview that holds all of it is judged at once (204 when it passes), a
// longer body when its last byte arrives. A pass is a 204 when the proxy
// allows one, else the body sent back unchanged; a block replaces the
// request with an HTTP answer (web_channel.h).
//
// Thread-safety: c-icap calls the request handlers from its child's
// threads, one request per thread at a time; the gateway and the channel
// are shared and thread-safe.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/gateway/daemon_log.h"
#include "cli/gateway/gateway.h"
#include "cli/web/request_slots.h"
#include "cli/web/web_channel.h"

extern "C" {
#include <c_icap/c-icap.h>
#include <c_icap/cfg_param.h>
#include <c_icap/commands.h>
#include <c_icap/debug.h>
#include <c_icap/header.h>
#include <c_icap/request.h>
#include <c_icap/service.h>
#include <c_icap/simple_api.h>
}

namespace leakhound {
namespace {

// The service's directives in c-icap.conf ("leakhound.Index DIR"), as
// c-icap's table fills them (strings are c-icap's, kept for the process).
struct Settings {
  char* index = nullptr;
  char* policy = nullptr;
  char* incidents = nullptr;  // "off": none; unset: INDEX.incidents
  char* incident_spool_dir = nullptr;  // "off": none; unset: beside INDEX
  char* node_name = nullptr;           // unset: the host's name
  char* on_leak = nullptr;    // block (default) or allow, without a policy
  char* on_error = nullptr;
  char* on_oversize = nullptr;
  char* on_unreadable = nullptr;
  char* on_unread_limit = nullptr;
  char* block_text = nullptr;
  char* console_url = nullptr;  // coaching forms post there; unset: none
  int reload_seconds = 10;
  int desk_seconds = 10;          // 0: never report to the desk
  long max_body_size = 26214400;  // NOLINT(runtime/int): c-icap's type
  int preview = 4096;
  int syslog = 0;
  int store_snippets = 1;
  // Requests one proxy user, and one client address, may have in the
  // service at once (request_slots.h); 0: no cap. Below ThreadsPerChild.
  int max_per_user = 4;
  int max_per_client = 8;
  // A request's body must be in within this wall-clock time from its
  // start, or the request is an error: c-icap's Timeout ends a connection
  // that sends nothing, this one a client that trickles.
  int body_seconds = 30;
};
Settings g_settings;

// A child's open gateway and channel, and its reload thread.
struct Child {
  std::unique_ptr<DaemonLog> log;
  std::unique_ptr<Gateway> gateway;
  std::unique_ptr<WebChannel> channel;
  std::unique_ptr<RequestSlots> slots;
  std::atomic<int> active{0};  // requests in progress
  std::atomic<int64_t> last_trim_ms{0};
  std::thread reloader;
  std::mutex mu;
  std::condition_variable stop_cv;
  bool stopping = false;
};
Child* g_child = nullptr;  // set in each child by OnChildStart

// One request's state (c-icap's "service data").
struct Request {
  WebRequest web;
  bool judged = false;
  WebAnswer answer;
  // What is sent back once judged: the body unchanged or the block page,
  // from `sent` on.
  std::string out;
  size_t sent = 0;
  bool keep_oversized = false;  // an oversized body is still sent on
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  // Its user's and address's share (request_slots.h); not ok: refused.
  absl::StatusOr<RequestSlots::Slot> slot =
      absl::UnavailableError("no service");
};

const char* Text(const char* value, const char* otherwise) {
  return value != nullptr ? value : otherwise;
}

// "block" or "allow" to a disposition; nullopt otherwise.
std::optional<Disposition> ActionNamed(const char* name, Disposition dflt) {
  if (name == nullptr) return dflt;
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "block") return Disposition::kReject;
  if (n == "allow") return Disposition::kLog;
  return std::nullopt;
}

// The channel's settings; InvalidArgument naming the directive.
absl::StatusOr<WebPolicy> ReadPolicy(Disposition* on_leak) {
  WebPolicy p;
  struct Field {
    const char* directive;
    const char* value;
    Disposition* into;
  };
  Disposition leak = Disposition::kReject;
  for (const Field& f :
       {Field{"OnLeak", g_settings.on_leak, &leak},
        Field{"OnError", g_settings.on_error, &p.on_error},
        Field{"OnOversize", g_settings.on_oversize, &p.on_oversize},
        Field{"OnUnreadable", g_settings.on_unreadable, &p.on_unreadable},
        Field{"OnUnreadLimit", g_settings.on_unread_limit,
              &p.on_unread_limit}}) {
    auto d = ActionNamed(f.value, *f.into);
    if (!d) {
      return absl::InvalidArgumentError(
          absl::StrCat("leakhound.", f.directive, ": '", f.value,
                       "' is not block or allow"));
    }
    *f.into = *d;
  }
  if (g_settings.block_text != nullptr) p.block_text = g_settings.block_text;
  p.console_url = Text(g_settings.console_url, "");
  while (!p.console_url.empty() && p.console_url.back() == '/') {
    p.console_url.pop_back();
  }
  if (g_settings.max_body_size < 1024) {
    return absl::InvalidArgumentError(
        "leakhound.MaxBodySize: at least 1024 bytes");
  }
  p.max_body_bytes = static_cast<uint64_t>(g_settings.max_body_size);
  *on_leak = leak;
  return p;
}

GatewayOptions ReadGatewayOptions(Disposition on_leak, const WebPolicy& p) {
  GatewayOptions o;
  o.index_dir = Text(g_settings.index, "");
  const std::string incidents =
      Text(g_settings.incidents, (o.index_dir + ".incidents").c_str());
  if (incidents != "off") o.incidents = incidents;
  o.incident_spool_dir = Text(g_settings.incident_spool_dir, "");
  o.store_snippets = g_settings.store_snippets != 0;
  o.policy_file = Text(g_settings.policy, "");
  o.node_name = Text(g_settings.node_name, "");
  o.node_role = "icap";
  o.desk_seconds = g_settings.desk_seconds;
  o.builtin_policy = BuiltinPolicy(on_leak, p.block_text);
  o.limits.max_input_bytes = static_cast<size_t>(p.max_body_bytes);
  return o;
}

void WriteToCicapLog(const std::string& line) {
  ci_debug_printf(1, "%s\n", line.c_str());
}

// Reloads every reload_seconds until the child stops.
void ReloadLoop(Child* child) {
  const auto period = std::chrono::seconds(g_settings.reload_seconds);
  std::unique_lock<std::mutex> lock(child->mu);
  while (!child->stop_cv.wait_for(lock, period,
                                  [child] { return child->stopping; })) {
    lock.unlock();
    child->gateway->Reload("timer");
    lock.lock();
  }
}

// CI_CMD_CHILD_START: opens this child's gateway. A child that cannot
// (no index, a broken policy) logs why and judges nothing: every request
// with a body gets leakhound.OnError's answer (a 500 for c-icap, so
// Squid's bypass setting decides).
void OnChildStart(const char*, int, void*) {
  auto child = std::make_unique<Child>();
  child->log = g_settings.syslog != 0
                   ? std::make_unique<DaemonLog>("leakhound web", true)
                   : DaemonLog::WritingTo("leakhound web", WriteToCicapLog);
  Disposition on_leak = Disposition::kReject;
  auto policy = ReadPolicy(&on_leak);
  if (!policy.ok()) {
    child->log->Write(
        absl::StrCat("cannot start: ", policy.status().message()));
    return;
  }
  auto gateway =
      Gateway::Open(ReadGatewayOptions(on_leak, *policy), child->log.get());
  if (!gateway.ok()) {
    child->log->Write(
        absl::StrCat("cannot start: ", gateway.status().message()));
    return;
  }
  child->gateway = std::move(*gateway);
  child->gateway->StartIncidents();
  child->gateway->LogPolicy();
  child->slots = std::make_unique<RequestSlots>(g_settings.max_per_user,
                                                g_settings.max_per_client);
  // Fewer malloc arenas than threads: a burst's memory is returned to a
  // few arenas that malloc_trim can give back (ReleaseRequestData).
  mallopt(M_ARENA_MAX, 2);
  const std::optional<std::string>& store = child->gateway->options().incidents;
  child->channel = std::make_unique<WebChannel>(
      child->gateway.get(), *policy, child->gateway->Recorder(),
      store ? StoreGrants(*store) : GrantTaker());
  const IndexHolder::Snapshot serving = child->gateway->Current();
  child->log->Write(absl::StrCat(
      "serving index ", g_settings.index, " generation ", serving.generation,
      ", ", serving.index->matrix().documents(), " documents"));
  if (g_settings.reload_seconds > 0) {
    child->reloader = std::thread(ReloadLoop, child.get());
  }
  g_child = child.release();
}

// CI_CMD_CHILD_STOP: stops the reload thread and the gateway (the
// incident writer drains).
void OnChildStop(const char*, int, void*) {
  Child* child = g_child;
  if (child == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(child->mu);
    child->stopping = true;
  }
  child->stop_cv.notify_all();
  if (child->reloader.joinable()) child->reloader.join();
  if (child->gateway != nullptr) child->gateway->Stop();
}

int InitService(ci_service_xdata_t* xdata, struct ci_server_conf*) {
  ci_service_set_preview(xdata, 4096);
  ci_service_enable_204(xdata);
  ci_service_set_transfer_preview(xdata, "*");
  ci_service_set_xopts(xdata, CI_XCLIENTIP | CI_XAUTHENTICATEDUSER);
  // Once per process: c-icap calls this again when it re-reads its
  // configuration, and the commands would then run twice per child.
  static bool registered = false;
  if (!registered) {
    ci_command_register_action("leakhound_child_start", CI_CMD_CHILD_START,
                               nullptr, OnChildStart);
    ci_command_register_action("leakhound_child_stop", CI_CMD_CHILD_STOP,
                               nullptr, OnChildStop);
    registered = true;
  }
  return CI_OK;
}

// After the configuration is read: the preview size, the connections the
// proxy may open (OPTIONS' Max-Connections: a c-icap thread serves one
// connection for as long as the proxy keeps it open, so a proxy holding
// more connections than there are threads would leave requests queued
// behind idle ones), and a refusal to start without an index (the one
// directive without a default) or with a directive's value wrong.
int PostInitService(ci_service_xdata_t* xdata, struct ci_server_conf* conf) {
  ci_service_set_preview(xdata, g_settings.preview);
  ci_service_set_max_connections(
      xdata, std::max(1, conf->THREADS_PER_CHILD * conf->MAX_SERVERS));
  if (g_settings.index == nullptr) {
    ci_debug_printf(1, "leakhound web: leakhound.Index is not set\n");
    return CI_ERROR;
  }
  // A directive's mistake is told once, here, not by every child.
  Disposition on_leak = Disposition::kReject;
  if (auto policy = ReadPolicy(&on_leak); !policy.ok()) {
    ci_debug_printf(1, "leakhound web: %s\n",
                    std::string(policy.status().message()).c_str());
    return CI_ERROR;
  }
  return CI_OK;
}

void CloseService() {}

std::string IcapHeader(ci_request_t* req, const char* name) {
  const char* v = ci_headers_value(req->request_header, name);
  return v != nullptr ? v : "";
}

std::string HttpHeader(ci_request_t* req, const char* name) {
  const char* v = ci_http_request_get_header(req, name);
  return v != nullptr ? v : "";
}

// The method and absolute URL of the request line ("POST http://h/p
// HTTP/1.1"); an origin-form target is made absolute with the Host header.
void ReadRequestLine(ci_request_t* req, WebRequest* web) {
  const std::string line = Text(ci_http_request(req), "");
  const size_t space = line.find(' ');
  web->method = line.substr(0, space);
  if (space == std::string::npos) return;
  const size_t end = line.find(' ', space + 1);
  std::string target =
      line.substr(space + 1, end == std::string::npos ? std::string::npos
                                                      : end - space - 1);
  if (target.starts_with('/')) {
    target = absl::StrCat("http://", HttpHeader(req, "Host"), target);
  }
  web->url = std::move(target);
}

void* InitRequestData(ci_request_t* req) {
  auto* r = new Request;
  ReadRequestLine(req, &r->web);
  r->web.user = IcapHeader(req, "X-Authenticated-User");
  r->web.client_ip = IcapHeader(req, "X-Client-IP");
  r->web.accept = HttpHeader(req, "Accept");
  r->web.body.content_type = HttpHeader(req, "Content-Type");
  r->web.body.content_encoding = HttpHeader(req, "Content-Encoding");
  const std::string url = UrlWithoutCredentials(r->web.url);
  const size_t path = url.find('/', url.find("://") + 3);
  r->web.body.url_path = path == std::string::npos ? "/" : url.substr(path);
  if (const size_t query = r->web.body.url_path.find('?');
      query != std::string::npos) {
    r->web.body.url_path.resize(query);
  }
  r->keep_oversized = g_child != nullptr && g_child->channel != nullptr &&
                      !BlocksRequest(g_child->channel->policy().on_oversize);
  if (g_child != nullptr && g_child->slots != nullptr) {
    r->slot = g_child->slots->TryAcquire(r->web.user, r->web.client_ip);
    if (!r->slot.ok()) {
      g_child->log->Write(absl::StrCat("refused ", r->web.url, ": ",
                                       r->slot.status().message()));
    }
    g_child->active.fetch_add(1);
  }
  return r;
}

// After the last request of a burst, the memory it took is given back to
// the system (at most every 5 s): glibc keeps freed memory in its arenas,
// and a child went from 141 to 632 MB over a burst of hostile requests
// and stayed there.
void ReleaseRequestData(void* data) {
  delete static_cast<Request*>(data);
  if (g_child == nullptr || g_child->slots == nullptr) return;
  if (g_child->active.fetch_sub(1) != 1) return;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now().time_since_epoch())
                             .count();
  int64_t last = g_child->last_trim_ms.load();
  if (now_ms - last >= 5000 &&
      g_child->last_trim_ms.compare_exchange_strong(last, now_ms)) {
    malloc_trim(0);
  }
}

// Whether `r` may go on: refused past its share, or past the body's
// deadline (logged once). Such a request is an ICAP error.
bool MayContinue(Request* r) {
  if (!r->slot.ok()) return false;
  if (std::chrono::steady_clock::now() - r->start <=
      std::chrono::seconds(g_settings.body_seconds)) {
    return true;
  }
  if (!r->judged && g_child != nullptr) {
    g_child->log->Write(absl::StrCat("refused ", r->web.url,
                                     ": its body took longer than ",
                                     g_settings.body_seconds,
                                     " s (leakhound.BodySeconds)"));
  }
  r->slot = absl::DeadlineExceededError("past the body's deadline");
  return false;
}

void Append(Request* r, const char* bytes, size_t n) {
  r->web.body_bytes += n;
  if (r->web.oversized && !r->keep_oversized) return;
  const uint64_t max = g_child != nullptr && g_child->channel != nullptr
                           ? g_child->channel->policy().max_body_bytes
                           : UINT64_MAX;
  if (!r->web.oversized && r->web.body_bytes > max) {
    r->web.oversized = true;
    if (!r->keep_oversized) {
      r->web.body.body.clear();
      r->web.body.body.shrink_to_fit();
      return;
    }
  }
  r->web.body.body.append(bytes, n);
}

// Judges the buffered request. Without a gateway (the child could not
// open one) the request is an error: c-icap answers 500 and the proxy's
// bypass setting decides.
// `keep_body`: a pass sends the body back (the proxy allowed no 204), so
// the channel is given a copy.
bool Judge(Request* r, bool keep_body) {
  if (g_child == nullptr || g_child->channel == nullptr) return false;
  std::string body;
  if (keep_body) body = r->web.body.body;
  r->answer = g_child->channel->Judge(std::move(r->web));
  r->judged = true;
  g_child->log->Write(r->answer.log_line);
  r->out = r->answer.block ? std::move(r->answer.page) : std::move(body);
  return true;
}

const char* ReasonPhrase(int status) {
  return status == 503 ? "Service Unavailable" : "Forbidden";
}

// Replaces the request with the block answer, whose page is `page`.
void MakeBlockResponse(ci_request_t* req, const WebAnswer& a,
                       const std::string& page) {
  ci_http_response_create(req, 1, 1);
  const std::string headers[] = {
      absl::StrCat("HTTP/1.1 ", a.status, " ", ReasonPhrase(a.status)),
      "Server: leakhound",
      absl::StrCat("Content-Type: ", a.content_type),
      absl::StrCat("Content-Length: ", page.size()),
      "Cache-Control: no-store",
      absl::StrCat("X-Leakhound-Incident: ", a.reference),
      "Connection: close",
  };
  for (const std::string& h : headers)
    ci_http_response_add_header(req, h.c_str());
}

int CheckPreview(char* preview, int preview_len, ci_request_t* req) {
  auto* r = static_cast<Request*>(ci_service_data(req));
  if (!ci_req_hasbody(req)) return CI_MOD_ALLOW204;
  if (!MayContinue(r)) return CI_ERROR;
  if (preview_len > 0) Append(r, preview, static_cast<size_t>(preview_len));
  if (!ci_req_hasalldata(req)) return CI_MOD_CONTINUE;
  // The whole body was in the preview: judged now, a 204 if it passes
  // (always allowed after a preview).
  if (!Judge(r, /*keep_body=*/false)) return CI_ERROR;
  if (!r->answer.block) return CI_MOD_ALLOW204;
  return CI_MOD_CONTINUE;
}

int EndOfData(ci_request_t* req) {
  auto* r = static_cast<Request*>(ci_service_data(req));
  if (!r->judged && !Judge(r, !ci_req_allow204(req))) return CI_ERROR;
  if (r->answer.block) {
    MakeBlockResponse(req, r->answer, r->out);
  } else if (ci_req_allow204(req)) {
    return CI_MOD_ALLOW204;
  }
  ci_req_unlock_data(req);
  return CI_MOD_DONE;
}

// The body in (buffered, nothing sent on before the verdict) and, once
// judged, the body or the block page out.
int ServiceIo(char* wbuf, int* wlen, char* rbuf, int* rlen, int /*iseof*/,
              ci_request_t* req) {
  auto* r = static_cast<Request*>(ci_service_data(req));
  if (!r->judged && !MayContinue(r)) return CI_ERROR;
  if (rbuf != nullptr && rlen != nullptr && *rlen > 0) {
    Append(r, rbuf, static_cast<size_t>(*rlen));
  }
  if (wbuf != nullptr && wlen != nullptr) {
    if (!r->judged) {
      *wlen = 0;
    } else if (r->sent == r->out.size()) {
      *wlen = CI_EOF;
    } else {
      const size_t n = std::min(r->out.size() - r->sent,
                                static_cast<size_t>(std::max(*wlen, 0)));
      std::memcpy(wbuf, r->out.data() + r->sent, n);
      r->sent += n;
      *wlen = static_cast<int>(n);
    }
  }
  return CI_OK;
}

struct ci_conf_entry g_conf_table[] = {
    {"Index", &g_settings.index, ci_cfg_set_str,
     "the index directory (required)"},
    {"Policy", &g_settings.policy, ci_cfg_set_str,
     "the policy file (docs/policy.md)"},
    {"Incidents", &g_settings.incidents, ci_cfg_set_str,
     "the incident store, or off (default INDEX.incidents)"},
    {"NodeName", &g_settings.node_name, ci_cfg_set_str,
     "this service's name in the fleet (default: the host name)"},
    {"IncidentSpoolDir", &g_settings.incident_spool_dir, ci_cfg_set_str,
     "incidents the store cannot take yet, or off (default "
     "INDEX.incident-spool)"},
    {"OnLeak", &g_settings.on_leak, ci_cfg_set_str,
     "block (default) or allow, without a policy file"},
    {"OnError", &g_settings.on_error, ci_cfg_set_str, "block (default), allow"},
    {"OnOversize", &g_settings.on_oversize, ci_cfg_set_str,
     "block (default), allow"},
    {"OnUnreadable", &g_settings.on_unreadable, ci_cfg_set_str,
     "allow (default), block"},
    {"OnUnreadLimit", &g_settings.on_unread_limit, ci_cfg_set_str,
     "block (default), allow"},
    {"BlockText", &g_settings.block_text, ci_cfg_set_str,
     "the block page's text without a rule's own"},
    {"ConsoleUrl", &g_settings.console_url, ci_cfg_set_str,
     "the console's address as users reach it: a rule's override coaches "
     "there (docs/overrides.md)"},
    {"DeskSeconds", &g_settings.desk_seconds, ci_cfg_set_int,
     "report to the fleet's desk this often (default 10; 0: never)"},
    {"ReloadSeconds", &g_settings.reload_seconds, ci_cfg_set_int,
     "catch up with the index this often (default 10; 0: never)"},
    {"MaxBodySize", &g_settings.max_body_size, ci_cfg_size_long,
     "request body bytes judged at most (default 25M)"},
    {"PreviewSize", &g_settings.preview, ci_cfg_set_int,
     "the preview asked of the proxy (default 4096)"},
    {"Syslog", &g_settings.syslog, ci_cfg_onoff,
     "log to syslog (mail facility), not c-icap's log"},
    {"MaxPerUser", &g_settings.max_per_user, ci_cfg_set_int,
     "requests of one proxy user at once (default 4; 0: no cap)"},
    {"MaxPerClient", &g_settings.max_per_client, ci_cfg_set_int,
     "requests of one client address at once (default 8; 0: no cap)"},
    {"BodySeconds", &g_settings.body_seconds, ci_cfg_set_int,
     "seconds for a request's body to arrive (default 30)"},
    {"StoreSnippets", &g_settings.store_snippets, ci_cfg_onoff,
     "keep the outbound text around each passage (default on)"},
    {nullptr, nullptr, nullptr, nullptr}};

}  // namespace
}  // namespace leakhound

extern "C" {
CI_DECLARE_MOD_DATA ci_service_module_t service = {
    "leakhound",
    "leakhound: protected content in uploads (REQMOD)",
    ICAP_REQMOD,
    leakhound::InitService,
    leakhound::PostInitService,
    leakhound::CloseService,
    leakhound::InitRequestData,
    leakhound::ReleaseRequestData,
    leakhound::CheckPreview,
    leakhound::EndOfData,
    leakhound::ServiceIo,
    leakhound::g_conf_table,
    nullptr};
}
