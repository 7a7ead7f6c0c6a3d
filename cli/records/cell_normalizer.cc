#include "cli/records/cell_normalizer.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "cli/records/data_validators.h"
#include "shingler/mark_folding.h"
#include "shingler/month_names.h"

namespace leakhound {
namespace {

bool IsWordBreak(unsigned char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '\f':
    case '\v':
    case ',':
    case ';':
    case '|':
    case '"':
    case '<':
    case '>':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
      return true;
    default:
      return false;
  }
}

// Bytes of a non-ASCII white space at text[i] (NO-BREAK SPACE and the
// U+2000 block's spaces, IDEOGRAPHIC SPACE), or 0.
size_t WideSpaceAt(std::string_view text, size_t i) {
  const auto b = [&](size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
  };
  if (b(0) == 0xC2 && b(1) == 0xA0) return 2;
  if (b(0) == 0xE2 && b(1) == 0x80 && b(2) >= 0x80 && b(2) <= 0x8A) return 3;
  if (b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80) return 3;
  return 0;
}

// What a UTF-8 sequence at text[i] is to word splitting: a character of
// the Han, Hiragana, Katakana or Hangul scripts (a word of its own, as the
// shingler tokenizes it), CJK or fullwidth punctuation (a break), or
// neither.
enum class CjkKind { kNone, kCharacter, kPunctuation };

uint32_t CodePointAt(std::string_view text, size_t i, size_t* width) {
  const auto b = [&](size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  if (b(0) >= 0xE0 && b(0) < 0xF0 && (b(1) & 0xC0) == 0x80 &&
      (b(2) & 0xC0) == 0x80) {
    *width = 3;
    return ((b(0) & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
  }
  if (b(0) >= 0xF0 && b(0) < 0xF5 && (b(1) & 0xC0) == 0x80 &&
      (b(2) & 0xC0) == 0x80 && (b(3) & 0xC0) == 0x80) {
    *width = 4;
    return ((b(0) & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) |
           ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
  }
  *width = 1;
  return 0;
}

CjkKind CjkAt(std::string_view text, size_t i) {
  if (static_cast<unsigned char>(text[i]) < 0xE0) return CjkKind::kNone;
  size_t width = 0;
  const uint32_t c = CodePointAt(text, i, &width);
  if ((c >= 0x3001 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) ||
      (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
      (c >= 0xFF5B && c <= 0xFF65)) {
    return CjkKind::kPunctuation;
  }
  if ((c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) ||
      (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
      (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3FFFF)) {
    return CjkKind::kCharacter;
  }
  return CjkKind::kNone;
}

size_t CjkWidth(std::string_view text, size_t i) {
  size_t width = 1;
  CodePointAt(text, i, &width);
  return width;
}

// 年 月 日 (Chinese and Japanese) and 년 월 일 (Korean) at text[i]: the
// marks of a date's year, month and day.
constexpr std::string_view kDateMarks[] = {"\u5E74", "\u6708", "\u65E5",
                                           "\uB144", "\uC6D4", "\uC77C"};
bool IsDateMark(std::string_view text, size_t i) {
  for (std::string_view mark : kDateMarks) {
    if (text.substr(i, mark.size()) == mark) return true;
  }
  return false;
}

std::string Digits(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c >= '0' && c <= '9') out.push_back(c);
  }
  return out;
}

// The date parts of `raw`: runs of digits and runs of letters (an
// ordinal's suffix dropped: 2nd is 2).
std::vector<std::string> DateParts(std::string_view raw) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    const bool digit = c >= '0' && c <= '9';
    // A letter: ASCII, or any byte of a UTF-8 sequence ("März", "déc").
    const auto is_letter = [](char x) {
      const auto u = static_cast<unsigned char>(x);
      return absl::ascii_isalpha(u) || u >= 0x80;
    };
    if (IsDateMark(raw, i)) {  // a separator, as '-' is
      i += 3;
      continue;
    }
    const bool letter = is_letter(c);
    if (!digit && !letter) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < raw.size() && !IsDateMark(raw, j) &&
           (digit ? (raw[j] >= '0' && raw[j] <= '9') : is_letter(raw[j]))) {
      ++j;
    }
    std::string part(raw.substr(i, j - i));
    const bool suffix =
        letter && !parts.empty() &&
        (part == "st" || part == "nd" || part == "rd" || part == "th") &&
        i > 0 && raw[i - 1] >= '0' && raw[i - 1] <= '9';
    // The "de" of "2 de marzo de 1985" (es, pt) and the "of" of "2nd of
    // March 1985" join, they are no part.
    const bool joiner = letter && !parts.empty() &&
                        (part == "de" || part == "del" || part == "of");
    if (!suffix && !joiner) parts.push_back(std::move(part));
    i = j;
  }
  return parts;
}

int Number(const std::string& part) {
  if (part.empty() || part.size() > 4 || part[0] < '0' || part[0] > '9') {
    return -1;
  }
  return std::stoi(part);
}

// A year as written: four digits, or two with a pivot (the century that
// puts it within the 80 years before the current one and the 20 after:
// "84" is 1984, "05" 2005); -1 otherwise.
int Year(const std::string& part) {
  const int n = Number(part);
  if (n < 0 || (part.size() != 4 && part.size() != 2)) return -1;
  if (part.size() == 4) return n;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  const int this_year = 1900 + utc.tm_year;
  const int year = this_year / 100 * 100 + n;
  return year > this_year + 20 ? year - 100 : year;
}

void AddDate(int y, int m, int d, std::vector<std::string>* out) {
  if (auto date = CalendarDate(y, m, d)) {
    if (std::find(out->begin(), out->end(), *date) == out->end()) {
      out->push_back(std::move(*date));
    }
  }
}

// The dates `raw` may be; `order` nullopt: either numeric order.
void Dates(std::string_view raw, std::optional<DateOrder> order,
           std::vector<std::string>* out) {
  const std::vector<std::string> p = DateParts(raw);
  if (p.size() == 1 && p[0].size() == 8 && Number(p[0].substr(0, 4)) >= 0) {
    AddDate(std::stoi(p[0].substr(0, 4)), std::stoi(p[0].substr(4, 2)),
            std::stoi(p[0].substr(6, 2)), out);
    return;
  }
  if (p.size() != 3) return;
  const int m0 = MonthNumber(p[0]), m1 = MonthNumber(p[1]);
  const int n0 = Number(p[0]), n1 = Number(p[1]), n2 = Number(p[2]);
  const int y2 = Year(p[2]);  // the last part as a year ("1984", "84")
  if (m1 > 0 && p[0].size() == 4) return AddDate(n0, m1, n2, out);
  if (m1 > 0) return AddDate(y2, m1, n0, out);
  if (m0 > 0) return AddDate(y2, m0, n1, out);
  if (n0 < 0 || n1 < 0 || n2 < 0) return;
  if (p[0].size() == 4) return AddDate(n0, n1, n2, out);
  if (y2 < 0) return;
  if (!order || *order != DateOrder::kMonthDayYear) AddDate(y2, n1, n0, out);
  if (!order || *order == DateOrder::kMonthDayYear) AddDate(y2, n0, n1, out);
}

std::string_view TrimEmail(std::string_view raw) {
  while (!raw.empty() && std::strchr("<>.:", raw.front()) != nullptr) {
    raw.remove_prefix(1);
  }
  while (!raw.empty() && std::strchr("<>.:", raw.back()) != nullptr) {
    raw.remove_suffix(1);
  }
  if (raw.size() > 7 &&
      absl::AsciiStrToLower(std::string(raw.substr(0, 7))) == "mailto:") {
    raw.remove_prefix(7);
  }
  return raw;
}

}  // namespace

std::vector<WordSpan> SplitWords(std::string_view text) {
  std::vector<WordSpan> words;
  const size_t n = text.size();
  const auto push = [&](size_t begin, size_t end) {
    // A sentence's full stop or a label's colon is not part of the word.
    while (end > begin + 1 && (text[end - 1] == '.' || text[end - 1] == ':')) {
      --end;
    }
    words.push_back({static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
  };
  size_t begin = 0;
  bool in_word = false;
  for (size_t i = 0; i < n;) {
    const size_t wide = WideSpaceAt(text, i);
    const CjkKind cjk = wide > 0 ? CjkKind::kNone : CjkAt(text, i);
    const bool breaks = wide > 0 ||
                        IsWordBreak(static_cast<unsigned char>(text[i])) ||
                        cjk == CjkKind::kPunctuation;
    // A CJK character is a word of its own, as the shingler's token, but a
    // date's 年 月 日 stays inside it after a digit ("1985年3月2日").
    const bool alone =
        cjk == CjkKind::kCharacter &&
        !(in_word && IsDateMark(text, i) &&
          absl::ascii_isdigit(static_cast<unsigned char>(text[i - 1])));
    const size_t width = wide > 0                ? wide
                         : cjk != CjkKind::kNone ? CjkWidth(text, i)
                                                 : 1;
    if (breaks || alone) {
      if (in_word) push(begin, i);
      in_word = false;
      if (alone) push(i, i + width);
      i += width;
      continue;
    }
    if (!in_word) {
      begin = i;
      in_word = true;
    }
    i += width;
  }
  if (in_word) push(begin, n);
  return words;
}

absl::StatusOr<std::unique_ptr<CellNormalizer>> CellNormalizer::Create() {
  auto tokenizer = Tokenizer::Create();
  if (!tokenizer.ok()) return tokenizer.status();
  return std::unique_ptr<CellNormalizer>(
      new CellNormalizer(std::move(*tokenizer)));
}

CellNormalizer::CellNormalizer(std::unique_ptr<Tokenizer> tokenizer)
    : tokenizer_(std::move(tokenizer)) {}

uint32_t CellNormalizer::WordCount(std::string_view raw) {
  return static_cast<uint32_t>(SplitWords(raw).size());
}

std::string CellNormalizer::WordForm(std::string_view word, bool fold_marks) {
  std::string out;
  if (fold_marks) {
    const std::string folded = FoldMarks(word);
    tokenizer_->Tokenize(folded, &tokens_);
  } else {
    tokenizer_->Tokenize(word, &tokens_);
  }
  for (const Token& t : tokens_) {
    for (int i = 0; i < 8; ++i) {
      out.push_back(static_cast<char>(t.hash >> (8 * i)));
    }
  }
  return out;
}

std::optional<std::string> CellNormalizer::Words(std::string_view raw) {
  std::string out;
  for (const WordSpan& w : SplitWords(raw)) {
    out += WordForm(raw.substr(w.begin, w.end - w.begin));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<std::string> CellNormalizer::Cell(CellType type, DateOrder order,
                                                std::string_view raw) {
  std::vector<std::string> forms;
  switch (type) {
    case CellType::kName:
    case CellType::kText:
      return Words(raw);
    case CellType::kDate:
      Dates(raw, order, &forms);
      break;
    default:
      TextForms(type, raw, &forms);
      break;
  }
  if (forms.empty()) return std::nullopt;
  return std::move(forms.front());
}

void CellNormalizer::TextForms(CellType type, std::string_view raw,
                               std::vector<std::string>* forms) {
  forms->clear();
  switch (type) {
    case CellType::kEmail: {
      const std::string_view address = TrimEmail(raw);
      if (EmailValid(address))
        forms->push_back(absl::AsciiStrToLower(std::string(address)));
      return;
    }
    case CellType::kPhone: {
      const std::string written = WithoutTrunkInParentheses(raw);
      std::string d = Digits(written);
      const bool international =
          d.starts_with("00") ||
          absl::StartsWith(absl::StripLeadingAsciiWhitespace(written), "+");
      if (d.starts_with("00")) d.erase(0, 2);
      if (d.size() < 7 || d.size() > 15) return;
      forms->push_back(d);  // first: a table cell's form (Cell)
      if (!international) AddNationalForms(d, phone_regions_, forms);
      return;
    }
    case CellType::kCard: {
      std::string d = Digits(raw);
      if (d.size() >= 13 && d.size() <= 19) forms->push_back(std::move(d));
      return;
    }
    case CellType::kIban: {
      std::string v = AlnumUpper(raw);
      if (v.size() >= 15 && v.size() <= 34) forms->push_back(std::move(v));
      return;
    }
    case CellType::kNationalId: {
      std::string v = AlnumUpper(raw);
      if (!v.empty()) forms->push_back(std::move(v));
      return;
    }
    case CellType::kDate:
      Dates(raw, std::nullopt, forms);
      return;
    case CellType::kName:
    case CellType::kText:
      if (auto words = Words(raw)) forms->push_back(std::move(*words));
      return;
  }
}

}  // namespace leakhound
