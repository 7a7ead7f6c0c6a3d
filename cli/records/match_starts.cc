#include "cli/records/match_starts.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace leakhound {
namespace {

bool Alnum(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c));
}
bool Letter(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c));
}
bool Digit(char c) { return c >= '0' && c <= '9'; }
// \w and \b are ASCII in the patterns (no UCP).
bool Word(char c) { return Alnum(c) || c == '_'; }

}  // namespace

// \b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}\b, read from the right: one
// unit (a letter or digit, a space before it optional) at a time. After
// 11 to 30 units, a start is where two letters and two digits, after a
// word boundary, end right before the units (with or without the last
// unit's space); the last found is the leftmost.
uint32_t IbanStart(std::string_view text, uint32_t end) {
  uint32_t best = end;
  uint32_t p = end;  // the units read so far begin here
  for (uint32_t units = 1; units <= 30; ++units) {
    if (p == 0 || !Alnum(text[p - 1])) break;
    const uint32_t q = p - 1;  // this unit's letter or digit
    const bool space = q > 0 && text[q - 1] == ' ';
    if (units >= 11) {
      for (uint32_t s : {q, space ? q - 1 : q}) {
        if (s >= 4 && Letter(text[s - 4]) && Letter(text[s - 3]) &&
            Digit(text[s - 2]) && Digit(text[s - 1]) &&
            (s == 4 || !Word(text[s - 5]))) {
          best = std::min(best, s - 4);
        }
      }
    }
    p = space ? q - 1 : q;
  }
  return best;
}

// \b[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+\b:
// no '@' in the domain, so the match's '@' is the first left of the end;
// the start is the leftmost letter or digit of the local part's run after
// a character that is not a word character.
uint32_t EmailStart(std::string_view text, uint32_t end) {
  uint32_t at = end;
  while (at > 0 &&
         (Alnum(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == '-')) {
    --at;
  }
  if (at == 0 || text[at - 1] != '@') return end;
  const uint32_t local_end = at - 1;
  uint32_t run = local_end;
  while (run > 0 && (Alnum(text[run - 1]) ||
                     std::string_view("._%+-").find(text[run - 1]) !=
                         std::string_view::npos)) {
    --run;
  }
  for (uint32_t b = run; b < local_end; ++b) {
    if (Alnum(text[b]) && (b == 0 || !Word(text[b - 1]))) return b;
  }
  return end;
}

// \+?\(?\d[\d ().\-/]{5,22}\d\b: the first digit d is followed by 5 to 22
// characters of the class, then the last digit (end - 1). The leftmost
// such d gives the leftmost start (a later one's '(' and '+' cannot reach
// further left: they are not digits), less its '(' and '+'.
uint32_t PhoneCandidateStart(std::string_view text, uint32_t end) {
  if (end < 7) return end;
  const uint32_t last = end - 1;
  auto in_class = [](char c) {
    return Digit(c) ||
           std::string_view(" ().-/").find(c) != std::string_view::npos;
  };
  uint32_t m = last;  // [m, last) is in the class and at most 22 long
  while (m > 0 && last - (m - 1) <= 22 && in_class(text[m - 1])) --m;
  for (uint32_t d = m > 0 ? m - 1 : 0; d + 6 <= last; ++d) {
    if (!Digit(text[d])) continue;
    uint32_t b = d;
    if (b > 0 && text[b - 1] == '(') --b;
    if (b > 0 && text[b - 1] == '+') --b;
    return b;
  }
  return end;
}

MatchStart ValidatorPatternStart(Validator v) {
  switch (v) {
    case Validator::kIban:
      return IbanStart;
    case Validator::kEmail:
      return EmailStart;
    default:
      return nullptr;
  }
}

}  // namespace leakhound
