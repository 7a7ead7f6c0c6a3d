// Data identifiers: kinds of sensitive value recognized by their form and a
// validator, with or without words of context nearby (as Purview's
// sensitive information types and Symantec's data identifiers). Seven are
// built in (BuiltInIdentifiers); the policy file defines more
// ([[identifier]], docs/policy.md), each a pattern, an optional built-in
// validator and optional keywords.
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_CLI_RECORDS_DATA_IDENTIFIERS_H_
#define LEAKHOUND_CLI_RECORDS_DATA_IDENTIFIERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leakhound {

enum class Validator : uint8_t {
  kNone,
  kCard,
  kIban,
  kEmail,
  kPhone,
  kUsSsn,
  kUkNino,
  kCnResidentId,
};

// The policy's spelling ("luhn" and "card" are kCard, "mod97" and "iban"
// kIban, "none"); nullopt if unknown.
std::optional<Validator> ValidatorNamed(std::string_view name);
std::string_view ValidatorName(Validator v);
// Whether `text`, a match of an identifier's pattern, passes `v`.
bool Validate(Validator v, std::string_view text);
// The validator's own pattern (Hyperscan syntax); "" for kNone.
std::string_view ValidatorPattern(Validator v);

struct IdentifierSpec {
  std::string name;     // as conditions name it: "card", "iban", ...
  std::string pattern;  // Hyperscan syntax; empty: the validator's
  bool caseless = false;
  Validator validator = Validator::kNone;
  // Context: a match counts only with one of these words (any case) within
  // keyword_distance words of it. Empty: no context needed.
  std::vector<std::string> keywords;
  uint32_t keyword_distance = 20;

  bool operator==(const IdentifierSpec&) const = default;
};

// card, iban, email, phone, us_ssn, uk_nino, cn_resident_id.
const std::vector<IdentifierSpec>& BuiltInIdentifiers();

// The identifiers of one text: per identifier, its valid matches.
struct IdentifierCount {
  std::string name;
  uint32_t matches = 0;   // valid matches with their context
  uint32_t distinct = 0;  // distinct values among them (normalized)
  // The first few matches' byte ranges, for masked evidence.
  std::vector<std::pair<uint32_t, uint32_t>> examples;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_DATA_IDENTIFIERS_H_
