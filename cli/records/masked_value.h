// Masked values: how evidence shows a value from a protected table in an
// incident, a scan's output, a notice or a SIEM event. Viewers and the
// SIEM see it, so a mask must not give the value away: four characters at
// each end of a written-out date or a name did ("17 Ma*** 1984",
// "Zeld* ******gton"). Each type keeps only what its own trade shows.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_RECORDS_MASKED_VALUE_H_
#define LEAKHOUND_CLI_RECORDS_MASKED_VALUE_H_

#include <string>
#include <string_view>

#include "cli/records/record_schema.h"

namespace leakhound {

// `value` masked for display by what it is, so that evidence shows where
// a value was without giving it away (viewers and the SIEM see it):
//  - kCard: the first 6 and last 4 digits, as PCI DSS allows;
//  - kEmail: the first character and the domain ("a***@corp.example");
//  - kPhone: the last 3 digits; kIban: the country and the last 4;
//  - kDate: the year only ("** *** 1984"), or nothing without one;
//  - kName: initials only ("Z. H.");
//  - anything else (kNationalId, kText): every letter and digit masked.
// Separators are kept where letters and digits are masked.
std::string MaskedValue(std::string_view value, CellType type);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_MASKED_VALUE_H_
