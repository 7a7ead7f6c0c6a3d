#include "corpus/obfuscation.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

namespace leakhound {
namespace {

bool IsAsciiAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// Uniform integer in [0, n).
uint64_t Below(std::mt19937_64& rng, uint64_t n) { return rng() % n; }
bool Chance(std::mt19937_64& rng, double p) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Calls word(begin, end) for each maximal run of ASCII letters and digits
// and other(begin, end) for the bytes between them.
template <typename Word, typename Other>
void ForEachRun(std::string_view text, const Word& word, const Other& other) {
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    const bool alnum = IsAsciiAlnum(text[i]);
    while (j < text.size() && IsAsciiAlnum(text[j]) == alnum) ++j;
    alnum ? word(i, j) : other(i, j);
    i = j;
  }
}

std::string ChangeCase(std::string_view text, std::mt19937_64& rng) {
  std::string out;
  ForEachRun(
      text,
      [&](size_t b, size_t e) {
        const uint64_t mode = Below(rng, 3);
        for (size_t i = b; i < e; ++i) {
          const auto c = static_cast<unsigned char>(text[i]);
          const bool upper = mode == 0 || (mode == 2 && i == b);
          out += static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
        }
      },
      [&](size_t b, size_t e) { out.append(text.substr(b, e - b)); });
  return out;
}

// The whitespace-separated words of `text`.
std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    }
    size_t j = i;
    while (j < text.size() &&
           !std::isspace(static_cast<unsigned char>(text[j]))) {
      ++j;
    }
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

bool AllAsciiLetters(std::string_view word) {
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
  });
}

// Words of `text` (split at whitespace) filled into lines of at most
// `width` bytes joined by `newline` (a word longer than a line has one of
// its own). With `hyphenate`, a word of 6+ ASCII letters that does not fit
// is broken with "-" at the line end, at least 2 letters on each side.
std::string Fill(std::string_view text, size_t width, std::string_view newline,
                 bool hyphenate) {
  std::string out;
  size_t line = 0;
  for (std::string_view word : Words(text)) {
    if (line > 0 && line + 1 + word.size() > width) {
      const size_t room = width > line + 2 ? width - line - 2 : 0;  // " " "-"
      if (hyphenate && word.size() >= 6 && AllAsciiLetters(word) &&
          room >= 2) {
        const size_t cut = std::min(room, word.size() - 2);
        out += ' ';
        out.append(word.substr(0, cut));
        out += '-';
        out.append(newline);
        out.append(word.substr(cut));
        line = word.size() - cut;
        continue;
      }
      out.append(newline);
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out.append(word);
    line += word.size();
  }
  return out;
}

std::string RewrapCrlf(std::string_view text, std::mt19937_64& rng) {
  return Fill(text, 40 + Below(rng, 33), "\r\n", false) + "\r\n";
}

std::string ChangePunctuation(std::string_view text, std::mt19937_64& rng) {
  static constexpr std::string_view kMarks = ".,;:!?-'\"()";
  std::string out;
  for (char c : text) {
    if (kMarks.find(c) == std::string_view::npos) {
      out += c;
    } else if (Chance(rng, 0.5)) {
      out += kMarks[Below(rng, kMarks.size())];
    }  // else deleted
  }
  return out;
}

char32_t Homoglyph(char c) {
  switch (c) {
    case 'a': return U'\u0430';
    case 'c': return U'\u0441';
    case 'e': return U'\u0435';
    case 'i': return U'\u0456';
    case 'j': return U'\u0458';
    case 'o': return U'\u043E';
    case 'p': return U'\u0440';
    case 's': return U'\u0455';
    case 'x': return U'\u0445';
    case 'y': return U'\u0443';
    case 'A': return U'\u0391';
    case 'B': return U'\u0392';
    case 'E': return U'\u0395';
    case 'H': return U'\u0397';
    case 'I': return U'\u0399';
    case 'K': return U'\u039A';
    case 'M': return U'\u039C';
    case 'N': return U'\u039D';
    case 'O': return U'\u039F';
    case 'P': return U'\u03A1';
    case 'T': return U'\u03A4';
    case 'X': return U'\u03A7';
    case 'Y': return U'\u03A5';
    case 'Z': return U'\u0396';
    default: return 0;
  }
}

std::string SubstituteHomoglyphs(std::string_view text, std::mt19937_64& rng) {
  std::string out;
  for (char c : text) {
    const char32_t twin = Homoglyph(c);
    if (twin != 0 && Chance(rng, 1.0 / 3)) {
      AppendUtf8(twin, out);
    } else {
      out += c;
    }
  }
  return out;
}

std::string Widen(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c > 0x20 && c < 0x7F) {
      AppendUtf8(static_cast<char32_t>(0xFF01 + (c - 0x21)), out);
    } else {
      out += c;
    }
  }
  return out;
}

std::string InsertZeroWidth(std::string_view text, std::mt19937_64& rng) {
  static constexpr char32_t kInvisible[] = {U'\u200B', U'\u200C', U'\u200D',
                                            U'\u2060', U'\u00AD', U'\uFEFF'};
  std::string out;
  ForEachRun(
      text,
      [&](size_t b, size_t e) {
        const size_t at = e - b > 1 && Chance(rng, 0.8)
                              ? b + 1 + Below(rng, e - b - 1)
                              : e;
        for (size_t i = b; i < e; ++i) {
          if (i == at) AppendUtf8(kInvisible[Below(rng, 6)], out);
          out += text[i];
        }
      },
      [&](size_t b, size_t e) { out.append(text.substr(b, e - b)); });
  return out;
}

std::string SubstituteWords(std::string_view text, double share,
                            std::span<const std::string> vocabulary,
                            std::mt19937_64& rng) {
  // Exactly round(share * words) distinct words are replaced.
  std::vector<std::pair<size_t, size_t>> words;
  ForEachRun(
      text, [&](size_t b, size_t e) { words.emplace_back(b, e); },
      [](size_t, size_t) {});
  std::vector<size_t> order(words.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const auto replace =
      static_cast<size_t>(share * static_cast<double>(words.size()) + 0.5);
  std::vector<bool> replaced(words.size(), false);
  for (size_t i = 0; i < replace && i < order.size(); ++i) {
    replaced[order[i]] = true;
  }
  std::string out;
  size_t at = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    out.append(text.substr(at, words[w].first - at));
    out += replaced[w] ? vocabulary[Below(rng, vocabulary.size())]
                       : std::string(text.substr(
                             words[w].first, words[w].second - words[w].first));
    at = words[w].second;
  }
  out.append(text.substr(at));
  return out;
}

std::string ReorderSentences(std::string_view text, std::mt19937_64& rng) {
  // A sentence ends after '.', '!' or '?' followed by whitespace, after
  // "。", "！" or "？", or at a blank line.
  std::vector<std::string> sentences;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t end = 0;
    if ((text[i] == '.' || text[i] == '!' || text[i] == '?') &&
        i + 1 < text.size() &&
        std::isspace(static_cast<unsigned char>(text[i + 1]))) {
      end = i + 1;
    } else if (text.substr(i, 3) == "\u3002" || text.substr(i, 3) == "\uFF01" ||
               text.substr(i, 3) == "\uFF1F") {
      end = i + 3;
    } else if (text.substr(i, 2) == "\n\n") {
      end = i + 2;
    }
    if (end != 0) {
      sentences.emplace_back(text.substr(start, end - start));
      start = end;
      i = end - 1;
    }
  }
  if (start < text.size()) sentences.emplace_back(text.substr(start));
  std::shuffle(sentences.begin(), sentences.end(), rng);
  std::string out;
  for (const std::string& s : sentences) {
    out += s;
    if (!out.empty() && !std::isspace(static_cast<unsigned char>(out.back()))) {
      out += ' ';
    }
  }
  return out;
}

std::string Hyphenate(std::string_view text, std::mt19937_64& rng) {
  return Fill(text, 40 + Below(rng, 33), "\n", true) + "\n";
}

std::string ToVariants(std::string_view text, const HanVariants& han) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (const char32_t c = ThreeByteCodePoint(text.substr(i)); c != 0) {
      auto it = han.find(c);
      if (it != han.end()) {
        AppendUtf8(it->second, out);
        i += 3;
        continue;
      }
    }
    out.append(text.substr(i, std::min(n, text.size() - i)));
    i += n;
  }
  return out;
}

// An editor emphasizes whole words: the marks go around a whitespace-
// delimited word without its leading and trailing punctuation ("HUGE_VAL,"
// becomes "**HUGE_VAL**,", never "HUGE_**VAL**,").
std::string RichText(std::string_view text, std::mt19937_64& rng) {
  static constexpr std::pair<const char*, const char*> kMarks[] = {
      {"**", "**"}, {"_", "_"}, {"`", "`"},
      {"<b>", "</b>"}, {"<em>", "</em>"}, {"<i>", "</i>"}};
  auto space = [](char c) {
    return std::isspace(static_cast<unsigned char>(c));
  };
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && space(text[j]) == space(text[i])) ++j;
    size_t b = i, e = j;
    if (!space(text[i])) {
      while (b < e && !IsAsciiAlnum(text[b])) ++b;
      while (e > b && !IsAsciiAlnum(text[e - 1])) --e;
    }
    if (b < e && !space(text[i]) && Chance(rng, 1.0 / 3)) {
      const auto& [open, close] = kMarks[Below(rng, std::size(kMarks))];
      out.append(text.substr(i, b - i));
      out += open;
      out.append(text.substr(b, e - b));
      out += close;
      out.append(text.substr(e, j - e));
    } else {
      out.append(text.substr(i, j - i));
    }
    i = j;
  }
  return out;
}

std::string MailQuote(std::string_view text, std::mt19937_64& rng) {
  const std::string prefix = Chance(rng, 0.5) ? "> " : "> > ";
  const size_t width = 60 + Below(rng, 13);
  return prefix + Fill(text, width, "\n" + prefix, false) + "\n";
}

std::string TableCells(std::string_view text, std::mt19937_64& rng) {
  std::vector<std::string> cells;
  const std::vector<std::string_view> words = Words(text);
  for (size_t i = 0; i < words.size();) {
    const size_t n = std::min(words.size() - i, size_t{3} + Below(rng, 6));
    std::string cell;
    for (size_t k = 0; k < n; ++k) {
      if (k > 0) cell += ' ';
      cell.append(words[i + k]);
    }
    cells.push_back(std::move(cell));
    i += n;
  }
  std::string out;
  switch (Below(rng, 3)) {
    case 0:  // a Markdown table, two cells a row
      out = "| | |\n|---|---|\n";
      for (size_t i = 0; i < cells.size(); i += 2) {
        out += "| " + cells[i] + " | " +
               (i + 1 < cells.size() ? cells[i + 1] : std::string()) + " |\n";
      }
      break;
    case 1:  // an HTML table as text, one cell a row
      out = "<table>\n";
      for (const std::string& cell : cells) {
        out += "<tr><td>" + cell + "</td></tr>\n";
      }
      out += "</table>\n";
      break;
    default:  // bullet items
      for (const std::string& cell : cells) out += "- " + cell + "\n";
      break;
  }
  return out;
}

}  // namespace

const char* ObfuscationName(Obfuscation obfuscation) {
  switch (obfuscation) {
    case Obfuscation::kNone: return "verbatim";
    case Obfuscation::kCase: return "case";
    case Obfuscation::kRewrapCrlf: return "rewrap_crlf";
    case Obfuscation::kPunctuation: return "punctuation";
    case Obfuscation::kHomoglyph: return "homoglyph";
    case Obfuscation::kFullwidth: return "fullwidth";
    case Obfuscation::kZeroWidth: return "zero_width";
    case Obfuscation::kSubstitute5: return "substitute_5";
    case Obfuscation::kSubstitute15: return "substitute_15";
    case Obfuscation::kReorderSentences: return "reorder_sentences";
    case Obfuscation::kHyphenate: return "hyphenate";
    case Obfuscation::kRichText: return "rich_text";
    case Obfuscation::kMailQuote: return "mail_quote";
    case Obfuscation::kTableCells: return "table_cells";
    case Obfuscation::kHanVariant: return "han_variant";
  }
  return "unknown";
}

char32_t ThreeByteCodePoint(std::string_view s) {
  if (s.size() < 3 || (static_cast<unsigned char>(s[0]) & 0xF0) != 0xE0)
    return 0;
  return ((static_cast<unsigned char>(s[0]) & 0x0F) << 12) |
         ((static_cast<unsigned char>(s[1]) & 0x3F) << 6) |
         (static_cast<unsigned char>(s[2]) & 0x3F);
}

std::string Obfuscate(std::string_view text, Obfuscation obfuscation,
                      std::span<const std::string> vocabulary,
                      std::mt19937_64& rng, const HanVariants* han) {
  switch (obfuscation) {
    case Obfuscation::kNone: return std::string(text);
    case Obfuscation::kCase: return ChangeCase(text, rng);
    case Obfuscation::kRewrapCrlf: return RewrapCrlf(text, rng);
    case Obfuscation::kPunctuation: return ChangePunctuation(text, rng);
    case Obfuscation::kHomoglyph: return SubstituteHomoglyphs(text, rng);
    case Obfuscation::kFullwidth: return Widen(text);
    case Obfuscation::kZeroWidth: return InsertZeroWidth(text, rng);
    case Obfuscation::kSubstitute5:
      return SubstituteWords(text, 0.05, vocabulary, rng);
    case Obfuscation::kSubstitute15:
      return SubstituteWords(text, 0.15, vocabulary, rng);
    case Obfuscation::kReorderSentences: return ReorderSentences(text, rng);
    case Obfuscation::kHyphenate: return Hyphenate(text, rng);
    case Obfuscation::kRichText: return RichText(text, rng);
    case Obfuscation::kMailQuote: return MailQuote(text, rng);
    case Obfuscation::kTableCells: return TableCells(text, rng);
    case Obfuscation::kHanVariant: return ToVariants(text, *han);
  }
  return std::string(text);
}

}  // namespace leakhound
