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
#include "cli/console/console_impl.h"
#include "cli/console/console_pages.h"
#include "cli/console/document_changes.h"
#include "cli/console/fleet_pages.h"
#include "cli/console/http_server.h"
#include "cli/console/override_desk.h"
#include "cli/console/override_link.h"
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

void ConsoleServerImpl::IncidentList(const HttpRequest& req,
                                     HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  IncidentListView view;
  for (const char* key :
       {"status", "action", "source", "kind", "sender", "document", "since",
        "until", "severity", "rule", "reference", "workflow", "owner"}) {
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
  f.workflow = view.query["workflow"];
  if (size_t n = 0;
      req.Query("done") == "bulk" && absl::SimpleAtoi(req.Query("n"), &n)) {
    view.done =
        absl::StrCat(n, n == 1 ? " incident" : " incidents", " changed.");
  }
  // "nobody": the unowned cases.
  if (!view.query["owner"].empty()) {
    f.owner = view.query["owner"] == "nobody" ? "" : view.query["owner"];
  }
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

void ConsoleServerImpl::IncidentShow(const HttpRequest& req,
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
  auto comments = store->Comments(id);
  if (!comments.ok()) return Fail(res, *s, comments.status());
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
       "The passage is allow-listed: it no longer counts as a leak."},
      {"revoked", "The sender can no longer release the message."},
      {"assigned", "The case is assigned."},
      {"commented", "The comment is added."},
      {"escalated", "The case is escalated."}};
  std::string done;
  for (const auto& [code, text] : kDone) {
    if (req.Query("done") == code) done = text;
  }
  SendHtml(res, 200,
           IncidentPage(Context(*s), *incident, *audit, done, mail, *comments));
}

void ConsoleServerImpl::IncidentAction(const HttpRequest& req,
                                       HttpResponse& res,
                                       const std::string& action) {
  auto s = Authorize(req, res, "reviewer");
  if (!s) return;
  int64_t id = 0;
  if (!absl::SimpleAtoi(req.matches[1], &id)) {
    return Fail(res, *s, absl::NotFoundError("no such incident"));
  }
  const std::string who = "console:" + s->user;
  if (action != "resolve" && action != "revoke-override" &&
      !IsCaseAction(action) && !Confirmed(req, res, *s)) {
    return;
  }
  std::string done;
  if (IsCaseAction(action)) {
    absl::MutexLock lock(&store_mu);
    absl::Status st = CaseAction(*store, action, id, req, who);
    if (!st.ok()) return Fail(res, *s, st);
    done = action == "assign"    ? "assigned"
           : action == "comment" ? "commented"
                                 : "escalated";
  } else if (action == "resolve") {
    absl::MutexLock lock(&store_mu);
    absl::Status st =
        store->Resolve(id, req.Field("status"), req.Field("note"), who);
    if (!st.ok()) return Fail(res, *s, st);
    done = "resolved";
  } else if (action == "release" || action == "delete-mail") {
    auto r = ActOnHeld(id, action == "release", who);
    if (!r.ok()) return Fail(res, *s, r.status());
    done = *r;
  } else if (action == "revoke-override") {
    absl::MutexLock lock(&store_mu);
    if (absl::Status st = store->RevokeOverride(id, who); !st.ok()) {
      return Fail(res, *s, st);
    }
    done = "revoked";
  } else if (action == "allow") {
    if (absl::Status st = AllowPassage(id, req.Field("match"), who);
        !st.ok()) {
      return Fail(res, *s, st);
    }
    done = "allowed";
  }
  log(absl::StrCat(LogField(who), ": ", action, " incident ", id));
  res.SetRedirect(absl::StrCat("/incidents/", id, "?done=", done), 303);
}

absl::Status ConsoleServerImpl::AllowPassage(int64_t id,
                                             const std::string& match,
                                             const std::string& who) {
  if (options.index_dir.empty()) {
    return absl::FailedPreconditionError(
        "the console was started without --index");
  }
  size_t n = 0;
  Incident incident;
  {
    absl::MutexLock lock(&store_mu);
    auto got = store->Get(id);
    if (!got.ok()) return got.status();
    incident = std::move(*got);
  }
  if (!absl::SimpleAtoi(match, &n) || n >= incident.matches.size() ||
      incident.matches[n].snippet.empty()) {
    return absl::InvalidArgumentError("no such passage");
  }
  const IncidentMatch& m = incident.matches[n];
  const std::string text =
      m.snippet.substr(m.snippet_begin, m.snippet_end - m.snippet_begin);
  const std::string name = absl::StrCat("incident-", id, "-", n);
  absl::MutexLock write(&index_write_mu);
  auto index = ProtectedIndex::Open(options.index_dir, OpenMode::kWrite);
  if (!index.ok()) return index.status();
  // `rekey` reads the passage again from a retained copy.
  auto copy = RetainCopy(options.index_dir, name + ".txt", text);
  if (!copy.ok()) return copy.status();
  auto added = (*index)->AddAllowed(name, copy->path, text);
  if (!added.ok()) {
    if (copy->created)
      DropRetainedCopy(options.index_dir, copy->path).IgnoreError();
    return added.status();
  }
  index->reset();
  absl::MutexLock lock(&store_mu);
  store
      ->Audit(who, "allow-list", id,
              absl::StrCat("passage ", n, " as '", name, "'"))
      .IgnoreError();
  return absl::OkStatus();
}

void ConsoleServerImpl::Documents(const HttpRequest& req, HttpResponse& res) {
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
    std::vector<std::string> sensitivity;
    for (const LabelRecord& l : d.sensitivity) {
      sensitivity.push_back(l.name.empty() ? l.id : l.name);
    }
    view.rows.push_back({d.external_id, d.source, d.labels, d.bytes,
                         d.added_unix_ms, std::move(sensitivity)});
  }
  SendHtml(res, 200, DocumentsPage(Context(*s), view, done));
}

void ConsoleServerImpl::DocumentChange(const HttpRequest& req,
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

void ConsoleServerImpl::DocumentLabels(const HttpRequest& req,
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

void ConsoleServerImpl::Dashboard(const HttpRequest& req, HttpResponse& res) {
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

void ConsoleServerImpl::Nodes(const HttpRequest& req, HttpResponse& res) {
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

void ConsoleServerImpl::PolicyShow(const HttpRequest& req, HttpResponse& res) {
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

void ConsoleServerImpl::Routes() {
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
  post("/incidents/bulk", [this](const auto& q, auto& r) { Bulk(q, r); });
  for (const char* action :
       {"resolve", "release", "delete-mail", "allow", "revoke-override",
        "assign", "comment", "escalate"}) {
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
  get("/discovery", [this](const auto& q, auto& r) { Discovery(q, r); });
  // A restore moves a file back: off the event loops.
  post(
      "/discovery/{ref}/restore",
      [this](const auto& q, auto& r) { DiscoveryRestore(q, r); }, &upload_pool);
  overrides->Routes(http, &login_pool);
}

ConsoleServer::ConsoleServer(std::unique_ptr<ConsoleServerImpl> impl)
    : impl_(std::move(impl)) {}
ConsoleServer::~ConsoleServer() = default;

absl::StatusOr<std::unique_ptr<ConsoleServer>> ConsoleServer::Create(
    const ConsoleOptions& options, ConsoleLog log) {
  auto impl = std::make_unique<ConsoleServerImpl>(options);
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
  auto dummy = HashPassword(RandomToken());
  if (!dummy.ok()) return dummy.status();
  impl->dummy_hash = *dummy;
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  impl->tls = !options.tls_cert.empty();
  if (absl::Status s = impl->SetUpLogins(); !s.ok()) return s;
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
