#include "cli/web/web_channel.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/message_verdict.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_evaluator.h"
#include "engine/content_digest.h"

namespace leakhound {
namespace {

// A judged request: the verdict, the policy in force and its decision,
// and what is done.
struct Judged {
  MessageVerdict v;
  std::shared_ptr<const Policy> policy;
  PolicyDecision decision;  // points into *policy
  Disposition action = Disposition::kLog;
  std::string why;
  std::string reference;
  // Coaching (docs/overrides.md): the body's SHA-256 (hex; "" when no rule
  // offers an override), the block page's secret token when one is
  // offered, and the grant a retry took.
  std::string digest;
  std::string token;
  std::optional<WebGrant> granted;
};

// What a grant is bound to: the SHA-256 (hex) of the body, with a
// multipart body's boundary taken out (a browser sending the same form
// again draws a new one; the fields, the files and their order stay).
std::string BodyDigest(const HttpRequestBody& body) {
  const std::string type = absl::AsciiStrToLower(body.content_type);
  const size_t at = type.find("boundary=");
  if (type.find("multipart/") == std::string::npos || at == std::string::npos) {
    return absl::BytesToHexString(ContentDigest(body.body));
  }
  // The boundary as sent (its case kept), without quotes.
  std::string boundary = body.content_type.substr(at + 9);
  boundary = boundary.substr(0, boundary.find(';'));
  if (boundary.size() >= 2 && boundary.front() == '"') {
    boundary = boundary.substr(1, boundary.size() - 2);
  }
  if (boundary.empty()) return absl::BytesToHexString(ContentDigest(body.body));
  return absl::BytesToHexString(
      ContentDigest(absl::StrReplaceAll(body.body, {{boundary, ""}})));
}

// Whether some rule of `policy` offers an override (then a body's digest
// is taken before it is scanned).
bool Coaches(const Policy& policy) {
  return std::any_of(
      policy.rules.begin(), policy.rules.end(),
      [](const PolicyRule& r) { return !r.override_offer.kind.empty(); });
}

// A block the deciding rule lets its user override: the retry of a body
// they justified passes once (its grant taken), anything else is blocked
// with the offer. Needs the user (grants are theirs), the digest, the
// console and a store.
void Coach(const WebPolicy& p, const WebRequest& r, const GrantTaker& grants,
           Judged& j) {
  if (!BlocksRequest(j.action) || j.decision.override_rule == nullptr ||
      r.user.empty() || j.digest.empty() || p.console_url.empty() || !grants) {
    return;
  }
  auto grant = grants(r.user, UrlHost(r.url), j.digest);
  if (grant.ok() && grant->has_value()) {
    j.granted = std::move(**grant);
    j.action = Disposition::kLog;
    return;
  }
  j.token = NewSecretToken();
}

// The policy's decision on a scanned request, as the milter's Decide:
// a leak gets the decision's action, an error or unread parts the
// decision's when a rule speaks to them, else the channel's flags'. An
// oversized body is not a content verdict: on_oversize, as for mail.
void Decide(const Gateway& gateway, const WebPolicy& p, const WebRequest& r,
            Judged& j) {
  MessageVerdict& v = j.v;
  j.policy = gateway.policy();
  if (r.oversized) {
    j.action = p.on_oversize;
    j.why = "This upload is too large to be checked for protected content";
    j.reference = NewIncidentReference();
    return;
  }
  const std::string host = UrlHost(r.url);
  Envelope envelope{"web", r.user, {}};
  if (!host.empty()) envelope.recipients.push_back(host);
  if (v.kind == MessageVerdict::Kind::kLeak) {
    j.reference = NewIncidentReference();
  }
  Judgement judged =
      JudgeFacts(*j.policy, gateway.Facts(*j.policy, envelope, j.reference, &v),
                 v.kind, {p.on_error, p.on_unreadable, p.on_unread_limit});
  j.decision = std::move(judged.decision);
  j.action = judged.action;
  if (v.kind == MessageVerdict::Kind::kLeak) {
    j.why = p.block_text;
  } else if (v.kind == MessageVerdict::Kind::kError) {
    j.why = "This upload could not be checked for protected content";
  } else if (!v.unread.empty()) {
    j.why =
        "This upload has parts that could not be checked for protected "
        "content";
  }
  if (j.reference.empty() && Eventful(v, j.decision)) {
    j.reference = NewIncidentReference();
  }
}

// `text` as a JSON string's contents (RFC 8259): quotes, backslashes and
// control characters escaped; other bytes as they are.
std::string JsonEscaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", byte);
    } else {
      out += c;
    }
  }
  return out;
}

// Whether the client wants JSON back: it asked for it (Accept) or sent
// JSON without asking for HTML, as a chat application's fetch() does.
bool WantsJson(const WebRequest& r) {
  const std::string accept = absl::AsciiStrToLower(r.accept);
  const std::string type = absl::AsciiStrToLower(r.body.content_type);
  if (accept.find("text/html") != std::string::npos) return false;
  return accept.find("json") != std::string::npos ||
         type.find("json") != std::string::npos;
}

// The block page: the rule's text (or the channel's), the incident's
// reference and rule, and where to ask for help; HTML or JSON.
void FillPage(const WebPolicy& p, const WebRequest& r, const Judged& j,
              WebAnswer* a) {
  const PolicyRule* rule = j.decision.deciding;
  const std::string text =
      rule != nullptr && !rule->reject_text.empty() ? rule->reject_text : j.why;
  const std::string help =
      j.policy != nullptr && !j.policy->help_url.empty()
          ? absl::StrCat("To ask for release, see ", j.policy->help_url,
                         " and name the incident.")
          : "Ask your security team for help, naming the incident.";
  a->status = j.action == Disposition::kTempfail ? 503 : 403;
  const OverrideSettings* offer =
      j.token.empty() ? nullptr : &j.decision.override_rule->override_offer;
  const std::string grant_url =
      offer == nullptr
          ? ""
          : absl::StrCat(p.console_url, "/coach/", j.reference, "?t=", j.token);
  if (WantsJson(r)) {
    a->content_type = "application/json";
    std::string coach;
    if (offer != nullptr) {
      coach = absl::StrCat(",\"override\":{\"kind\":\"", offer->kind,
                           "\",\"url\":\"", JsonEscaped(grant_url),
                           "\",\"field\":\"justification\","
                           "\"min_chars\":",
                           offer->kind == "justify" ? offer->min_chars : 0,
                           ",\"retry_minutes\":", offer->minutes, "}");
    }
    a->page = absl::StrCat(
        "{\"error\":{\"type\":\"leakhound_blocked\",\"message\":\"",
        JsonEscaped(text), "\",\"incident\":\"", JsonEscaped(j.reference),
        "\",\"rule\":\"", JsonEscaped(rule != nullptr ? rule->name : ""),
        "\",\"help\":\"", JsonEscaped(help), "\"", coach, "}}\n");
    return;
  }
  std::string form;
  if (offer != nullptr) {
    const bool justify = offer->kind == "justify";
    form = absl::StrCat(
        "<form method=\"post\" action=\"", Html(grant_url), "\">\n<p>",
        justify ? absl::StrCat("If this upload is part of your work, write "
                               "why it must go (at least ",
                               offer->min_chars, " characters). ")
                : "If this upload is part of your work, confirm it. ",
        "You may then send the same upload again, once, within ",
        offer->minutes,
        " minutes. This is recorded and reviewed by your security "
        "team.</p>\n",
        justify ? absl::StrCat("<textarea name=\"justification\" rows=\"4\" "
                               "cols=\"60\" minlength=\"",
                               offer->min_chars, "\" required></textarea>\n")
                : "",
        "<button type=\"submit\">",
        justify ? "Send my justification" : "I confirm this upload is needed",
        "</button>\n</form>\n");
  }
  a->content_type = "text/html; charset=utf-8";
  a->page = absl::StrCat(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
      "<title>Upload blocked</title></head><body>\n<h1>Upload blocked</h1>\n"
      "<p>",
      Html(text), "</p>\n<p>Incident <strong>", Html(j.reference), "</strong>",
      rule != nullptr ? absl::StrCat(", rule '", Html(rule->name), "'") : "",
      ".</p>\n", form, "<p>", Html(help), "</p>\n</body></html>\n");
}

Incident WebIncident(const WebRequest& r, Judged& j) {
  MessageVerdict& v = j.v;
  Incident incident = JudgedIncident("web", v, j.action, j.reference,
                                     j.policy.get(), j.decision);
  incident.sender = r.user;
  const std::string host = UrlHost(r.url);
  if (!host.empty()) incident.recipients.push_back(host);
  incident.method = r.method;
  incident.url = UrlWithoutCredentials(r.url);
  incident.client = r.client_ip;
  incident.file_size = r.body_bytes;
  incident.detail = v.kind == MessageVerdict::Kind::kError
                        ? v.error
                        : absl::StrJoin(v.unread, ", ");
  IncidentOverride& o = incident.override_offer;
  if (j.granted) {
    // The retry its grant let through: recorded as the override it is.
    o = j.granted->grant;
    o.state = "retried";
    o.token_hash.clear();
    o.time_ms = incident.time_ms;
    o.address = r.client_ip;
    incident.detail = absl::StrCat("let through once by the override of ",
                                   j.granted->reference);
  } else if (!j.token.empty()) {
    o.host = UrlHost(r.url);
    o.digest = j.digest;
    o.token_hash = absl::BytesToHexString(ContentDigest(j.token));
  } else {
    o = IncidentOverride();  // no coaching: no offer
  }
  return incident;
}

// Reviewers named by the deciding rules get the incident in their digest
// (a policy file's only, as for mail).
void Notify(const Gateway& gateway, const WebRequest& r, const Judged& j) {
  Notifier* notifier = gateway.notifier();
  if (notifier == nullptr || j.policy == nullptr ||
      j.policy->path == "(built-in)" || j.reference.empty()) {
    return;
  }
  const PolicyDecision& d = j.decision;
  for (const std::string& reviewer : d.notify) {
    notifier->NotifyReviewer(
        reviewer, {j.reference, d.deciding != nullptr ? d.deciding->name : "",
                   SeverityName(d.severity), DispositionName(j.action), r.user,
                   absl::StrCat(r.method, " ", UrlWithoutCredentials(r.url))});
  }
}

// One log line per request (docs/web-gateway.md, "Running it"): the
// fields a person greps for, the URL's host only.
std::string LogLine(const WebRequest& r, const Judged& j, bool block,
                    double ms) {
  const MessageVerdict& v = j.v;
  std::string line = absl::StrFormat(
      "method=%s host=%s verdict=%s action=%s ms=%.2f scan_ms=%.2f bytes=%d",
      r.method, UrlHost(r.url), VerdictName(v.kind), block ? "block" : "allow",
      ms, v.milliseconds, r.body_bytes);
  if (!j.reference.empty()) absl::StrAppend(&line, " incident=", j.reference);
  if (!j.decision.matches.empty()) {
    absl::StrAppend(&line, " severity=", SeverityName(j.decision.severity));
  }
  if (!v.documents.empty()) {
    absl::StrAppend(&line, " documents=", absl::StrJoin(v.documents, ","));
  }
  if (!v.error.empty()) absl::StrAppend(&line, " error=\"", v.error, "\"");
  return line;
}

}  // namespace

bool BlocksRequest(Disposition d) { return d >= Disposition::kRedirect; }

GrantTaker StoreGrants(std::string store) {
  return [store = std::move(store)](const std::string& user,
                                    const std::string& host,
                                    const std::string& digest)
             -> absl::StatusOr<std::optional<WebGrant>> {
    IncidentStore::Options options;
    options.create = false;
    options.busy_timeout_ms = 2000;
    auto opened = IncidentStore::Open(store, options);
    if (!opened.ok()) return opened.status();
    return (*opened)->TakeWebGrant(user, host, digest, NowUnixMs());
  };
}

std::string UrlWithoutCredentials(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos || scheme == 0) return "";
  const size_t authority = scheme + 3;
  size_t end = url.find_first_of("/?#", authority);
  if (end == std::string_view::npos) end = url.size();
  const size_t at = url.substr(authority, end - authority).rfind('@');
  std::string out(url.substr(0, authority));
  out.append(url.substr(at == std::string_view::npos ? authority
                                                     : authority + at + 1));
  const size_t fragment = out.find('#', authority);
  if (fragment != std::string::npos) out.resize(fragment);
  return out;
}

std::string UrlHost(std::string_view url) {
  const std::string clean = UrlWithoutCredentials(url);
  if (clean.empty()) return "";
  const size_t start = clean.find("://") + 3;
  size_t end = clean.find_first_of("/?#", start);
  if (end == std::string::npos) end = clean.size();
  std::string_view host = std::string_view(clean).substr(start, end - start);
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    host = host.substr(
        1, close == std::string_view::npos ? host.size() - 1 : close - 1);
  } else if (const size_t colon = host.rfind(':');
             colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  return absl::AsciiStrToLower(std::string(host));
}

WebChannel::WebChannel(const Gateway* gateway, WebPolicy policy,
                       IncidentSink record, GrantTaker grants)
    : gateway_(gateway),
      policy_(std::move(policy)),
      record_(std::move(record)),
      grants_(std::move(grants)) {}

WebAnswer WebChannel::Judge(WebRequest request) const {
  const auto start = std::chrono::steady_clock::now();
  Judged j;
  if (request.oversized) {
    j.v.kind = MessageVerdict::Kind::kError;
    j.v.error = absl::StrCat("larger than ", policy_.max_body_bytes, " bytes");
  } else {
    if (Coaches(*gateway_->policy())) {
      j.digest = BodyDigest(request.body);
    }
    // The headers stay with the request (the answer reads them).
    HttpRequestBody body{request.body.content_type,
                         request.body.content_encoding, request.body.url_path,
                         std::move(request.body.body)};
    j.v = gateway_->scanner().ScanExtracted(
        [&body](const ExtractionLimits& limits) {
          return ExtractRequestBody(std::move(body), limits);
        });
  }
  Decide(*gateway_, policy_, request, j);
  Coach(policy_, request, grants_, j);
  WebAnswer answer;
  answer.block = BlocksRequest(j.action);
  answer.reference = j.reference;
  if (answer.block) FillPage(policy_, request, j, &answer);
  Notify(*gateway_, request, j);
  if (record_ && !j.reference.empty()) record_(WebIncident(request, j));
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  answer.log_line = LogLine(request, j, answer.block, ms);
  return answer;
}

}  // namespace leakhound
