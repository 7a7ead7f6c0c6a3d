#include "cli/policy/policy_lint.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace leakhound {
namespace {

// Why `c` can never hold, or "" when it can.
std::string NeverHolds(const PolicyConditions& c) {
  const bool scan_only =
      !c.channels.empty() &&
      std::all_of(c.channels.begin(), c.channels.end(),
                  [](const std::string& ch) { return ch == "scan"; });
  if (scan_only &&
      (c.external_recipient.value_or(false) || !c.recipient_domains.empty() ||
       !c.all_recipient_domains.empty())) {
    return "a scan has no recipients";
  }
  if (scan_only && !c.senders.empty()) return "a scan has no sender";
  if (c.error.value_or(false) && HasDocumentConditions(c)) {
    return "a message that could not be judged has no matched documents";
  }
  const bool exact_ids =
      !c.documents.empty() &&
      std::none_of(c.documents.begin(), c.documents.end(),
                   [](const std::string& d) { return d.ends_with('/'); });
  if (exact_ids && c.min_documents && *c.min_documents > c.documents.size()) {
    return absl::StrCat("min_documents is ", *c.min_documents, " but only ",
                        c.documents.size(), " documents are named");
  }
  return "";
}

}  // namespace

namespace {

// The label and table findings of one set of conditions.
// `never`: what a condition that cannot hold means for the rule.
void CheckNames(const PolicyConditions& c, const IndexNames& index,
                const std::string& at, uint32_t line, const char* never,
                std::vector<PolicyFinding>& out) {
  for (const auto* list : {&c.labels_any, &c.labels_all}) {
    for (const std::string& l : *list) {
      if (!index.labels.contains(l)) {
        out.push_back({false, line,
                       absl::StrCat(at,
                                    ": warning: no protected document has "
                                    "the label '",
                                    l, "'")});
      }
    }
  }
  for (const std::string& t : c.tables) {
    if (!index.tables.contains(t)) {
      out.push_back(
          {true, line,
           absl::StrCat(at, never, ": no protected table '", t,
                        "' (the index has: ",
                        index.tables.empty()
                            ? "none"
                            : absl::StrJoin(index.tables, ", "),
                        ")")});
    }
  }
}

}  // namespace

std::vector<PolicyFinding> LintPolicy(const Policy& policy,
                                      const IndexNames* index) {
  std::vector<PolicyFinding> out;
  if (policy.directory && policy.directory->insecure_plaintext) {
    out.push_back({false, 0,
                   absl::StrCat(policy.path,
                                ": warning: [directory] insecure_plaintext: "
                                "passwords cross the wire to ",
                                policy.directory->url, " in clear")});
  }
  for (const PolicyRule& r : policy.rules) {
    const auto line = static_cast<uint32_t>(r.line);
    const std::string at =
        absl::StrCat(policy.path, ":", r.line, ": rule '", r.name, "'");
    if (std::string why = NeverHolds(r.when); !why.empty()) {
      out.push_back({true, line, absl::StrCat(at, " can never match: ", why)});
    }
    for (const PolicyConditions& u : r.unless) {
      if (NoConditions(u)) {
        out.push_back({true, line,
                       absl::StrCat(at,
                                    " can never match: an exception without "
                                    "conditions excepts everything")});
      }
    }
    if (index == nullptr) continue;
    CheckNames(r.when, *index, at, line, " can never match", out);
    for (const PolicyConditions& u : r.unless) {
      CheckNames(u, *index, at, line, ": an exception can never hold", out);
    }
  }
  return out;
}

}  // namespace leakhound
