// ConsoleServerImpl: the console's state and its handlers, shared by
// the files that define them (console_server.cc: the pages and routes;
// console_logins.cc: logins and their set-up). Private to cli/console.
//
// Thread-safety: as ConsoleServer (console_server.h); the store is used
// under store_mu.
#ifndef LEAKHOUND_CLI_CONSOLE_CONSOLE_IMPL_H_
#define LEAKHOUND_CLI_CONSOLE_CONSOLE_IMPL_H_

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "cli/console/console_http.h"
#include "cli/console/console_options.h"
#include "cli/console/console_pages.h"
#include "cli/console/http_server.h"
#include "cli/console/override_desk.h"
#include "cli/console/secrets.h"
#include "cli/console/session_table.h"
#include "cli/console/work_pool.h"
#include "cli/gateway/directory.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/index_holder.h"
#include "cli/incidents/held_mail.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

inline constexpr char kSessionCookie[] = "lh_session";
inline constexpr char kLoginCookie[] =
    "lh_login";  // the login form's CSRF token
// The credential of a session the directory opened (no password hash of
// ours to follow).
inline constexpr char kDirectoryCredential[] = "directory";

struct ConsoleServerImpl {
  ConsoleOptions options;
  // Logins against the directory (the policy file's [directory] roles).
  std::optional<Directory> directory;
  std::map<std::string, std::string> directory_roles;
  ConsoleLog log;
  std::unique_ptr<HttpServer> server;
  absl::Mutex store_mu;
  std::unique_ptr<IncidentStore> store ABSL_GUARDED_BY(store_mu);
  std::unique_ptr<IndexHolder> holder;  // null without --index
  absl::Mutex index_write_mu;           // one console writer at a time
  SessionTable sessions;
  LoginLimiter limiter;
  // Logins: at most 2 per core at once (directory binds, password hashes),
  // 4 per core waiting; past that 503. Uploads: 2 at once.
  WorkPool login_pool{2 * std::max(1u, std::thread::hardware_concurrency()),
                      4 * std::max(1u, std::thread::hardware_concurrency())};
  WorkPool upload_pool{2, 8};
  std::string dummy_hash;  // checked for unknown users: no timing oracle
  std::unique_ptr<OverrideDesk> overrides;  // senders' self-service
  bool tls = false;

  explicit ConsoleServerImpl(const ConsoleOptions& o)
      : options(o), sessions(o.idle_timeout, o.session_max_age) {}

  // Behind a trusted proxy the browser speaks HTTPS to the proxy.
  bool Secure() const { return tls || !options.trusted_proxy.empty(); }

  std::string CookieAttributes() const {
    return Secure() ? "; HttpOnly; SameSite=Strict; Secure"
                    : "; HttpOnly; SameSite=Strict";
  }

  // The client's address: the connection's, or behind the trusted proxy
  // the last address of the last X-Forwarded-For header (the one the
  // proxy added; earlier ones are the client's own word).
  std::string ClientAddress(const HttpRequest& req) const {
    const size_t headers = req.Headers("X-Forwarded-For").size();
    if (options.trusted_proxy.empty() ||
        req.remote_addr != options.trusted_proxy || headers == 0) {
      return req.remote_addr;
    }
    const std::string forwarded = req.Headers("X-Forwarded-For")[headers - 1];
    const size_t comma = forwarded.rfind(',');
    std::string last(absl::StripAsciiWhitespace(
        comma == std::string::npos ? forwarded : forwarded.substr(comma + 1)));
    return last.empty() ? req.remote_addr : last;
  }

  // Before the body is read: a request that cannot be served is answered
  // here, so that no body is read for it. A Host other than --server-name
  // (DNS rebinding) gets 421; a POST with a chunked or unannounced body
  // 411 (forms always send Content-Length, and the upload limit applies to
  // it); a POST but a login without a session 401.
  bool BeforeBody(const HttpRequest& req, HttpResponse& res) {
    if (!options.server_name.empty()) {
      std::string host = req.Header("Host");
      // Without its port ("[::1]:8080" is "[::1]").
      if (const size_t colon = host.rfind(':');
          colon != std::string::npos &&
          host.find(']', colon) == std::string::npos) {
        host.resize(colon);
      }
      if (!absl::EqualsIgnoreCase(host, options.server_name)) {
        res.SetHeader("Connection", "close");
        SendHtml(res, 421,
                 MessagePage(nullptr, "Wrong host",
                             "This console is not served under "
                             "that name."));
        return true;
      }
    }
    if (req.method != "POST") return false;
    if (req.Header("Transfer-Encoding") != "" ||
        !req.HasHeader("Content-Length")) {
      res.SetHeader("Connection", "close");
      SendHtml(res, 411,
               MessagePage(nullptr, "Length required",
                           "A form is sent with its length."));
      return true;
    }
    if (req.path != "/login" && !OverrideDesk::Owns(req.path) &&
        !sessions.Find(CookieValue(req, kSessionCookie), ConsoleClock::now())) {
      res.SetHeader("Connection", "close");
      SendHtml(res, 401,
               MessagePage(nullptr, "Not logged in",
                           "Your session has ended. Log in again."));
      return true;
    }
    return false;
  }

  // The session of a request, or nullopt after answering it: a page is
  // sent to the login form, anything else gets 401.
  std::optional<ConsoleSession> Authenticate(const HttpRequest& req,
                                             HttpResponse& res) {
    auto session =
        sessions.Find(CookieValue(req, kSessionCookie), ConsoleClock::now());
    if (session && FollowUsersTable(*session)) return session;
    if (req.method == "GET") {
      res.SetRedirect(absl::StrCat("/login?next=", Url(req.target)), 303);
    } else {
      SendHtml(res, 401,
               MessagePage(nullptr, "Not logged in",
                           "Your session has ended. Log in again."));
    }
    return std::nullopt;
  }

  // Brings `session` in line with the users table, which any process may
  // change (`console user remove|passwd|role`): false, and the session
  // ended, when its user is gone or has a new password; else its role is
  // the user's role now. A store that cannot be read refuses the request
  // (false) and ends nothing.
  bool FollowUsersTable(ConsoleSession& session) {
    absl::StatusOr<std::optional<ConsoleUser>> user;
    {
      absl::MutexLock lock(&store_mu);
      user = store->GetUser(session.user);
    }
    if (!user.ok()) {
      log(absl::StrCat("session of '", LogField(session.user),
                       "' refused a request: ", user.status().message()));
      return false;
    }
    // A directory login: the directory decided at login; the session
    // keeps its role until it ends (idle, or session_max_age).
    if (session.credential == kDirectoryCredential && !user->has_value()) {
      return true;
    }
    if (!user->has_value() || (*user)->password_hash != session.credential) {
      sessions.Erase(session.id);
      log(absl::StrCat("session of '", LogField(session.user), "' ended: ",
                       user->has_value() ? "new password" : "user removed"));
      return false;
    }
    session.role = (*user)->role;
    return true;
  }

  // A directory login: the role of the highest console group (`roles` of
  // the policy's [directory]) the user is in. PermissionDenied for a
  // wrong password, an unknown user, or one in no console group.
  absl::StatusOr<std::string> DirectoryLogin(const std::string& name,
                                             const std::string& password) {
    std::vector<std::string> dns;
    for (const auto& [role, dn] : directory_roles) dns.push_back(dn);
    auto account = directory->Login(name, password, dns);
    if (!account.ok()) return account.status();
    const std::vector<std::string>* in = &account->groups;
    std::string best;
    for (const char* role : {"viewer", "reviewer", "admin"}) {
      auto it = directory_roles.find(role);
      if (it != directory_roles.end() &&
          std::find(in->begin(), in->end(), it->second) != in->end()) {
        best = role;
      }
    }
    if (best.empty()) {
      return absl::PermissionDeniedError("in no console group");
    }
    return best;
  }

  // For a POST: the session, its CSRF token checked, and its role at
  // least `role`; else answers (401, 403) and returns nullopt.
  std::optional<ConsoleSession> Authorize(const HttpRequest& req,
                                          HttpResponse& res,
                                          const std::string& role) {
    auto session = Authenticate(req, res);
    if (!session) return std::nullopt;
    const PageContext ctx{session->user, session->role, session->csrf};
    if (!TokensEqual(req.Field("csrf"), session->csrf) || !SameOrigin(req)) {
      SendHtml(res, 403,
               MessagePage(&ctx, "Refused",
                           "The form's security token is not this "
                           "session's. Reload the page and try again."));
      return std::nullopt;
    }
    if (!RoleAtLeast(session->role, role)) {
      SendHtml(res, 403,
               MessagePage(&ctx, "Not allowed",
                           absl::StrCat("This needs the ", role, " role.")));
      return std::nullopt;
    }
    return session;
  }

  // Whether a destructive form was confirmed (its "confirm" box ticked);
  // else answers 400 and returns false.
  bool Confirmed(const HttpRequest& req, HttpResponse& res,
                 const ConsoleSession& s) {
    if (req.Field("confirm") == "yes") return true;
    Fail(res, s,
         absl::InvalidArgumentError(
             "tick 'confirm' first: this cannot be undone"));
    return false;
  }

  // A browser's Origin, when sent, must be this server.
  static bool SameOrigin(const HttpRequest& req) {
    const std::string origin = req.Header("Origin");
    if (origin.empty() || origin == "null") return origin.empty();
    const size_t scheme = origin.find("://");
    return scheme != std::string::npos &&
           origin.substr(scheme + 3) == req.Header("Host");
  }

  static PageContext Context(const ConsoleSession& s) {
    return PageContext{s.user, s.role, s.csrf};
  }

  void Fail(HttpResponse& res, const ConsoleSession& s,
            const absl::Status& st) {
    const PageContext ctx = Context(s);
    SendHtml(res, HttpStatusOf(st),
             MessagePage(&ctx, "Could not do that", std::string(st.message())));
  }

  // Releases (`release`) or deletes incident `id`'s held mail for `who`:
  // "released" or "deleted" when done here, "requested" when the node of
  // a fleet that holds it was asked to (docs/fleet.md).
  absl::StatusOr<std::string> ActOnHeld(int64_t id, bool release,
                                        const std::string& who) {
    absl::MutexLock lock(&store_mu);
    auto incident = store->Get(id);
    if (!incident.ok()) return incident.status();
    if (!incident->node.empty() && IsDatabaseUri(options.incidents_path)) {
      auto r = store->RequestMail(id, release ? "release" : "delete", who);
      if (!r.ok()) return r.status();
      return "requested";
    }
    auto r = ActOnHeldMail(*store, id, release, who, options.held_mail);
    if (!r.ok()) return r.status();
    return release ? "released" : "deleted";
  }

  // Reads the policy file for directory logins (reviewers', by their
  // groups, and senders') and the rules' texts, and sets up the senders'
  // self-service override (override_desk.h).
  absl::Status SetUpLogins();
  void Routes();
  void LoginGet(const HttpRequest& req, HttpResponse& res);
  void LoginPost(const HttpRequest& req, HttpResponse& res);
  void IncidentList(const HttpRequest& req, HttpResponse& res);
  void IncidentShow(const HttpRequest& req, HttpResponse& res);
  void IncidentAction(const HttpRequest& req, HttpResponse& res,
                      const std::string& action);
  // Allow-lists passage `match` (its ordinal) of incident `id` for `who`
  // (an admin's index write), audited.
  absl::Status AllowPassage(int64_t id, const std::string& match,
                            const std::string& who);
  // Bulk actions on the ticked incidents of the list (case_pages.h).
  void Bulk(const HttpRequest& req, HttpResponse& res);
  void Documents(const HttpRequest& req, HttpResponse& res);
  void DocumentChange(const HttpRequest& req, HttpResponse& res, bool add);
  // An admin sets a document's labels (document_changes.h): audited and
  // sent to the SIEM as a review event "labelled".
  void DocumentLabels(const HttpRequest& req, HttpResponse& res);
  void Dashboard(const HttpRequest& req, HttpResponse& res);
  // The policy file, read-only, with each rule's incident count.
  void PolicyShow(const HttpRequest& req, HttpResponse& res);
  void Nodes(const HttpRequest& req, HttpResponse& res);
  // Discovery (discovery_desk.cc, docs/discover.md): the findings at rest,
  // and an admin's restore of one (audited, sent to the SIEM).
  void Discovery(const HttpRequest& req, HttpResponse& res);
  void DiscoveryRestore(const HttpRequest& req, HttpResponse& res);
};

inline bool IsCaseAction(const std::string& action) {
  return action == "assign" || action == "comment" || action == "escalate";
}

// A case's action on incident `id` from a form: "assign" (field owner),
// "comment" (text) or "escalate" (to, reason), done as `who`.
absl::Status CaseAction(IncidentStore& store, const std::string& action,
                        int64_t id, const HttpRequest& req,
                        const std::string& who);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_IMPL_H_
