#include "cli/records/data_validators.h"

#include <algorithm>
#include <cstdint>

namespace leakhound {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

std::string Digits(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (IsDigit(c)) out.push_back(c);
  }
  return out;
}

// Whether `text` holds only digits and the separators in `separators`.
bool OnlyDigitsAnd(std::string_view text, std::string_view separators) {
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return IsDigit(c) || separators.find(c) != std::string_view::npos;
  });
}

// IBAN lengths by country (SWIFT's IBAN registry, release 99, 2025).
struct IbanCountry {
  char code[3];
  int length;
};
constexpr IbanCountry kIbanCountries[] = {
    {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20},
    {"BE", 16}, {"BG", 22}, {"BH", 22}, {"BI", 27}, {"BR", 29}, {"BY", 28},
    {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24}, {"DE", 22}, {"DJ", 27},
    {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18},
    {"FK", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23},
    {"GL", 18}, {"GR", 27}, {"GT", 28}, {"HN", 28}, {"HR", 21}, {"HU", 28},
    {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26}, {"IT", 27}, {"JO", 30},
    {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20},
    {"LU", 20}, {"LV", 21}, {"LY", 25}, {"MC", 27}, {"MD", 24}, {"ME", 22},
    {"MK", 19}, {"MN", 20}, {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NI", 28},
    {"NL", 18}, {"NO", 15}, {"OM", 23}, {"PK", 24}, {"PL", 28}, {"PS", 29},
    {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"RU", 33}, {"SA", 24},
    {"SC", 31}, {"SD", 18}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27},
    {"SO", 23}, {"ST", 25}, {"SV", 28}, {"TL", 23}, {"TN", 24}, {"TR", 26},
    {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20}, {"YE", 30},
};

}  // namespace

std::string AlnumUpper(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (IsDigit(c) || IsUpper(c)) {
      out.push_back(c);
    } else if (c >= 'a' && c <= 'z') {
      out.push_back(static_cast<char>(c - 'a' + 'A'));
    }
  }
  return out;
}

bool LuhnValid(std::string_view digits) {
  if (digits.empty()) return false;
  int sum = 0;
  bool twice = false;
  for (size_t i = digits.size(); i-- > 0;) {
    if (!IsDigit(digits[i])) return false;
    int d = digits[i] - '0';
    if (twice) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

bool PaymentCardValid(std::string_view text) {
  if (!OnlyDigitsAnd(text, " -")) return false;
  // The digits without a copy: candidates are many in number-dense text.
  char digits[19];
  size_t n = 0;
  for (char c : text) {
    if (!IsDigit(c)) continue;
    if (n == sizeof digits) return false;
    digits[n++] = c;
  }
  if (n < 13) return false;
  if (digits[0] < '2' || digits[0] > '6') return false;
  return LuhnValid(std::string_view(digits, n));
}

bool IbanValid(std::string_view text) {
  if (!std::all_of(text.begin(), text.end(), [](char c) {
        return c == ' ' || IsDigit(c) || IsUpper(c) || (c >= 'a' && c <= 'z');
      })) {
    return false;
  }
  // Upper-cased without the spaces, without a copy on the heap.
  char iban[34];
  size_t n = 0;
  for (char c : text) {
    if (c == ' ') continue;
    if (n == sizeof iban) return false;
    iban[n++] = c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  }
  if (n < 15 || !IsUpper(iban[0]) || !IsUpper(iban[1]) || !IsDigit(iban[2]) ||
      !IsDigit(iban[3])) {
    return false;
  }
  const auto country =
      std::find_if(std::begin(kIbanCountries), std::end(kIbanCountries),
                   [&](const IbanCountry& c) {
                     return iban[0] == c.code[0] && iban[1] == c.code[1];
                   });
  if (country == std::end(kIbanCountries) ||
      static_cast<int>(n) != country->length) {
    return false;
  }
  // ISO 7064 MOD 97-10 over the rearranged IBAN, letters as 10..35.
  uint32_t remainder = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = iban[(i + 4) % n];
    const uint32_t v = IsDigit(c) ? static_cast<uint32_t>(c - '0')
                                  : static_cast<uint32_t>(c - 'A' + 10);
    remainder = (v >= 10 ? remainder * 100 : remainder * 10) + v;
    remainder %= 97;
  }
  return remainder == 1;
}

bool UsSsnValid(std::string_view text) {
  if (!OnlyDigitsAnd(text, " -")) return false;
  const std::string d = Digits(text);
  if (d.size() != 9) return false;
  const int area = std::stoi(d.substr(0, 3));
  const int group = std::stoi(d.substr(3, 2));
  const int serial = std::stoi(d.substr(5, 4));
  return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0;
}

bool UkNinoValid(std::string_view text) {
  const std::string n = AlnumUpper(text);
  if (n.size() != 9) return false;
  constexpr std::string_view kNeverFirst = "DFIQUV";
  constexpr std::string_view kNeverSecond = "DFIQUVO";
  if (!IsUpper(n[0]) || !IsUpper(n[1]) ||
      kNeverFirst.find(n[0]) != std::string_view::npos ||
      kNeverSecond.find(n[1]) != std::string_view::npos) {
    return false;
  }
  for (std::string_view bad : {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}) {
    if (n.compare(0, 2, bad) == 0) return false;
  }
  for (int i = 2; i < 8; ++i) {
    if (!IsDigit(n[static_cast<size_t>(i)])) return false;
  }
  return n[8] >= 'A' && n[8] <= 'D';
}

std::optional<std::string> CalendarDate(int year, int month, int day) {
  if (year < 1000 || year > 2999 || month < 1 || month > 12 || day < 1) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int last = month == 2 && leap ? 29 : kDays[month - 1];
  if (day > last) return std::nullopt;
  std::string out(8, '0');
  const int parts[] = {year, month, day};
  size_t at = 8;
  for (int i = 2; i >= 0; --i) {
    int v = parts[i];
    for (int digits = i == 0 ? 4 : 2; digits > 0; --digits) {
      out[--at] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
  }
  return out;
}

bool CnResidentIdValid(std::string_view text) {
  if (text.size() != 18) return false;
  for (size_t i = 0; i < 17; ++i) {
    if (!IsDigit(text[i])) return false;
  }
  const std::string date(text.substr(6, 8));
  if (!CalendarDate(std::stoi(date.substr(0, 4)), std::stoi(date.substr(4, 2)),
                    std::stoi(date.substr(6, 2)))) {
    return false;
  }
  static constexpr int kWeights[] = {7, 9, 10, 5,  8, 4, 2, 1, 6,
                                     3, 7, 9,  10, 5, 8, 4, 2};
  int sum = 0;
  for (size_t i = 0; i < 17; ++i) sum += (text[i] - '0') * kWeights[i];
  static constexpr char kCheck[] = "10X98765432";
  const char last = text[17] == 'x' ? 'X' : text[17];
  return kCheck[sum % 11] == last;
}

bool EmailValid(std::string_view text) {
  const size_t at = text.find('@');
  if (at == 0 || at == std::string_view::npos ||
      text.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  const std::string_view domain = text.substr(at + 1);
  const size_t dot = domain.rfind('.');
  return dot != std::string_view::npos && dot > 0 &&
         dot + 2 < domain.size() + 1 && domain.size() - dot - 1 >= 2;
}

bool PhoneValid(std::string_view text) {
  if (!OnlyDigitsAnd(text, " +-.()/")) return false;
  const size_t digits = Digits(text).size();
  return digits >= 7 && digits <= 15;
}

}  // namespace leakhound
