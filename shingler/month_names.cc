#include "shingler/month_names.h"

#include <unicode/dtfmtsym.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <string>

#include "absl/container/flat_hash_map.h"

namespace leakhound {
namespace {

constexpr const char* kLocales[] = {"en", "de", "fr", "es", "it", "pt", "nl",
                                    "sv", "da", "nb", "fi", "pl", "cs"};

// `name` case-folded, NFC as ICU gives it, without a trailing dot, UTF-8.
std::string Key(icu::UnicodeString name) {
  name.foldCase();
  name.trim();
  while (name.length() > 0 && name.charAt(name.length() - 1) == u'.') {
    name.truncate(name.length() - 1);
  }
  std::string out;
  name.toUTF8String(out);
  return out;
}

using MonthTable = absl::flat_hash_map<std::string, int>;

void AddNames(const icu::UnicodeString* names, int32_t count, MonthTable& out,
              absl::flat_hash_map<std::string, bool>& clash) {
  for (int32_t m = 0; m < count && m < 12; ++m) {
    const std::string key = Key(names[m]);
    if (key.empty()) continue;
    auto [it, added] = out.try_emplace(key, m + 1);
    if (!added && it->second != m + 1) clash[key] = true;
  }
}

const MonthTable& Months() {
  static const MonthTable* table = [] {
    auto* out = new MonthTable();
    absl::flat_hash_map<std::string, bool> clash;
    for (const char* locale : kLocales) {
      UErrorCode status = U_ZERO_ERROR;
      icu::DateFormatSymbols symbols(icu::Locale(locale), status);
      if (U_FAILURE(status)) continue;
      for (auto context : {icu::DateFormatSymbols::FORMAT,
                           icu::DateFormatSymbols::STANDALONE}) {
        for (auto width : {icu::DateFormatSymbols::WIDE,
                           icu::DateFormatSymbols::ABBREVIATED}) {
          int32_t count = 0;
          const icu::UnicodeString* names =
              symbols.getMonths(count, context, width);
          AddNames(names, count, *out, clash);
        }
      }
    }
    for (const auto& [key, unused] : clash) out->erase(key);
    return out;
  }();
  return *table;
}

}  // namespace

int MonthNumber(std::string_view word) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(word.data(), static_cast<int32_t>(word.size())));
  if (text.countChar32() < 3) return 0;
  const MonthTable& months = Months();
  auto it = months.find(Key(text));
  if (it != months.end()) return it->second;
  // A cut of a name ("sept", "janua"), when every name it begins names
  // one month ("červe" begins June's and July's in Czech: none).
  const std::string key = Key(text);
  int found = 0;
  for (const auto& [name, month] : months) {
    if (name.size() <= key.size() || name.compare(0, key.size(), key) != 0) {
      continue;
    }
    if (found != 0 && found != month) return 0;
    found = month;
  }
  return found;
}

}  // namespace leakhound
