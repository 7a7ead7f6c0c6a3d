// libFuzzer target for policies: the input is a policy file (up to the
// first NUL) and, after it, the facts of a verdict. The file goes through
// CheckPolicy (toml++ and our reader; every mistake must be an error
// message, never a crash) and LintPolicy; a policy that parses is
// evaluated on the facts, and the decision is checked against its
// definition: the disposition is the most restrictive of the enforcing
// matches' (log when none) and the deciding rule's, what monitor rules
// would do is the most restrictive of theirs, the severity is the
// highest match's, and ExplainRule says "yes" exactly for the rules that
// matched.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/policy/policy_evaluator.h"
#include "cli/policy/policy_file.h"
#include "cli/policy/policy_lint.h"

namespace leakhound {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "policy decision wrong: %s\n", what);
    std::abort();
  }
}

// Addresses and labels drawn from small sets, so that rules can match.
std::string Pick(FuzzedDataProvider& in, const std::vector<std::string>& from) {
  return from[in.ConsumeIntegralInRange<size_t>(0, from.size() - 1)];
}

VerdictFacts Facts(FuzzedDataProvider& in) {
  static const std::vector<std::string> kAddresses = {"a@example.com",
                                                      "b@sub.example.com",
                                                      "c@legal.example.com",
                                                      "x@gmail.com",
                                                      "y@counsel.example",
                                                      "",
                                                      "bad"};
  static const std::vector<std::string> kLabels = {"confidential", "public",
                                                   "hr", "finance", ""};
  static const std::vector<std::string> kChannels = {"mail", "scan", "web"};
  VerdictFacts f;
  f.channel = Pick(in, kChannels);
  f.sender = Pick(in, kAddresses);
  const size_t recipients = in.ConsumeIntegralInRange<size_t>(0, 4);
  for (size_t i = 0; i < recipients; ++i)
    f.recipients.push_back(Pick(in, kAddresses));
  const size_t documents = in.ConsumeIntegralInRange<size_t>(0, 5);
  for (size_t i = 0; i < documents; ++i) {
    MatchedDocument d;
    d.id = in.ConsumeBool() ? "board/memo" + std::to_string(i)
                            : in.ConsumeRandomLengthString(16);
    const size_t labels = in.ConsumeIntegralInRange<size_t>(0, 3);
    for (size_t l = 0; l < labels; ++l) d.labels.push_back(Pick(in, kLabels));
    d.words = in.ConsumeIntegralInRange<uint32_t>(0, 2000);
    d.share = in.ConsumeFloatingPointInRange<double>(0, 1);
    f.documents.push_back(std::move(d));
  }
  f.unread = in.ConsumeBool();
  f.error = in.ConsumeBool();
  f.unread_limit = f.unread && in.ConsumeBool();  // limit is a kind of unread
  return f;
}

void CheckDecision(const Policy& policy, const VerdictFacts& facts) {
  const PolicyDecision d = EvaluatePolicy(policy, facts);
  Disposition enforced = Disposition::kLog, would = Disposition::kLog;
  Severity highest = Severity::kInfo;
  bool any_enforcing = false;
  size_t m = 0;
  for (const PolicyRule& rule : policy.rules) {
    const bool matched = m < d.matches.size() && d.matches[m].rule == &rule;
    const std::string why = ExplainRule(policy, rule, facts);
    Check(matched == why.starts_with("yes"), "explain disagrees");
    if (!matched) continue;
    highest = std::max(highest, d.matches[m].severity);
    Check(d.matches[m].severity >= rule.severity, "severity below the rule's");
    if (rule.monitor) {
      would = std::max(would, rule.disposition);
    } else {
      enforced = any_enforcing ? std::max(enforced, rule.disposition)
                               : rule.disposition;
      any_enforcing = true;
    }
    ++m;
  }
  Check(m == d.matches.size(), "matches out of rule order");
  Check(d.disposition == enforced, "disposition");
  Check(d.would == would, "would");
  Check(d.severity == highest, "severity");
  Check((d.deciding != nullptr) == any_enforcing, "deciding rule");
  if (d.deciding != nullptr) {
    Check(d.deciding->disposition == d.disposition && !d.deciding->monitor,
          "deciding rule's disposition");
  }
}

}  // namespace
}  // namespace leakhound

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  const void* nul = std::memchr(data, 0, size);
  const size_t text_size =
      nul != nullptr
          ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - data)
          : size;
  const leakhound::PolicyReport report =
      leakhound::CheckPolicy(std::string_view(text, text_size), "fuzz.toml");
  for (const std::string& e : report.errors) {
    leakhound::Check(e.starts_with("fuzz.toml:"), "an error without FILE:LINE");
  }
  if (!report.policy) return 0;
  leakhound::LintPolicy(*report.policy, nullptr);
  const size_t rest = text_size < size ? text_size + 1 : size;
  FuzzedDataProvider in(data + rest, size - rest);
  for (int i = 0; i < 4; ++i) {
    leakhound::CheckDecision(*report.policy, leakhound::Facts(in));
  }
  return 0;
}
