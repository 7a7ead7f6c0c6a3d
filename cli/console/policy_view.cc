#include "cli/console/policy_view.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cli/gateway/desk_policy.h"
#include "cli/policy/policy_file.h"
#include "cli/policy/policy_lint.h"

namespace leakhound {

absl::StatusOr<PolicyView> ReadPolicyView(IncidentStore& store,
                                          const std::string& policy_file) {
  PolicyView view;
  view.path = policy_file;
  auto versions = store.PolicyVersions(50);
  auto nodes = store.Nodes();
  if (!versions.ok()) return versions.status();
  if (!nodes.ok()) return nodes.status();
  view.versions = *std::move(versions);
  view.nodes = *std::move(nodes);
  if (view.path.empty()) return view;
  absl::StatusOr<std::string> text;
  if (policy_file == kDeskPolicy) {
    auto latest = store.GetPolicyVersion(0);
    if (latest.ok()) view.path = absl::StrCat("desk v", latest->version);
    text = latest.ok() ? absl::StatusOr<std::string>(latest->body)
                       : latest.status();
  } else {
    text = ReadPolicyText(view.path);
  }
  if (!text.ok()) {
    view.error = std::string(text.status().message());
    return view;
  }
  view.text = *text;
  PolicyReport report = CheckPolicy(*text, view.path);
  if (!report.errors.empty()) view.error = report.errors.front();
  if (!report.policy) return view;
  for (const PolicyFinding& f : LintPolicy(*report.policy, nullptr)) {
    view.warnings.push_back(f.message);
  }
  for (const PolicyRule& r : report.policy->rules) {
    IncidentFilter f;
    f.rule = r.name;
    auto n = store.Count(f);
    if (!n.ok()) return n.status();
    view.rules.push_back({r.name, r.monitor ? "monitor" : "enforce",
                          DispositionName(r.disposition),
                          SeverityName(r.severity), r.line, *n});
  }
  return view;
}

}  // namespace leakhound
