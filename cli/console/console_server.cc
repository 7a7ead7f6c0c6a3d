// The console's routes and pages over HttpServer (http_server.h).
#include "cli/console/console_server.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "cli/console/console_http.h"
#include "cli/console/console_pages.h"
#include "cli/console/document_changes.h"
#include "cli/console/fleet_pages.h"
#include "cli/console/http_server.h"
#include "cli/console/policy_view.h"
#include "cli/console/retained_copy.h"
#include "cli/console/safe_next.h"
#include "cli/console/secrets.h"
#include "cli/console/session_table.h"
#include "cli/console/work_pool.h"
#include "cli/formats/extraction.h"
#include "cli/gateway/directory_groups.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/index_holder.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"
#include "cli/policy/policy_lint.h"
#include "engine/protected_index.h"
#include "shingler/user_name.h"

namespace leakhound {
namespace {

constexpr char kSessionCookie[] = "lh_session";
constexpr char kLoginCookie[] = "lh_login";  // the login form's CSRF token
// The credential of a session the directory opened (no password hash of
// ours to follow).
constexpr char kDirectoryCredential[] = "directory";

}  // namespace

struct ConsoleServer::Impl {
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
  bool tls = false;

  explicit Impl(const ConsoleOptions& o)
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
    if (req.path != "/login" &&
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
    auto in = directory->Login(name, password, dns);
    if (!in.ok()) return in.status();
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

  void Routes();
  void LoginGet(const HttpRequest& req, HttpResponse& res);
  void LoginPost(const HttpRequest& req, HttpResponse& res);
  void IncidentList(const HttpRequest& req, HttpResponse& res);
  void IncidentShow(const HttpRequest& req, HttpResponse& res);
  void IncidentAction(const HttpRequest& req, HttpResponse& res,
                      const std::string& action);
  void Documents(const HttpRequest& req, HttpResponse& res);
  void DocumentChange(const HttpRequest& req, HttpResponse& res, bool add);
  // An admin sets a document's labels (document_changes.h): audited and
  // sent to the SIEM as a review event "labelled".
  void DocumentLabels(const HttpRequest& req, HttpResponse& res);
  void Dashboard(const HttpRequest& req, HttpResponse& res);
  // The policy file, read-only, with each rule's incident count.
  void PolicyShow(const HttpRequest& req, HttpResponse& res);
  void Nodes(const HttpRequest& req, HttpResponse& res);
};

void ConsoleServer::Impl::LoginGet(const HttpRequest& req, HttpResponse& res) {
  const std::string token = RandomToken();
  res.SetHeader("Set-Cookie",
                absl::StrCat(kLoginCookie, "=", token, "; Path=/login",
                             CookieAttributes()));
  SendHtml(res, 200, LoginPage(token, "", SafeNext(req.Query("next"))));
}

void ConsoleServer::Impl::LoginPost(const HttpRequest& req, HttpResponse& res) {
  // One name for the lockout, the users table, the directory, the session
  // and the audit log (shingler/user_name.h): " adm" is refused, "ADM" is
  // "adm".
  const absl::StatusOr<std::string> canonical = UserName(req.Field("user"));
  const std::string user = canonical.ok() ? *canonical : "";
  const std::string next = SafeNext(req.Field("next"));
  const std::string cookie = CookieValue(req, kLoginCookie);
  auto again = [&](int status, const std::string& error) {
    const std::string token = RandomToken();
    res.SetHeader("Set-Cookie",
                  absl::StrCat(kLoginCookie, "=", token, "; Path=/login",
                               CookieAttributes()));
    SendHtml(res, status, LoginPage(token, error, next));
  };
  if (cookie.empty() || !TokensEqual(req.Field("csrf"), cookie) ||
      !SameOrigin(req)) {
    return again(403, "The login form expired. Try again.");
  }
  if (!canonical.ok()) {
    log(absl::StrCat("login refused: ", canonical.status().message(), ": '",
                     LogField(req.Field("user")), "'"));
    return again(400, absl::StrCat("Wrong user name: ",
                                   canonical.status().message(), "."));
  }
  const auto now = ConsoleClock::now();
  const std::string client = ClientAddress(req);
  if (!limiter.Allowed(client, user, now)) {
    log(absl::StrCat("login refused (rate limit): user '", LogField(user),
                     "' from ", LogField(client)));
    return again(429, "Too many failed logins. Wait a few minutes.");
  }
  std::optional<ConsoleUser> found;
  {
    absl::MutexLock lock(&store_mu);
    auto u = store->GetUser(user);
    if (!u.ok()) return again(503, std::string(u.status().message()));
    found = *u;
  }
  if (!found && directory) {
    // Not a console user: the directory decides, and the role is that of
    // the highest console group the user is in.
    auto role = DirectoryLogin(user, req.Field("password"));
    if (!role.ok() && !absl::IsPermissionDenied(role.status())) {
      log(absl::StrCat("login of '", LogField(user), "': ",
                       role.status().message()));
      return again(503, "The directory cannot be reached. Try again later.");
    }
    if (role.ok()) {
      found = ConsoleUser{user, *role, kDirectoryCredential, 0};
    }
  }
  const bool by_directory =
      found.has_value() && found->password_hash == kDirectoryCredential;
  const bool ok =
      by_directory || (CheckPassword(req.Field("password"),
                                     found ? found->password_hash : dummy_hash) &&
                       found.has_value());
  if (!ok) {
    limiter.Failed(client, user, now);
    log(absl::StrCat("login failed: user '", LogField(user), "' from ",
                     LogField(client)));
    absl::MutexLock lock(&store_mu);
    store->Audit(user, "login failed", 0, client).IgnoreError();
    return again(401, "Wrong user or password.");
  }
  limiter.Succeeded(user);
  const ConsoleSession s =
      sessions.Create(found->name, found->role, found->password_hash, now);
  log(absl::StrCat("login: user '", LogField(s.user), "' (", s.role,
                   by_directory ? ", directory" : "", ") from ",
                   LogField(client)));
  {
    absl::MutexLock lock(&store_mu);
    store->Audit(s.user, "login", 0, client).IgnoreError();
  }
  res.SetHeader("Set-Cookie", absl::StrCat(kSessionCookie, "=", s.id,
                                           "; Path=/", CookieAttributes()));
  res.SetRedirect(next, 303);
}

void ConsoleServer::Impl::IncidentList(const HttpRequest& req,
                                       HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  IncidentListView view;
  for (const char* key :
       {"status", "action", "source", "kind", "sender", "document", "since",
        "until", "severity", "rule", "reference"}) {
    const std::string v(absl::StripAsciiWhitespace(req.Query(key)));
    if (!v.empty()) view.query[key] = v;
  }
  IncidentFilter f;
  f.status = view.query["status"];
  f.action = view.query["action"];
  f.source = view.query["source"];
  f.kind = view.query["kind"];
  f.sender = view.query["sender"];
  f.document = view.query["document"];
  f.severity = view.query["severity"];
  f.rule = view.query["rule"];
  f.reference = view.query["reference"];
  const int64_t now = NowUnixMs();
  for (auto [key, field] :
       {std::pair{"since", &f.since_ms}, std::pair{"until", &f.until_ms}}) {
    if (view.query[key].empty()) continue;
    auto t = ParseTimeBound(view.query[key], now);
    if (!t.ok()) return Fail(res, *s, t.status());
    *field = *t;
  }
  std::erase_if(view.query, [](const auto& kv) { return kv.second.empty(); });
  size_t page = 0;
  if (!absl::SimpleAtoi(req.Query("page"), &page)) page = 0;
  page = std::min<size_t>(page, 1'000'000);
  view.page = page;
  f.limit = kIncidentsPerPage + 1;
  f.offset = page * kIncidentsPerPage;
  {
    absl::MutexLock lock(&store_mu);
    auto rows = store->List(f);
    if (!rows.ok()) return Fail(res, *s, rows.status());
    view.rows = std::move(*rows);
  }
  view.more = view.rows.size() > kIncidentsPerPage;
  if (view.more) view.rows.pop_back();
  SendHtml(res, 200, IncidentListPage(Context(*s), view));
}

void ConsoleServer::Impl::IncidentShow(const HttpRequest& req,
                                       HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  int64_t id = 0;
  if (!absl::SimpleAtoi(req.matches[1], &id)) {
    return Fail(res, *s, absl::NotFoundError("no such incident"));
  }
  absl::MutexLock lock(&store_mu);
  auto incident = store->Get(id);
  if (!incident.ok()) return Fail(res, *s, incident.status());
  auto audit = store->AuditTrail(id, 50);
  if (!audit.ok()) return Fail(res, *s, audit.status());
  HeldMailView mail;
  mail.now_ms = NowUnixMs();
  if (!incident->node.empty()) {
    auto requests = store->MailRequests(id, 20);
    auto nodes = store->Nodes();
    if (!requests.ok()) return Fail(res, *s, requests.status());
    if (!nodes.ok()) return Fail(res, *s, nodes.status());
    mail.requests = *std::move(requests);
    for (const NodeState& n : *nodes) {
      if (n.name == incident->node) mail.node_heartbeat_ms = n.heartbeat_ms;
    }
  }
  static constexpr std::pair<const char*, const char*> kDone[] = {
      {"resolved", "Review saved."},
      {"released", "The message was released to its recipients."},
      {"deleted", "The held message was deleted."},
      {"requested",
       "Asked of the node that holds the message: it is carried out there "
       "on its next round (see Requests below)."},
      {"allowed",
       "The passage is allow-listed: it no longer counts as a leak."}};
  std::string done;
  for (const auto& [code, text] : kDone) {
    if (req.Query("done") == code) done = text;
  }
  SendHtml(res, 200, IncidentPage(Context(*s), *incident, *audit, done, mail));
}

void ConsoleServer::Impl::IncidentAction(const HttpRequest& req,
                                         HttpResponse& res,
                                         const std::string& action) {
  auto s = Authorize(req, res, "reviewer");
  if (!s) return;
  int64_t id = 0;
  if (!absl::SimpleAtoi(req.matches[1], &id)) {
    return Fail(res, *s, absl::NotFoundError("no such incident"));
  }
  const std::string who = "console:" + s->user;
  if (action != "resolve" && !Confirmed(req, res, *s)) return;
  std::string done;
  if (action == "resolve") {
    absl::MutexLock lock(&store_mu);
    absl::Status st =
        store->Resolve(id, req.Field("status"), req.Field("note"), who);
    if (!st.ok()) return Fail(res, *s, st);
    done = "resolved";
  } else if (action == "release" || action == "delete-mail") {
    absl::MutexLock lock(&store_mu);
    auto incident = store->Get(id);
    if (!incident.ok()) return Fail(res, *s, incident.status());
    if (!incident->node.empty() && IsDatabaseUri(options.incidents_path)) {
      // A fleet's desk: the node whose Postfix holds the mail does it.
      auto r = store->RequestMail(
          id, action == "release" ? "release" : "delete", who);
      if (!r.ok()) return Fail(res, *s, r.status());
      done = "requested";
    } else {
      auto r = ActOnHeldMail(*store, id, action == "release", who,
                             options.held_mail);
      if (!r.ok()) return Fail(res, *s, r.status());
      done = action == "release" ? "released" : "deleted";
    }
  } else if (action == "allow") {
    if (options.index_dir.empty()) {
      return Fail(res, *s,
                  absl::FailedPreconditionError(
                      "the console was started without --index"));
    }
    size_t n = 0;
    Incident incident;
    {
      absl::MutexLock lock(&store_mu);
      auto got = store->Get(id);
      if (!got.ok()) return Fail(res, *s, got.status());
      incident = std::move(*got);
    }
    if (!absl::SimpleAtoi(req.Field("match"), &n) ||
        n >= incident.matches.size() || incident.matches[n].snippet.empty()) {
      return Fail(res, *s, absl::InvalidArgumentError("no such passage"));
    }
    const IncidentMatch& m = incident.matches[n];
    const std::string text =
        m.snippet.substr(m.snippet_begin, m.snippet_end - m.snippet_begin);
    const std::string name = absl::StrCat("incident-", id, "-", n);
    absl::MutexLock write(&index_write_mu);
    auto index = ProtectedIndex::Open(options.index_dir, OpenMode::kWrite);
    if (!index.ok()) return Fail(res, *s, index.status());
    // `rekey` reads the passage again from a retained copy.
    auto copy = RetainCopy(options.index_dir, name + ".txt", text);
    if (!copy.ok()) return Fail(res, *s, copy.status());
    auto added = (*index)->AddAllowed(name, copy->path, text);
    if (!added.ok()) {
      if (copy->created)
        DropRetainedCopy(options.index_dir, copy->path).IgnoreError();
      return Fail(res, *s, added.status());
    }
    index->reset();
    absl::MutexLock lock(&store_mu);
    store
        ->Audit(who, "allow-list", id,
                absl::StrCat("passage ", n, " as '", name, "'"))
        .IgnoreError();
    done = "allowed";
  }
  log(absl::StrCat(LogField(who), ": ", action, " incident ", id));
  res.SetRedirect(absl::StrCat("/incidents/", id, "?done=", done), 303);
}

void ConsoleServer::Impl::Documents(const HttpRequest& req, HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  DocumentsView view;
  view.query = std::string(absl::StripAsciiWhitespace(req.Query("q")));
  view.from = std::string(req.Query("from"));
  std::string done;
  if (req.Query("done") == "added") done = "The document is protected.";
  if (req.Query("done") == "removed")
    done = "The document is no longer protected.";
  if (req.Query("done") == "labelled") done = "The labels are saved.";
  if (holder == nullptr) {
    view.index_available = false;
    return SendHtml(res, 200, DocumentsPage(Context(*s), view, done));
  }
  if (auto reloaded = holder->Reload(); !reloaded.ok()) {
    log(absl::StrCat("index reload failed: ", reloaded.status().message()));
  }
  const IndexHolder::Snapshot snap = holder->Current();
  view.generation = snap.generation;
  view.total = snap.index->matrix().documents();
  // One row more than a page says whether there is a next one, and where.
  absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>> page;
  if (view.query.empty()) {
    uint32_t first = 0;
    if (!view.from.empty() && !absl::SimpleAtoi(view.from, &first)) {
      const PageContext ctx = Context(*s);
      return SendHtml(
          res, 400,
          MessagePage(&ctx, "Bad request", "from= is a document number here."));
    }
    page = snap.index->DocumentsFrom(first, kDocumentsPerPage + 1);
  } else {
    page =
        snap.index->FindDocuments(view.query, view.from, kDocumentsPerPage + 1);
  }
  if (!page.ok()) return Fail(res, *s, page.status());
  if (page->size() > kDocumentsPerPage) {
    const auto& [id, d] = page->back();
    view.next = view.query.empty() ? absl::StrCat(id) : d.external_id;
    page->pop_back();
  }
  for (const auto& [id, d] : *page) {
    view.rows.push_back(
        {d.external_id, d.source, d.labels, d.bytes, d.added_unix_ms});
  }
  SendHtml(res, 200, DocumentsPage(Context(*s), view, done));
}

void ConsoleServer::Impl::DocumentChange(const HttpRequest& req,
                                         HttpResponse& res, bool add) {
  auto s = Authorize(req, res, "admin");
  if (!s) return;
  if (options.index_dir.empty()) {
    return Fail(res, *s,
                absl::FailedPreconditionError(
                    "the console was started without --index"));
  }
  const std::string who = "console:" + s->user;
  std::string id = std::string(absl::StripAsciiWhitespace(req.Field("id")));
  absl::MutexLock write(&index_write_mu);
  if (add) {
    auto uploaded = req.files.find("file");
    if (uploaded == req.files.end()) {
      return Fail(res, *s, absl::InvalidArgumentError("no file uploaded"));
    }
    const HttpRequest::File& file = uploaded->second;
    if (id.empty()) id = file.filename;
    if (id.empty())
      return Fail(res, *s, absl::InvalidArgumentError("no document id"));
    absl::Status st =
        ProtectUpload(options.index_dir, options.limits, id, file.filename,
                      file.content, LabelsOfField(req.Field("labels")));
    if (!st.ok()) return Fail(res, *s, st);
  } else {
    if (!Confirmed(req, res, *s)) return;
    absl::Status st = UnprotectDocument(options.index_dir, id);
    if (!st.ok()) return Fail(res, *s, st);
  }
  {
    absl::MutexLock lock(&store_mu);
    store->Audit(who, add ? "protect document" : "unprotect document", 0, id)
        .IgnoreError();
  }
  log(absl::StrCat(LogField(who), ": ", add ? "protected " : "removed ",
                   LogField(id)));
  if (holder != nullptr) holder->Reload().IgnoreError();
  res.SetRedirect(add ? "/documents?done=added" : "/documents?done=removed",
                  303);
}

void ConsoleServer::Impl::DocumentLabels(const HttpRequest& req,
                                         HttpResponse& res) {
  auto s = Authorize(req, res, "admin");
  if (!s) return;
  if (options.index_dir.empty()) {
    return Fail(res, *s,
                absl::FailedPreconditionError(
                    "the console was started without --index"));
  }
  const std::string who = "console:" + s->user;
  const std::string id(absl::StripAsciiWhitespace(req.Field("id")));
  absl::StatusOr<LabelChange> change;
  {
    absl::MutexLock write(&index_write_mu);
    change = SetDocumentLabels(options.index_dir, id, req.Field("labels"));
  }
  if (!change.ok()) return Fail(res, *s, change.status());
  const std::string detail =
      absl::StrCat(id, ": ", absl::StrJoin(change->before, ", "), " -> ",
                   absl::StrJoin(change->after, ", "));
  {
    absl::MutexLock lock(&store_mu);
    store->AuditChange(who, "label document", "labelled", detail)
        .IgnoreError();
  }
  log(absl::StrCat(LogField(who), ": labelled ", LogField(detail)));
  if (holder != nullptr) holder->Reload().IgnoreError();
  res.SetRedirect("/documents?done=labelled", 303);
}

void ConsoleServer::Impl::Dashboard(const HttpRequest& req, HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  DashboardView view;
  int days = 30;
  if (absl::SimpleAtoi(req.Query("days"), &days)) {
    view.days = std::clamp(days, 1, 366);
  }
  view.first_day = NowUnixMs() / 86'400'000 - view.days + 1;
  const int64_t since = view.first_day * 86'400'000;
  absl::MutexLock lock(&store_mu);
  auto per_day = store->PerDay(since);
  auto documents = store->TopDocuments(since, 10);
  auto senders = store->TopSenders(since, 10);
  auto severities = store->PerSeverity(since);
  auto outbox = store->OutboxStates();
  for (const absl::Status& st :
       {per_day.status(), documents.status(), senders.status(),
        severities.status(), outbox.status()}) {
    if (!st.ok()) return Fail(res, *s, st);
  }
  view.per_day = std::move(*per_day);
  view.top_documents = std::move(*documents);
  view.top_senders = std::move(*senders);
  view.per_severity = std::move(*severities);
  view.outbox = std::move(*outbox);
  view.now_ms = NowUnixMs();
  SendHtml(res, 200, DashboardPage(Context(*s), view));
}

void ConsoleServer::Impl::Nodes(const HttpRequest& req, HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  NodesView view;
  view.now_ms = NowUnixMs();
  view.thresholds = options.fleet;
  absl::MutexLock lock(&store_mu);
  auto nodes = store->Nodes();
  if (!nodes.ok()) return Fail(res, *s, nodes.status());
  auto published = store->GetPolicyVersion(0);
  if (!published.ok() && !absl::IsNotFound(published.status())) {
    return Fail(res, *s, published.status());
  }
  view.fleet = AssessFleet(
      *nodes, published.ok() ? std::optional(*published) : std::nullopt,
      view.now_ms, view.thresholds);
  SendHtml(res, 200, NodesPage(Context(*s), view));
}

void ConsoleServer::Impl::PolicyShow(const HttpRequest& req,
                                     HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  absl::StatusOr<PolicyView> view;
  {
    absl::MutexLock lock(&store_mu);
    view = ReadPolicyView(*store, options.policy_file);
  }
  if (!view.ok()) return Fail(res, *s, view.status());
  SendHtml(res, 200, PolicyPage(Context(*s), *view));
}

void ConsoleServer::Impl::Routes() {
  HttpServer& http = *server;
  http.SetFinish([this](const HttpRequest&, HttpResponse& res) {
    res.SetHeader(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    res.SetHeader("X-Content-Type-Options", "nosniff");
    res.SetHeader("X-Frame-Options", "DENY");
    // same-origin, not no-referrer: under no-referrer Chromium sends
    // "Origin: null" with a form, which SameOrigin refuses.
    res.SetHeader("Referrer-Policy", "same-origin");
    res.SetHeader("Cache-Control", "no-store");
    if (Secure()) {
      res.SetHeader("Strict-Transport-Security", "max-age=31536000");
    }
  });
  http.SetGate([this](const HttpRequest& req, HttpResponse& res) {
    return BeforeBody(req, res);
  });
  http.SetFailure([this](const HttpRequest& req, HttpResponse& res) {
    log(absl::StrCat("internal error serving ", LogField(req.path)));
    SendHtml(res, 500, MessagePage(nullptr, "Error", "Internal error."));
  });
  auto get = [&http](const std::string& path, HttpServer::Handler handler) {
    http.Route("GET", path, std::move(handler));
  };
  auto post = [&http](const std::string& path, HttpServer::Handler handler,
                      WorkPool* pool = nullptr) {
    http.Route("POST", path, std::move(handler), pool);
  };
  get("/console.css", [](const HttpRequest&, HttpResponse& res) {
    res.SetContent(kConsoleCss, "text/css; charset=utf-8");
  });
  get("/", [](const HttpRequest&, HttpResponse& res) {
    res.SetRedirect("/incidents", 303);
  });
  get("/login", [this](const auto& q, auto& r) { LoginGet(q, r); });
  // Off the event loops: a directory bind may wait for its timeout and a
  // password check costs a hash (work_pool.h).
  post("/login", [this](const auto& q, auto& r) { LoginPost(q, r); },
       &login_pool);
  post("/logout", [this](const HttpRequest& req, HttpResponse& res) {
    auto s = Authorize(req, res, "viewer");
    if (!s) return;
    sessions.Erase(s->id);
    {
      absl::MutexLock lock(&store_mu);
      store->Audit(s->user, "logout", 0, "").IgnoreError();
    }
    res.SetHeader("Set-Cookie",
                  absl::StrCat(kSessionCookie, "=; Path=/; Max-Age=0",
                               CookieAttributes()));
    res.SetRedirect("/login", 303);
  });
  get("/incidents", [this](const auto& q, auto& r) { IncidentList(q, r); });
  get("/incidents/{id}",
      [this](const auto& q, auto& r) { IncidentShow(q, r); });
  for (const char* action : {"resolve", "release", "delete-mail", "allow"}) {
    post(absl::StrCat("/incidents/{id}/", action),
         [this, a = std::string(action)](const auto& q, auto& r) {
           IncidentAction(q, r, a);
         });
  }
  get("/documents", [this](const auto& q, auto& r) { Documents(q, r); });
  post("/documents/add",  // extraction, OCR: off the event loops too
       [this](const auto& q, auto& r) { DocumentChange(q, r, true); },
       &upload_pool);
  post("/documents/remove",
       [this](const auto& q, auto& r) { DocumentChange(q, r, false); });
  post("/documents/labels",
       [this](const auto& q, auto& r) { DocumentLabels(q, r); });
  get("/dashboard", [this](const auto& q, auto& r) { Dashboard(q, r); });
  get("/policy", [this](const auto& q, auto& r) { PolicyShow(q, r); });
  get("/nodes", [this](const auto& q, auto& r) { Nodes(q, r); });
}

ConsoleServer::ConsoleServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
ConsoleServer::~ConsoleServer() = default;

absl::StatusOr<std::unique_ptr<ConsoleServer>> ConsoleServer::Create(
    const ConsoleOptions& options, ConsoleLog log) {
  auto impl = std::make_unique<Impl>(options);
  impl->log = std::move(log);
  auto store = IncidentStore::Open(options.incidents_path);
  if (!store.ok()) return store.status();
  bool no_users = false;
  {
    absl::MutexLock lock(&impl->store_mu);  // not shared yet
    impl->store = std::move(*store);
    // The server's connection is the process's only one (incident_store.h).
    auto users = impl->store->ListUsers();
    no_users = users.ok() && users->empty();
  }
  if (no_users) {
    impl->log(
        "no users yet: add one with 'leakhound console user add NAME "
        "--role admin'");
  }
  if (!options.index_dir.empty()) {
    auto holder = IndexHolder::Open(options.index_dir);
    if (!holder.ok()) return holder.status();
    impl->holder = std::move(*holder);
  }
  if (!options.policy_file.empty()) {
    // A broken policy file is shown on /policy; it only has to give the
    // directory here when it parses.
    auto policy = ReadPolicyFile(options.policy_file);
    if (policy.ok() && policy->directory && !policy->directory->roles.empty()) {
      auto directory = OpenDirectory(*policy->directory);
      if (!directory.ok()) return directory.status();
      impl->directory.emplace(*std::move(directory));
      impl->directory_roles = policy->directory->roles;
      impl->log(absl::StrCat("directory logins: ", policy->directory->url,
                             ", ", impl->directory_roles.size(),
                             " console groups"));
    }
  }
  auto dummy = HashPassword(RandomToken());
  if (!dummy.ok()) return dummy.status();
  impl->dummy_hash = *dummy;
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  impl->tls = !options.tls_cert.empty();
  HttpServerOptions http;
  http.host = options.host;
  http.port = options.port;
  http.tls_cert_file = options.tls_cert;
  http.tls_key_file = options.tls_key;
  http.max_body_bytes = options.max_upload_bytes;
  impl->server = std::make_unique<HttpServer>(http);
  impl->Routes();
  return std::unique_ptr<ConsoleServer>(new ConsoleServer(std::move(impl)));
}

absl::StatusOr<int> ConsoleServer::Bind() { return impl_->server->Bind(); }

absl::Status ConsoleServer::Serve() { return impl_->server->Serve(); }

void ConsoleServer::Stop() { impl_->server->Stop(); }

std::string HttpLibraryVersion() { return HttpServer::LibraryVersion(); }

}  // namespace leakhound
