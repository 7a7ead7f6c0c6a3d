#include "shingler/tokenizer.h"

#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/translit.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <optional>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shingler/markup_residue.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace leakhound {
namespace {

// Word_Break classes of the ASCII characters that can be part of a word,
// as ICU 72's root word rules use them. ICU departs from plain UAX #29 in
// two ways that matter here: '@' is an ALetter (e-mail addresses stay one
// word) and ':' is not a MidLetter.
enum AsciiClass : uint8_t {
  kOther = 0,
  kLetter,      // ALetter: A-Z a-z @
  kDigit,       // Numeric: 0-9
  kUnderscore,  // ExtendNumLet: _
  kMidNumLet,   // MidNumLet / Single_Quote: . '
  kMidNum,      // MidNum: , ;
  kSpace,       // ASCII whitespace: always a segment boundary
};

constexpr std::array<AsciiClass, 128> MakeAsciiClasses() {
  std::array<AsciiClass, 128> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<size_t>(c)] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<size_t>(c)] = kLetter;
  t['@'] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = kDigit;
  t['_'] = kUnderscore;
  t['.'] = kMidNumLet;
  t['\''] = kMidNumLet;
  t[','] = kMidNum;
  t[';'] = kMidNum;
  for (char c : {' ', '\t', '\n', '\v', '\f', '\r'}) {
    t[static_cast<size_t>(c)] = kSpace;
  }
  return t;
}
constexpr std::array<AsciiClass, 128> kAsciiClass = MakeAsciiClasses();

inline bool IsWordChar(AsciiClass c) {
  return c == kLetter || c == kDigit || c == kUnderscore;
}
inline bool IsAsciiSpace(uint8_t b) {
  return b < 128 && kAsciiClass[b] == kSpace;
}

// Normalized form of one ASCII word character, precomputed through ICU.
struct AsciiFold {
  char bytes[4];
  uint8_t size;
};

bool IsPerCharacter(UChar32 c) {
  return uscript_hasScript(c, USCRIPT_HAN) ||
         uscript_hasScript(c, USCRIPT_HIRAGANA) ||
         uscript_hasScript(c, USCRIPT_KATAKANA) ||
         uscript_hasScript(c, USCRIPT_HANGUL);
}

// A mark that ICU's word rules keep inside a word between letters or
// digits ("don't", "e.g", "3.14", "1,000"): dropped from the token's text,
// like the marks between the words a token joins (JoinsPending).
bool IsMidWordMark(UChar32 c) {
  if (c < 128) {  // the ASCII characters of those classes
    return c == '.' || c == '\'' || c == ',' || c == ';' || c == ':' ||
           c == '"';
  }
  if (u_isalnum(c)) return false;
  switch (u_getIntPropertyValue(c, UCHAR_WORD_BREAK)) {
    case U_WB_MIDLETTER:
    case U_WB_MIDNUM:
    case U_WB_MIDNUMLET:
    case U_WB_SINGLE_QUOTE:
    case U_WB_DOUBLE_QUOTE:
      return true;
    default:
      return false;
  }
}

bool IsCombining(UChar32 c) {
  int32_t gcb = u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK);
  return gcb == U_GCB_EXTEND || gcb == U_GCB_SPACING_MARK;
}

}  // namespace

struct Tokenizer::Impl {
  const icu::Normalizer2* nfkc_casefold = nullptr;
  icu::LocalUSpoofCheckerPointer spoof;
  // Traditional to simplified Han characters (ICU's Traditional-Simplified
  // transform), for per-character tokens.
  std::unique_ptr<icu::Transliterator> simplified;
  std::unique_ptr<icu::BreakIterator> words;
  std::array<AsciiFold, 128> ascii_fold{};

  // Scratch, reused across calls.
  icu::UnicodeString text16;
  std::vector<uint32_t> unit_begin;  // source byte offset of each UTF-16 unit
  std::vector<uint32_t> unit_end;    // source byte end of its code point
  std::string normalized;
  std::string unmarked;  // the input with its markup residue blanked
  std::vector<std::string>* collect = nullptr;  // NormalizedTokens only
  // The text being tokenized (its markup residue blanked), for the marks
  // between two words (JoinsPending).
  std::string_view source;
  // The word token being built (step 5): its range so far and its text,
  // hashed when the next token does not join it (Flush).
  bool pending = false;
  Token pending_token{};
  std::string pending_text;
  bool use_cache = false;  // the fast path only; the reference stays plain
  // Hash of each single-code-point token seen (nullopt: normalizes to "").
  static constexpr size_t kMaxCachedCodePoints = 1 << 16;
  absl::flat_hash_map<UChar32, std::optional<uint64_t>> code_point_hash;

  // Non-ASCII capitals whose skeleton is one Latin capital (Greek Χ,
  // Cyrillic С): code point -> that capital, or 0.
  absl::flat_hash_map<UChar32, UChar32> latin_twin;

  UChar32 LatinTwin(UChar32 c) {
    if (c < 128 || !u_isupper(c)) return 0;
    auto [it, inserted] = latin_twin.try_emplace(c, 0);
    if (inserted) {
      UErrorCode status = U_ZERO_ERROR;
      icu::UnicodeString skeleton;
      uspoof_getSkeletonUnicodeString(spoof.getAlias(), 0,
                                      icu::UnicodeString(c), skeleton, &status);
      if (U_SUCCESS(status) && skeleton.length() == 1 &&
          skeleton[0] >= u'A' && skeleton[0] <= u'Z') {
        it->second = skeleton[0];
      }
    }
    return it->second;
  }

  // Replaces the Latin capitals' twins of `token` by the Latin capitals when
  // the token holds a Latin letter or every letter has a twin: case folded
  // first, Greek Χ would become χ, whose skeleton is not x. A Greek or
  // Cyrillic word with a letter of no twin is left to fold as itself, so
  // that it still matches its lower-case form.
  void UntwinLatinCapitals(icu::UnicodeString& token) {
    bool latin = false, all_twins = true, any_twin = false;
    for (int32_t i = 0; i < token.length(); i = token.moveIndex32(i, 1)) {
      const UChar32 c = token.char32At(i);
      if (!u_isalpha(c)) continue;
      UErrorCode status = U_ZERO_ERROR;
      if (uscript_getScript(c, &status) == USCRIPT_LATIN) {
        latin = true;
      } else if (LatinTwin(c) != 0) {
        any_twin = true;
      } else {
        all_twins = false;
      }
    }
    if (!any_twin || (!latin && !all_twins)) return;
    icu::UnicodeString out;
    for (int32_t i = 0; i < token.length(); i = token.moveIndex32(i, 1)) {
      const UChar32 c = token.char32At(i);
      const UChar32 twin = LatinTwin(c);
      out.append(twin != 0 ? twin : c);
    }
    token = std::move(out);
  }

  // Removes the mid-word marks of `token` (step 4), copying it only when
  // it has some.
  static void StripMidWordMarks(icu::UnicodeString& token) {
    int32_t i = 0;
    for (; i < token.length(); i = token.moveIndex32(i, 1)) {
      if (IsMidWordMark(token.char32At(i))) break;
    }
    if (i == token.length()) return;
    icu::UnicodeString kept = token.tempSubStringBetween(0, i);
    for (; i < token.length(); i = token.moveIndex32(i, 1)) {
      const UChar32 c = token.char32At(i);
      if (!IsMidWordMark(c)) kept.append(c);
    }
    token = std::move(kept);
  }

  // Normalizes text16[p, q) into `normalized` (UTF-8); a per-character
  // token's Han character is simplified first, another token's Latin
  // capitals' twins become Latin capitals (UntwinLatinCapitals).
  void Normalize(int32_t p, int32_t q, bool per_character = false) {
    UErrorCode status = U_ZERO_ERROR;
    icu::UnicodeString token = text16.tempSubStringBetween(p, q);
    if (per_character) {
      simplified->transliterate(token);
    } else {
      StripMidWordMarks(token);
      UntwinLatinCapitals(token);
    }
    icu::UnicodeString folded = nfkc_casefold->normalize(token, status);
    icu::UnicodeString skeleton;
    uspoof_getSkeletonUnicodeString(spoof.getAlias(), 0, folded, skeleton,
                                    &status);
    icu::UnicodeString result = nfkc_casefold->normalize(skeleton, status);
    normalized.clear();
    if (U_FAILURE(status)) {  // not expected with valid ICU data
      result = folded;
    }
    result.toUTF8String(normalized);
  }

  // Whether only marks lie between the pending token and a word starting
  // at input byte `begin`: some bytes, none of them whitespace.
  bool JoinsPending(uint32_t begin) const {
    if (!pending || begin <= pending_token.byte_end) return false;
    const auto* s = reinterpret_cast<const uint8_t*>(source.data());
    size_t i = pending_token.byte_end;
    while (i < begin) {
      if (s[i] < 128) {
        if (IsAsciiSpace(s[i++])) return false;
        continue;
      }
      // One code point, decoded from at most 4 bytes (offsets may pass
      // 2^31; ICU's macros index with int32_t).
      int32_t k = 0;
      const auto length = static_cast<int32_t>(std::min<size_t>(begin - i, 4));
      UChar32 c;
      U8_NEXT_OR_FFFD(s + i, k, length, c);
      // U+FFFD stands for a byte that was not text (RepairUtf8): a break,
      // as whitespace is, so that an invalid byte glued to every word
      // cannot join a passage into one token.
      if (u_isUWhiteSpace(c) || c == 0xFFFD) return false;
      i += static_cast<size_t>(k);
    }
    return true;
  }

  // Starts a text: nothing pending.
  void Begin(std::string_view text) {
    source = text;
    pending = false;
  }

  // Hashes and appends the pending token, if any.
  void Flush(std::vector<Token>* out) {
    if (!pending) return;
    pending = false;
    pending_token.hash = XXH3_64bits(pending_text.data(), pending_text.size());
    out->push_back(pending_token);
    if (collect != nullptr) collect->push_back(pending_text);
  }

  // A word starting at input byte `begin`: it joins the pending token
  // (JoinsPending), or the pending token is flushed and it starts a new
  // one. The caller then appends its text to pending_text and sets
  // pending_token.byte_end.
  void StartOrJoin(uint32_t begin, std::vector<Token>* out) {
    if (JoinsPending(begin)) return;
    Flush(out);
    pending = true;
    pending_token = Token{0, begin, begin, false};
    pending_text.clear();
  }

  void Emit(int32_t p, int32_t q, bool per_character, std::vector<Token>* out) {
    const uint32_t begin = unit_begin[static_cast<size_t>(p)];
    const uint32_t end = unit_end[static_cast<size_t>(q - 1)];
    if (!per_character) {
      Normalize(p, q);
      if (normalized.empty()) return;
      StartOrJoin(begin, out);
      pending_text += normalized;
      pending_token.byte_end = end;
      return;
    }
    Flush(out);
    const Token token{0, begin, end, true};
    // A lone code point's hash depends on nothing else: cache it (CJK text
    // is almost all such tokens, and normalization dominates its cost).
    const UChar32 c = text16.char32At(p);
    const bool lone = use_cache && q - p == U16_LENGTH(c);
    if (lone) {
      auto it = code_point_hash.find(c);
      if (it != code_point_hash.end()) {
        if (it->second.has_value()) {
          out->push_back(token);
          out->back().hash = *it->second;
        }
        return;
      }
    }
    Normalize(p, q, per_character);
    std::optional<uint64_t> hash;
    if (!normalized.empty()) {
      hash = XXH3_64bits(normalized.data(), normalized.size());
      if (collect != nullptr) collect->push_back(normalized);
      out->push_back(token);
      out->back().hash = *hash;
    }
    if (lone && code_point_hash.size() < kMaxCachedCodePoints) {
      code_point_hash.emplace(c, hash);
    }
  }

  // Splits the word segment text16[p, q) into tokens (step 3).
  void EmitSegment(int32_t p, int32_t q, std::vector<Token>* out) {
    int32_t run_start = -1;
    int32_t i = p;
    while (i < q) {
      UChar32 c = text16.char32At(i);
      int32_t len = U16_LENGTH(c);
      if (!IsPerCharacter(c)) {
        if (run_start < 0) run_start = i;
        i += len;
        continue;
      }
      if (run_start >= 0) {
        Emit(run_start, i, false, out);
        run_start = -1;
      }
      int32_t j = i + len;
      while (j < q && IsCombining(text16.char32At(j))) {
        j += U16_LENGTH(text16.char32At(j));
      }
      Emit(i, j, true, out);
      i = j;
    }
    if (run_start >= 0) Emit(run_start, q, false, out);
  }

  // Steps 1-4 over input[begin, end), appending to *out.
  // REQUIRES: end - begin < 2^31.
  void IcuChunk(std::string_view input, size_t begin, size_t end,
                std::vector<Token>* out) {
    text16.remove();
    unit_begin.clear();
    unit_end.clear();
    const auto* s = reinterpret_cast<const uint8_t*>(input.data() + begin);
    const auto length = static_cast<int32_t>(end - begin);
    int32_t i = 0;
    while (i < length) {
      const int32_t start = i;
      UChar32 c;
      U8_NEXT_OR_FFFD(s, i, length, c);
      if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) continue;
      text16.append(c);
      const auto b = static_cast<uint32_t>(begin + static_cast<size_t>(start));
      const auto e = static_cast<uint32_t>(begin + static_cast<size_t>(i));
      for (int32_t u = 0; u < U16_LENGTH(c); ++u) {
        unit_begin.push_back(b);
        unit_end.push_back(e);
      }
    }
    words->setText(text16);
    int32_t p = words->first();
    for (int32_t q = words->next(); q != icu::BreakIterator::DONE;
         p = q, q = words->next()) {
      if (words->getRuleStatus() >= UBRK_WORD_NONE_LIMIT) {
        EmitSegment(p, q, out);
      }
    }
  }

  // The ASCII rules of ICU's word segmentation (UAX #29 WB5-WB13b) over
  // input[begin, end), which holds only ASCII bytes.
  void AsciiChunk(std::string_view input, size_t begin, size_t end,
                  std::vector<Token>* out) {
    const auto* s = reinterpret_cast<const uint8_t*>(input.data());
    size_t i = begin;
    while (i < end) {
      AsciiClass c = kAsciiClass[s[i]];
      if (!IsWordChar(c)) {
        ++i;
        continue;
      }
      const size_t start = i;
      AsciiClass prev = c;
      bool only_underscores = (c == kUnderscore);
      ++i;
      for (; i < end; ++i) {
        c = kAsciiClass[s[i]];
        if (IsWordChar(c)) {
          only_underscores = only_underscores && c == kUnderscore;
          prev = c;
          continue;
        }
        if ((c == kMidNumLet || c == kMidNum) && i + 1 < end) {
          AsciiClass next = kAsciiClass[s[i + 1]];
          if ((prev == kDigit && next == kDigit) ||
              (c == kMidNumLet && prev == kLetter && next == kLetter)) {
            ++i;  // the mid character; the loop's ++i takes the next one
            prev = next;
            only_underscores = false;
            continue;
          }
        }
        break;
      }
      // ICU gives a lone "_" no word status, but "__" is a word.
      if (only_underscores && i - start == 1) continue;
      StartOrJoin(static_cast<uint32_t>(start), out);
      AppendAsciiFold(s + start, i - start);
      pending_token.byte_end = static_cast<uint32_t>(i);
    }
  }

  // Appends the folded form of the ASCII word bytes[0, size) to
  // pending_text, without its mid-word marks (. ' , ;, whose folds are
  // empty).
  void AppendAsciiFold(const uint8_t* bytes, size_t size) {
    // Room for every fold's 4 bytes, copied whole and counted by size.
    size_t n = pending_text.size();
    pending_text.resize(n + 4 * size);
    char* folded = pending_text.data();
    for (size_t k = 0; k < size; ++k) {
      const AsciiFold& f = ascii_fold[bytes[k]];
      std::memcpy(folded + n, f.bytes, sizeof(f.bytes));
      n += f.size;
    }
    pending_text.resize(n);
  }
};

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Create() {
  auto impl = std::make_unique<Impl>();
  UErrorCode status = U_ZERO_ERROR;
  impl->nfkc_casefold = icu::Normalizer2::getNFKCCasefoldInstance(status);
  impl->spoof.adoptInstead(uspoof_open(&status));
  impl->words.reset(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  impl->simplified.reset(icu::Transliterator::createInstance(
      "Traditional-Simplified", UTRANS_FORWARD, status));
  if (U_FAILURE(status)) {
    return absl::InternalError(
        absl::StrCat("ICU initialization failed: ", u_errorName(status)));
  }
  // Fold table for ASCII word characters, computed by the reference path so
  // the two cannot drift apart. Every fold must stay ASCII (no composition
  // across characters), which holds for ICU 72's data; check it. The
  // mid-word marks keep an empty fold: tokens drop them.
  for (int c = 0; c < 128; ++c) {
    AsciiClass cls = kAsciiClass[static_cast<size_t>(c)];
    if (cls != kLetter && cls != kDigit && cls != kUnderscore) continue;
    impl->text16 = icu::UnicodeString(static_cast<UChar32>(c));
    impl->unit_begin.assign(1, 0);
    impl->unit_end.assign(1, 1);
    impl->Normalize(0, 1);
    const std::string& f = impl->normalized;
    bool ascii = !f.empty() && f.size() <= sizeof(AsciiFold::bytes);
    for (char b : f) ascii = ascii && static_cast<uint8_t>(b) < 128;
    if (!ascii) {
      return absl::InternalError(absl::StrCat(
          "ICU folds ASCII character ", c, " to a non-ASCII form; ",
          "the ASCII fast path cannot represent it"));
    }
    AsciiFold& fold = impl->ascii_fold[static_cast<size_t>(c)];
    f.copy(fold.bytes, f.size());
    fold.size = static_cast<uint8_t>(f.size());
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

void Tokenizer::TokenizeReference(std::string_view input,
                                  std::vector<Token>* out) {
  out->clear();
  impl_->use_cache = false;
  const std::string_view utf8 = BlankMarkupResidue(input, &impl_->unmarked);
  impl_->Begin(utf8);
  impl_->IcuChunk(utf8, 0, utf8.size(), out);
  impl_->Flush(out);
}

std::vector<std::string> Tokenizer::NormalizedTokens(std::string_view input) {
  std::vector<std::string> texts;
  std::vector<Token> tokens;
  impl_->collect = &texts;
  impl_->use_cache = false;
  const std::string_view utf8 = BlankMarkupResidue(input, &impl_->unmarked);
  impl_->Begin(utf8);
  impl_->IcuChunk(utf8, 0, utf8.size(), &tokens);
  impl_->Flush(&tokens);
  impl_->collect = nullptr;
  return texts;
}

void Tokenizer::Tokenize(std::string_view input, std::vector<Token>* out) {
  out->clear();
  impl_->use_cache = true;
  const std::string_view utf8 = BlankMarkupResidue(input, &impl_->unmarked);
  impl_->Begin(utf8);
  const auto* s = reinterpret_cast<const uint8_t*>(utf8.data());
  const size_t n = utf8.size();
  size_t pos = 0;
  while (pos < n) {
    // ASCII up to the first non-ASCII byte, minus the unfinished run before it.
    size_t non_ascii = pos;
    while (non_ascii < n && s[non_ascii] < 128) ++non_ascii;
    if (non_ascii == n) {
      impl_->AsciiChunk(utf8, pos, n, out);
      break;
    }
    size_t boundary = non_ascii;
    while (boundary > pos && !IsAsciiSpace(s[boundary - 1])) --boundary;
    impl_->AsciiChunk(utf8, pos, boundary, out);

    // The ICU chunk: whitespace-delimited runs from `boundary` for as long as
    // the next run also holds a non-ASCII byte.
    size_t end = non_ascii;
    for (;;) {
      while (end < n && !IsAsciiSpace(s[end]) &&
             end - boundary < kMaxIcuChunkBytes) {
        ++end;
      }
      if (end == n) break;
      if (!IsAsciiSpace(s[end])) {  // forced split, at a code point start
        while (end > boundary + 1 && (s[end] & 0xC0) == 0x80) --end;
        break;
      }
      ++end;  // keep the whitespace byte in this chunk
      size_t k = end;
      while (k < n && !IsAsciiSpace(s[k]) && s[k] < 128) ++k;
      bool next_run_non_ascii = k < n && s[k] >= 128;
      if (!next_run_non_ascii || end - boundary >= kMaxIcuChunkBytes) break;
    }
    impl_->IcuChunk(utf8, boundary, end, out);
    pos = end;
  }
  impl_->Flush(out);
}

}  // namespace leakhound
