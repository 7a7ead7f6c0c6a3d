#include "cli/console/override_desk.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/console/console_http.h"
#include "cli/console/override_link.h"
#include "cli/console/override_pages.h"
#include "cli/console/secrets.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/sendmail.h"
#include "engine/content_digest.h"

namespace leakhound {
namespace {

constexpr char kSenderCookie[] = "lh_sender";
constexpr char kFormCookie[] = "lh_sender_form";  // the login forms' token
constexpr char kPrefix[] = "/override/";
constexpr size_t kMaxJustificationBytes = 8000;

// A reference as the gateway makes them: "LH-" and letters or digits.
bool IsReference(const std::string& s) {
  return s.size() > 3 && s.size() <= 32 && absl::StartsWith(s, "LH-") &&
         std::all_of(s.begin() + 3, s.end(), [](char c) {
           return absl::ascii_isalnum(static_cast<unsigned char>(c));
         });
}

// A browser's Origin, when sent, must be this server.
bool SameOrigin(const HttpRequest& req) {
  const std::string origin = req.Header("Origin");
  if (origin.empty()) return true;
  const size_t scheme = origin.find("://");
  return scheme != std::string::npos &&
         origin.substr(scheme + 3) == req.Header("Host");
}

std::string LinkMail(const std::string& from, const std::string& to,
                     const std::string& reference, const std::string& link,
                     int64_t until_ms) {
  return absl::StrCat(
      "From: leakhound <", from, ">\nTo: <", to,
      ">\nSubject: Your link to release held message ", reference,
      "\nAuto-Submitted: auto-generated\nContent-Type: text/plain; "
      "charset=utf-8\nMIME-Version: 1.0\n\n",
      "Open this link to see your held message ", reference,
      " and release it with a business justification.\nIt opens once and "
      "works until ",
      FormatTime(until_ms), ".\n\n  ", link,
      "\n\nIf you did not ask for it, ignore this mail.\n");
}

// Why the sender can no longer release `i`'s held mail ("" when they
// can): the offer used, revoked or expired, the mail released or deleted
// by a reviewer, or the incident resolved as a confirmed leak.
std::string Closed(const Incident& i, int64_t now_ms) {
  const IncidentOverride& o = i.override_offer;
  if (o.state == "used") {
    return absl::StrCat("This message was released on ", FormatTime(o.time_ms),
                        " UTC by ", o.used_by, ".");
  }
  if (o.state != "offered" || now_ms >= o.until_ms || i.mail_state != "held" ||
      i.status == "confirmed") {
    return "This message can no longer be released by its sender. Ask your "
           "security team.";
  }
  return "";
}

}  // namespace

OverrideDesk::OverrideDesk(OverrideDeskOptions options, OverrideDeskHooks hooks,
                           IncidentStore* store, absl::Mutex* store_mu,
                           const Directory* directory, LoginLimiter* limiter)
    : options_(std::move(options)),
      hooks_(std::move(hooks)),
      store_(store),
      store_mu_(store_mu),
      directory_(directory),
      limiter_(limiter) {}

bool OverrideDesk::Owns(const std::string& path) {
  return absl::StartsWith(path, kPrefix) || absl::StartsWith(path, "/coach/");
}

void OverrideDesk::Routes(HttpServer& http, WorkPool* pool) {
  http.Route("GET", "/override/{ref}",
             [this](const auto& q, auto& r) { Show(q, r); });
  http.Route(
      "POST", "/override/{ref}/login",
      [this](const auto& q, auto& r) { Login(q, r); }, pool);
  http.Route("POST", "/override/{ref}/link",
             [this](const auto& q, auto& r) { SendLink(q, r); });
  http.Route("POST", "/override/{ref}/justify",
             [this](const auto& q, auto& r) { Justify(q, r); });
  http.Route("GET", "/coach/{ref}",
             [this](const auto& q, auto& r) { Coach(q, r); });
  http.Route("POST", "/coach/{ref}",
             [this](const auto& q, auto& r) { Coach(q, r); });
}

std::optional<OverrideDesk::Held> OverrideDesk::Find(
    const std::string& reference, const std::string& channel,
    HttpResponse& res) {
  std::optional<Held> held;
  if (IsReference(reference)) {
    IncidentFilter f;
    f.reference = reference;
    f.limit = 1;
    absl::MutexLock lock(store_mu_);
    auto rows = store_->List(f);
    if (!rows.ok()) {
      SendHtml(res, HttpStatusOf(rows.status()),
               OverrideEndPage("Not now",
                               "The desk cannot be read now. Try "
                               "again in a few minutes."));
      return std::nullopt;
    }
    if (!rows->empty()) {
      auto incident = store_->Get(rows->front().id);
      if (incident.ok() && !incident->override_offer.kind.empty() &&
          ChannelOf(incident->source) == channel) {
        held = Held{*std::move(incident), reference};
      }
    }
  }
  if (!held) {
    SendHtml(res, 404,
             OverrideEndPage("No such held message",
                             "No message can be released under this "
                             "reference. Check the link in your notice."));
  }
  return held;
}

std::optional<ConsoleSession> OverrideDesk::SenderSession(
    const HttpRequest& req, const std::string& reference) {
  auto s = sessions_.Find(CookieValue(req, kSenderCookie), ConsoleClock::now());
  if (!s || s->credential != reference) return std::nullopt;
  return s;
}

bool OverrideDesk::FormTokenOk(const HttpRequest& req) const {
  const std::string cookie = CookieValue(req, kFormCookie);
  return !cookie.empty() && TokensEqual(req.Field("csrf"), cookie) &&
         SameOrigin(req);
}

void OverrideDesk::LoginPage(HttpResponse& res, const std::string& reference,
                             int status, const std::string& error,
                             const std::string& notice) {
  const std::string token = RandomToken();
  res.SetHeader("Set-Cookie",
                absl::StrCat(kFormCookie, "=", token, "; Path=/override",
                             hooks_.cookie_attributes));
  OverrideLoginOptions ways;
  ways.directory = directory_ != nullptr;
  ways.links = !options_.link_key.empty() && !options_.public_url.empty() &&
               !options_.sendmail.empty();
  SendHtml(res, status,
           OverrideLoginPage(reference, token, ways, error, notice));
}

void OverrideDesk::OpenSession(const Held& held, const std::string& who,
                               HttpResponse& res) {
  const ConsoleSession s =
      sessions_.Create(who, "sender", held.reference, ConsoleClock::now());
  res.SetHeader("Set-Cookie",
                absl::StrCat(kSenderCookie, "=", s.id, "; Path=/override",
                             hooks_.cookie_attributes));
  res.SetRedirect(absl::StrCat(kPrefix, held.reference), 303);
}

void OverrideDesk::Show(const HttpRequest& req, HttpResponse& res) {
  const std::string reference = req.matches[1];
  auto held = Find(reference, "mail", res);
  if (!held) return;
  const Incident& i = held->incident;
  if (const std::string token = req.Query("t"); !token.empty()) {
    auto nonce = options_.link_key.empty()
                     ? absl::PermissionDeniedError("links are off")
                     : VerifyOverrideLink(options_.link_key, token, reference,
                                          i.sender, NowUnixMs());
    if (!nonce.ok()) {
      hooks_.log(absl::StrCat("override link refused for ", reference, ": ",
                              nonce.status().message()));
      return LoginPage(res, reference, 403,
                       absl::StrCat(nonce.status().message(), "."), "");
    }
    absl::StatusOr<bool> first;
    {
      absl::MutexLock lock(store_mu_);
      first = store_->ConsumeOverrideLink(*nonce, i.id);
    }
    if (!first.ok() || !*first) {
      return LoginPage(res, reference, 403,
                       first.ok() ? "This link was opened already: a link "
                                    "opens once. Ask for a new one below."
                                  : "The desk cannot be read now.",
                       "");
    }
    return OpenSession(*held, absl::StrCat(i.sender, " (one-time link)"), res);
  }
  auto session = SenderSession(req, reference);
  if (!session) return LoginPage(res, reference, 200, "", "");
  const IncidentOverride& o = i.override_offer;
  if (const std::string closed = Closed(i, NowUnixMs()); !closed.empty()) {
    return SendHtml(res, o.state == "used" ? 200 : 410,
                    OverrideEndPage("Not available", closed));
  }
  OverrideView view{reference, i.subject, i.recipients, o.rule,
                    "",        i.time_ms, o.until_ms,   o.min_chars};
  if (auto it = options_.rule_texts.find(o.rule);
      it != options_.rule_texts.end()) {
    view.rule_text = it->second;
  }
  SendHtml(res, 200, OverrideFormPage(view, session->csrf, session->user, ""));
}

void OverrideDesk::Login(const HttpRequest& req, HttpResponse& res) {
  const std::string reference = req.matches[1];
  if (!FormTokenOk(req)) {
    return LoginPage(res, reference, 403, "The form expired. Try again.", "");
  }
  auto held = Find(reference, "mail", res);
  if (!held) return;
  if (directory_ == nullptr) {
    return LoginPage(res, reference, 404, "There is no directory login.", "");
  }
  const std::string user(absl::StripAsciiWhitespace(req.Field("user")));
  const std::string client = hooks_.client_address(req);
  const auto now = ConsoleClock::now();
  if (!limiter_->Allowed(client, user, now)) {
    return LoginPage(res, reference, 429,
                     "Too many failed logins. Wait a few minutes.", "");
  }
  auto account = directory_->Login(user, req.Field("password"), {});
  if (!account.ok()) {
    if (!absl::IsPermissionDenied(account.status())) {
      hooks_.log(absl::StrCat("sender login: ", account.status().message()));
      return LoginPage(res, reference, 503,
                       "The directory cannot be reached. Try again later.", "");
    }
    limiter_->Failed(client, user, now);
    return LoginPage(res, reference, 401, "Wrong user or password.", "");
  }
  limiter_->Succeeded(user);
  const std::string sender = absl::AsciiStrToLower(held->incident.sender);
  if (std::find(account->mail.begin(), account->mail.end(), sender) ==
      account->mail.end()) {
    hooks_.log(absl::StrCat("override of ", reference, " refused: '",
                            LogField(user), "' is not its sender"));
    absl::MutexLock lock(store_mu_);
    store_
        ->Audit(user, "override refused", held->incident.id,
                absl::StrCat("not the sender, from ", client))
        .IgnoreError();
    return LoginPage(res, reference, 403,
                     "You did not send this message: only its sender can "
                     "release it.",
                     "");
  }
  OpenSession(*held, absl::StrCat(sender, " (directory login ", user, ")"),
              res);
}

void OverrideDesk::SendLink(const HttpRequest& req, HttpResponse& res) {
  const std::string reference = req.matches[1];
  if (!FormTokenOk(req)) {
    return LoginPage(res, reference, 403, "The form expired. Try again.", "");
  }
  auto held = Find(reference, "mail", res);
  if (!held) return;
  if (options_.link_key.empty() || options_.public_url.empty() ||
      options_.sendmail.empty()) {
    return LoginPage(res, reference, 404, "This console mails no links.", "");
  }
  const auto now = ConsoleClock::now();
  {
    absl::MutexLock lock(&links_mu_);
    auto it = mailed_.find(reference);
    if (it != mailed_.end() && now - it->second < std::chrono::minutes(1)) {
      return LoginPage(res, reference, 429, "",
                       "A link was mailed a moment ago: wait for it.");
    }
    if (mailed_.size() > 10'000) mailed_.clear();
    mailed_[reference] = now;
  }
  const Incident& i = held->incident;
  const OverrideLinkClaims claims{reference, i.sender,
                                  i.override_offer.until_ms, RandomToken()};
  const std::string link =
      absl::StrCat(options_.public_url, kPrefix, reference,
                   "?t=", SignOverrideLink(options_.link_key, claims));
  const absl::Status sent = SendMail(
      options_.sendmail, i.sender,
      LinkMail(options_.from, i.sender, reference, link, claims.expires_ms));
  hooks_.log(absl::StrCat("override link for ", reference, ": ",
                          sent.ok() ? "mailed" : sent.message()));
  if (!sent.ok()) {
    return LoginPage(res, reference, 503, "The link could not be mailed now.",
                     "");
  }
  LoginPage(res, reference, 200, "",
            "A one-time link was mailed to the address this message was "
            "sent from.");
}

void OverrideDesk::Justify(const HttpRequest& req, HttpResponse& res) {
  const std::string reference = req.matches[1];
  auto session = SenderSession(req, reference);
  if (!session || !TokensEqual(req.Field("csrf"), session->csrf) ||
      !SameOrigin(req)) {
    return LoginPage(res, reference, 403,
                     "Your session has ended. Prove again that you sent "
                     "the message.",
                     "");
  }
  auto held = Find(reference, "mail", res);
  if (!held) return;
  if (const std::string closed = Closed(held->incident, NowUnixMs());
      !closed.empty()) {
    return SendHtml(res, 409, OverrideEndPage("Not available", closed));
  }
  IncidentOverride use;
  use.used_by = session->user;
  use.text =
      std::string(absl::StripAsciiWhitespace(req.Field("justification")));
  use.address = hooks_.client_address(req);
  use.time_ms = NowUnixMs();
  if (use.text.size() > kMaxJustificationBytes) use.text.clear();
  absl::Status used;
  {
    absl::MutexLock lock(store_mu_);
    used = store_->UseOverride(held->incident.id, use);
  }
  if (!used.ok()) {
    hooks_.log(
        absl::StrCat("override of ", reference, " refused: ", used.message()));
    return SendHtml(
        res, HttpStatusOf(used),
        OverrideEndPage("Not released",
                        absl::StrCat("Not released: ", used.message(), ".")));
  }
  auto released = hooks_.release(held->incident.id, use.used_by);
  sessions_.Erase(session->id);
  hooks_.log(absl::StrCat(
      "override of ", reference, " by ", LogField(use.used_by), ": ",
      released.ok() ? *released : released.status().message()));
  if (!released.ok()) {
    return SendHtml(
        res, 502,
        OverrideEndPage("Recorded, not released yet",
                        "Your justification is recorded, but the message "
                        "could not be released now. Your security team "
                        "sees it and can release it."));
  }
  SendHtml(res, 200,
           OverrideEndPage("Released",
                           "Your message was released to its recipients. "
                           "Your justification is recorded for review."));
}

}  // namespace leakhound

namespace leakhound {
namespace {

// `text` inside a JSON string: our own messages, with quotes and
// backslashes escaped and control characters dropped.
std::string JsonText(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

}  // namespace

void OverrideDesk::Coach(const HttpRequest& req, HttpResponse& res) {
  const std::string reference = req.matches[1];
  const bool json =
      absl::StrContains(absl::AsciiStrToLower(req.Header("Accept")), "json");
  const auto reply = [&](int status, bool granted, const std::string& text) {
    if (!json) {
      return SendHtml(
          res, status,
          OverrideEndPage(granted ? "Granted" : "Not granted", text));
    }
    res.status = status;
    res.SetContent(absl::StrCat("{\"granted\":", granted ? "true" : "false",
                                ",\"incident\":\"", reference,
                                "\",\"message\":\"", JsonText(text), "\"}\n"),
                   "application/json");
  };
  auto held = Find(reference, "web", res);
  if (!held) return;
  const Incident& i = held->incident;
  const IncidentOverride& o = i.override_offer;
  const std::string token = req.Query("t");
  if (token.empty() || o.token_hash.empty() ||
      !TokensEqual(absl::BytesToHexString(ContentDigest(token)),
                   o.token_hash)) {
    hooks_.log(absl::StrCat("coaching of ", reference, " refused: bad token"));
    return reply(403, false, "This link is not valid for this upload.");
  }
  const int64_t minutes = (o.until_ms - i.time_ms) / 60'000;
  const std::string retry = absl::StrCat(
      "You may send the same upload again, once, within ", minutes,
      " minutes. It is recorded and reviewed by your security team.");
  if (o.state == "used") return reply(200, true, retry);
  if (o.state != "offered" || NowUnixMs() >= o.until_ms) {
    return reply(410, false,
                 "This upload can no longer be let through. Ask your "
                 "security team.");
  }
  if (req.method == "GET") {
    return SendHtml(res, 200,
                    CoachPage(reference, token, o.kind, o.min_chars, minutes));
  }
  IncidentOverride use;
  use.used_by = i.sender;
  use.text =
      std::string(absl::StripAsciiWhitespace(req.Field("justification")));
  if (use.text.size() > kMaxJustificationBytes) use.text.clear();
  use.address = hooks_.client_address(req);
  use.time_ms = NowUnixMs();
  absl::Status used;
  {
    absl::MutexLock lock(store_mu_);
    used = store_->UseOverride(i.id, use);
  }
  hooks_.log(absl::StrCat("coaching of ", reference, " for ",
                          LogField(i.sender), ": ",
                          used.ok() ? "granted" : used.message()));
  if (!used.ok()) {
    return reply(HttpStatusOf(used), false,
                 absl::StrCat("Not granted: ", used.message(), "."));
  }
  reply(200, true, retry);
}

}  // namespace leakhound
