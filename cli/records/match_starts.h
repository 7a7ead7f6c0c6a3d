// Where matches of three built-in patterns begin, found from where they
// end. Hyperscan's start-of-match tracking (HS_FLAG_SOM_LEFTMOST) was most
// of a records scan's time on number-dense text: the IBAN, e-mail and
// phone-candidate patterns scan 2.8 to 3.8 times faster without it
// (docs/records.md, "Measured"). The pattern scanner compiles these
// patterns without it and asks these functions for each match's leftmost
// start, which is what Hyperscan would have reported
// (tests/cli/records/match_starts_test.cc compares the two on random
// texts).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_RECORDS_MATCH_STARTS_H_
#define LEAKHOUND_CLI_RECORDS_MATCH_STARTS_H_

#include <cstdint>
#include <string_view>

#include "cli/records/data_identifiers.h"
#include "cli/records/pattern_scanner.h"

namespace leakhound {

// Candidates of a phone column: digits with the separators phone numbers
// are written with, the longest run first (DataScanner splits it).
inline constexpr std::string_view kPhoneCandidatePattern =
    R"(\+?\(?\d[\d ().\-/]{5,22}\d\b)";

// The leftmost start of a match of ValidatorPattern(Validator::kIban),
// ValidatorPattern(Validator::kEmail) or kPhoneCandidatePattern that ends
// at byte `end` (exclusive). REQUIRES: such a match ends there (Hyperscan
// reported it); otherwise the result is `end`.
uint32_t IbanStart(std::string_view text, uint32_t end);
uint32_t EmailStart(std::string_view text, uint32_t end);
uint32_t PhoneCandidateStart(std::string_view text, uint32_t end);

// The function for ValidatorPattern(v), or null where Hyperscan's own
// start tracking is kept (it costs little for those patterns).
MatchStart ValidatorPatternStart(Validator v);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_MATCH_STARTS_H_
