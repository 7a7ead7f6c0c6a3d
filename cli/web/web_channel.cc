#include "cli/web/web_channel.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/message_verdict.h"
#include "cli/policy/policy_evaluator.h"

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
};

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
  Judgement judged = JudgeFacts(*j.policy, FactsOf(envelope, v), v.kind,
                                {p.on_error, p.on_unreadable, p.on_unread_limit});
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
  if (Eventful(v, j.decision)) j.reference = NewIncidentReference();
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
void FillPage(const WebRequest& r, const Judged& j, WebAnswer* a) {
  const PolicyRule* rule = j.decision.deciding;
  const std::string text =
      rule != nullptr && !rule->reject_text.empty() ? rule->reject_text : j.why;
  const std::string help =
      j.policy != nullptr && !j.policy->help_url.empty()
          ? absl::StrCat("To ask for release, see ", j.policy->help_url,
                         " and name the incident.")
          : "Ask your security team for help, naming the incident.";
  a->status = j.action == Disposition::kTempfail ? 503 : 403;
  if (WantsJson(r)) {
    a->content_type = "application/json";
    a->page = absl::StrCat(
        "{\"error\":{\"type\":\"leakhound_blocked\",\"message\":\"",
        JsonEscaped(text), "\",\"incident\":\"", JsonEscaped(j.reference),
        "\",\"rule\":\"", JsonEscaped(rule != nullptr ? rule->name : ""),
        "\",\"help\":\"", JsonEscaped(help), "\"}}\n");
    return;
  }
  a->content_type = "text/html; charset=utf-8";
  a->page = absl::StrCat(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
      "<title>Upload blocked</title></head><body>\n<h1>Upload blocked</h1>\n"
      "<p>",
      Html(text), "</p>\n<p>Incident <strong>", Html(j.reference), "</strong>",
      rule != nullptr ? absl::StrCat(", rule '", Html(rule->name), "'") : "",
      ".</p>\n<p>", Html(help), "</p>\n</body></html>\n");
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
                       IncidentSink record)
    : gateway_(gateway),
      policy_(std::move(policy)),
      record_(std::move(record)) {}

WebAnswer WebChannel::Judge(WebRequest request) const {
  const auto start = std::chrono::steady_clock::now();
  Judged j;
  if (request.oversized) {
    j.v.kind = MessageVerdict::Kind::kError;
    j.v.error = absl::StrCat("larger than ", policy_.max_body_bytes, " bytes");
  } else {
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
  WebAnswer answer;
  answer.block = BlocksRequest(j.action);
  answer.reference = j.reference;
  if (answer.block) FillPage(request, j, &answer);
  Notify(*gateway_, request, j);
  if (record_ && !j.reference.empty()) record_(WebIncident(request, j));
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  answer.log_line = LogLine(request, j, answer.block, ms);
  return answer;
}

}  // namespace leakhound
