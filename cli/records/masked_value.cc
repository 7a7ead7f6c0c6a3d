#include "cli/records/masked_value.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// One character of a value: its bytes (a UTF-8 sequence) and whether it
// is a letter or digit (every non-ASCII character counts as a letter).
struct Char {
  std::string_view bytes;
  bool alnum = false;
  bool digit = false;
};

std::vector<Char> CharsOf(std::string_view value) {
  std::vector<Char> out;
  for (size_t k = 0; k < value.size();) {
    size_t n = 1;
    while (k + n < value.size() &&
           (static_cast<unsigned char>(value[k + n]) & 0xC0) == 0x80) {
      ++n;
    }
    const auto lead = static_cast<unsigned char>(value[k]);
    out.push_back({value.substr(k, n),
                   lead >= 0x80 || absl::ascii_isalnum(lead),
                   absl::ascii_isdigit(lead)});
    k += n;
  }
  return out;
}

// `value` with every letter or digit but those `keep(i, count)` names
// replaced by '*', separators kept; `i` counts letters and digits (only
// digits when `digits_only`, whose letters are masked).
template <typename Keep>
std::string MaskExcept(std::string_view value, bool digits_only, Keep keep) {
  const std::vector<Char> chars = CharsOf(value);
  size_t count = 0;
  for (const Char& c : chars) {
    if (digits_only ? c.digit : c.alnum) ++count;
  }
  std::string out;
  size_t seen = 0;
  for (const Char& c : chars) {
    if (!c.alnum) {
      out.append(c.bytes);
      continue;
    }
    const bool counted = digits_only ? c.digit : true;
    const bool kept = counted && keep(seen, count);
    if (counted) ++seen;
    out.append(kept ? c.bytes : std::string_view("*"));
  }
  return out;
}

// The year of a date (a run of exactly four digits), or "".
std::string YearOf(std::string_view value) {
  for (size_t k = 0; k + 4 <= value.size(); ++k) {
    const bool run = absl::ascii_isdigit(static_cast<unsigned char>(value[k])) &&
                     (k == 0 || !absl::ascii_isdigit(
                                    static_cast<unsigned char>(value[k - 1])));
    if (!run) continue;
    size_t n = 0;
    while (k + n < value.size() &&
           absl::ascii_isdigit(static_cast<unsigned char>(value[k + n]))) {
      ++n;
    }
    if (n == 4) return std::string(value.substr(k, 4));
    k += n;
  }
  return "";
}

// Initials: the first character of each word, with a dot.
std::string Initials(std::string_view value) {
  std::string out;
  bool in_word = false;
  for (const Char& c : CharsOf(value)) {
    if (!c.alnum) {
      in_word = false;
      continue;
    }
    if (!in_word) {
      if (!out.empty()) out += ' ';
      out.append(c.bytes);
      out += '.';
    }
    in_word = true;
  }
  return out;
}

}  // namespace

std::string MaskedValue(std::string_view value, CellType type) {
  switch (type) {
    case CellType::kCard:
      return MaskExcept(value, true, [](size_t i, size_t n) {
        return n >= 13 && (i < 6 || i + 4 >= n);
      });
    case CellType::kPhone:
      return MaskExcept(value, true, [](size_t i, size_t n) {
        return n >= 7 && i + 3 >= n;
      });
    case CellType::kIban:
      return MaskExcept(value, false, [](size_t i, size_t n) {
        return n >= 15 && (i < 2 || i + 4 >= n);
      });
    case CellType::kEmail: {
      const size_t at = value.rfind('@');
      if (at == std::string_view::npos || at == 0) {
        return MaskExcept(value, false, [](size_t, size_t) { return false; });
      }
      std::string out(CharsOf(value).front().bytes);
      out += "***";
      out.append(value.substr(at));
      return out;
    }
    case CellType::kDate: {
      // A fixed shape: not even the month's length shows.
      const std::string year = YearOf(value);
      return absl::StrCat("**-**-", year.empty() ? "****" : year);
    }
    case CellType::kName:
      return Initials(value);
    case CellType::kNationalId:
    case CellType::kText:
      break;
  }
  return MaskExcept(value, false, [](size_t, size_t) { return false; });
}

}  // namespace leakhound
