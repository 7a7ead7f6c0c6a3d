#include "cli/commands/case_escalation.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/gateway/directory_groups.h"
#include "cli/gateway/sendmail.h"

namespace leakhound {
namespace {

constexpr int64_t kHourMs = 3'600'000;

// The open cases `rule` escalates now: new or in review, of its
// severities, older than its hours (unowned ones for unowned_hours).
absl::StatusOr<std::vector<Incident>> Due(const EscalationRule& rule,
                                          IncidentStore& store,
                                          int64_t now_ms) {
  std::vector<Incident> out;
  std::vector<std::string> severities;
  for (const Severity s : rule.severities)
    severities.push_back(SeverityName(s));
  if (severities.empty()) severities.push_back("");
  for (const char* workflow : {"new", "in-review"}) {
    for (const std::string& severity : severities) {
      for (const bool unowned : {true, false}) {
        const std::optional<uint32_t> hours =
            unowned ? rule.unowned_hours : rule.unresolved_hours;
        if (!hours) continue;
        IncidentFilter f;
        f.workflow = workflow;
        f.severity = severity;
        f.until_ms = now_ms - int64_t{*hours} * kHourMs;
        if (unowned) f.owner = "";
        f.limit = 10'000;
        auto rows = store.List(f);
        if (!rows.ok()) return rows.status();
        for (Incident& i : *rows) {
          const bool seen =
              std::any_of(out.begin(), out.end(),
                          [&](const Incident& o) { return o.id == i.id; });
          if (!seen) out.push_back(std::move(i));
        }
      }
    }
  }
  return out;
}

std::string EscalationMail(const EscalationRule& rule,
                           const std::vector<Incident>& cases,
                           const EscalationRun& run, const std::string& to) {
  std::string body = absl::StrCat(
      cases.size(), cases.size() == 1 ? " case was" : " cases were",
      " escalated by rule '", rule.name, "':\n\n");
  for (const Incident& i : cases) {
    absl::StrAppend(
        &body, i.reference, "  ", i.severity.empty() ? "-" : i.severity, "  ",
        i.workflow, i.owner.empty() ? ", nobody's" : ", owner " + i.owner, "  ",
        FormatTime(i.time_ms), " UTC\n  from ", IncidentOrigin(i), "\n");
    if (!run.console_url.empty()) {
      absl::StrAppend(&body, "  ", run.console_url, "/incidents/", i.id, "\n");
    }
  }
  return absl::StrCat("From: leakhound <", run.from, ">\nTo: <", to,
                      ">\nSubject: leakhound: ", cases.size(),
                      " cases escalated (", rule.name,
                      ")\nAuto-Submitted: auto-generated\nContent-Type: "
                      "text/plain; charset=utf-8\nMIME-Version: 1.0\n\n",
                      body);
}

}  // namespace

std::vector<std::string> PolicyMailboxes(const Policy& policy,
                                         const std::vector<std::string>& notify,
                                         std::vector<std::string>* not_told) {
  std::set<std::string> out;
  for (const std::string& n : notify) {
    if (!n.starts_with("group:")) {
      out.insert(n);
      continue;
    }
    const std::string group = n.substr(6);
    if (auto dn = policy.directory_groups.find(group);
        dn != policy.directory_groups.end() && policy.directory) {
      auto directory = OpenDirectory(*policy.directory);
      auto members =
          directory.ok()
              ? directory->GroupMembers(dn->second)
              : absl::StatusOr<std::vector<std::string>>(directory.status());
      if (!members.ok()) {
        not_told->push_back(absl::StrCat(n, ": ", members.status().message()));
        continue;
      }
      out.insert(members->begin(), members->end());
      continue;
    }
    if (auto it = policy.groups.find(group); it != policy.groups.end()) {
      for (const std::string& m : it->second) {
        if (!m.starts_with('@')) out.insert(m);  // "@domain" is no mailbox
      }
    }
  }
  return std::vector<std::string>(out.begin(), out.end());
}

absl::StatusOr<std::vector<EscalationOutcome>> RunEscalations(
    const Policy& policy, IncidentStore& store, const EscalationRun& run) {
  std::vector<EscalationOutcome> out;
  for (const EscalationRule& rule : policy.escalations) {
    auto due = Due(rule, store, run.now_ms);
    if (!due.ok()) return due.status();
    EscalationOutcome o;
    o.rule = rule.name;
    if (due->empty()) {
      out.push_back(std::move(o));
      continue;
    }
    const std::vector<std::string> to =
        PolicyMailboxes(policy, rule.notify, &o.not_told);
    const std::string who = absl::StrJoin(rule.notify, ", ");
    for (Incident& i : *due) {
      absl::Status s = store.Escalate(i.id, who, "rule " + rule.name,
                                      "escalation:" + rule.name);
      if (!s.ok()) return s;
      o.references.push_back(i.reference);
    }
    for (const std::string& mailbox : to) {
      const absl::Status sent =
          run.sendmail.empty()
              ? absl::FailedPreconditionError("no --sendmail")
              : SendMail(run.sendmail, mailbox,
                         EscalationMail(rule, *due, run, mailbox));
      if (sent.ok()) {
        o.told.push_back(mailbox);
      } else {
        o.not_told.push_back(absl::StrCat(mailbox, ": ", sent.message()));
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace leakhound
