// MonthNumber: the month a written-out month name stands for, in the
// languages a customer table's dates are written in: the wide and
// abbreviated names (format and stand-alone) ICU's DateFormatSymbols has
// for English, German, French, Spanish, Italian, Portuguese, Dutch,
// Swedish, Danish, Norwegian, Finnish, Polish and Czech, case-folded and
// without a trailing dot ("März", "mars", "marzo", "Okt.", "déc"). A name
// two languages give to different months is left out. Lives in shingler/
// because ICU does.
//
// Thread-safety: the table is built once, on first use (a function-local
// static); lookups are reads.
#ifndef LEAKHOUND_SHINGLER_MONTH_NAMES_H_
#define LEAKHOUND_SHINGLER_MONTH_NAMES_H_

#include <string_view>

namespace leakhound {

// 1 to 12, or 0 when `word` (UTF-8, any case) names no month: a name, or
// the beginning of names that all name one month ("Janua", "sept"). Words
// of fewer than 3 characters are not months.
int MonthNumber(std::string_view word);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_MONTH_NAMES_H_
