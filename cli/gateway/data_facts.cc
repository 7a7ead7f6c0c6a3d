#include "cli/gateway/data_facts.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

void AddCount(std::vector<std::pair<std::string, uint32_t>>& counts,
              const std::string& name, uint32_t n) {
  for (auto& [k, v] : counts) {
    if (k == name) {
      v += n;
      return;
    }
  }
  counts.emplace_back(name, n);
}

bool Defined(const std::vector<IdentifierSpec>& specs, std::string_view name) {
  return std::any_of(specs.begin(), specs.end(),
                     [&](const IdentifierSpec& s) { return s.name == name; });
}

absl::Status CheckNamed(const Policy& policy, const PolicyConditions& c,
                        int line, const std::vector<IdentifierSpec>& specs) {
  for (const auto& [name, n] : c.identifiers) {
    if (!Defined(specs, name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          policy.path, ":", line, ": identifiers: no identifier '", name,
          "' (built in: card, iban, email, phone, us_ssn, uk_nino, "
          "cn_resident_id; or define it with [[identifier]])"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<IdentifierSpec>> PolicyIdentifiers(
    const Policy* policy) {
  std::vector<IdentifierSpec> specs = BuiltInIdentifiers();
  if (policy == nullptr) return specs;
  for (const IdentifierDefinition& d : policy->identifiers) {
    const std::string where = absl::StrCat(policy->path, ":", d.line, ": ");
    const std::optional<Validator> v = ValidatorNamed(d.validator);
    if (!v) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "identifier '", d.name, "': unknown validator '", d.validator,
          "' (none, card or luhn, iban or mod97, email, phone, "
          "us_ssn, uk_nino, cn_resident_id)"));
    }
    if (Defined(specs, d.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "identifier '", d.name, "' is defined already"));
    }
    specs.push_back(
        {d.name, d.pattern, d.caseless, *v, d.keywords, d.keyword_distance});
  }
  for (const PolicyRule& rule : policy->rules) {
    absl::Status s = CheckNamed(*policy, rule.when, rule.line, specs);
    for (const PolicyConditions& u : rule.unless) {
      if (s.ok()) s = CheckNamed(*policy, u, rule.line, specs);
    }
    if (!s.ok()) return s;
  }
  return specs;
}

void AddDataFacts(const DataFindings& found, VerdictFacts* facts) {
  for (const RecordMatch& r : found.records)
    AddCount(facts->records, r.table, 1);
  for (const IdentifierCount& c : found.identifiers) {
    AddCount(facts->identifiers, c.name, c.distinct);
  }
}

}  // namespace leakhound
