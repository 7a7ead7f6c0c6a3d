#include "shingler/shingler.h"

#include <bit>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shingler/winnower.h"
#include "unicode/uchar.h"
#include "unicode/uversion.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace leakhound {

std::string UnicodeVersion() {
  UVersionInfo version;
  u_getUnicodeVersion(version);
  char text[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(version, text);
  return text;
}
namespace {

absl::Status CheckRange(const char* name, int value, int lo, int hi) {
  if (value < lo || value > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

inline uint64_t ToLittleEndian(uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) {
    return __builtin_bswap64(v);
  }
  return v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Shingler>> Shingler::Create(
    const ShinglerOptions& options, const FingerprintKey& key) {
  if (auto s = CheckRange("shingle words", options.shingle_words, 1, 64);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRange("CJK characters per word",
                          options.cjk_chars_per_word, 1, 8);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRange("winnowing window", options.winnow_window, 0, 1024);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRange("filter winnowing window",
                          options.filter_winnow_window, 0, 1024);
      !s.ok()) {
    return s;
  }
  auto tokenizer = Tokenizer::Create();
  if (!tokenizer.ok()) return tokenizer.status();
  return std::unique_ptr<Shingler>(
      new Shingler(options, key, std::move(*tokenizer)));
}

Shingler::Shingler(const ShinglerOptions& options, const FingerprintKey& key,
                   std::unique_ptr<Tokenizer> tokenizer)
    : options_(options), key_(key), tokenizer_(std::move(tokenizer)) {}

namespace {

// The length of the UTF-8 sequence `lead` starts (0: not a lead byte).
uint32_t Utf8SequenceLength(unsigned char lead) {
  return lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2
         : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
}

}  // namespace

absl::StatusOr<ShingledText> Shingler::Shingle(std::string_view utf8) {
  if (utf8.size() > Tokenizer::kMaxInputBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("text of ", utf8.size(), " bytes exceeds the limit of ",
                     Tokenizer::kMaxInputBytes));
  }
  tokenizer_->Tokenize(utf8, &tokens_);
  return FromTokens(utf8);
}

ShingledText Shingler::ShingleReference(std::string_view utf8) {
  tokenizer_->TokenizeReference(utf8, &tokens_);
  return FromTokens(utf8);
}

ShingledText Shingler::FromTokens(std::string_view utf8) {
  ShingledText result;
  const size_t n = tokens_.size();
  result.token_count = static_cast<uint32_t>(n);
  const auto word_weight = static_cast<unsigned>(options_.cjk_chars_per_word);
  auto one_character = [&](size_t t) {
    const Token& token = tokens_[t];
    const uint32_t size = token.byte_end - token.byte_begin;
    if (size == 1) return true;  // ASCII: never a per-character token
    return size <= 4 && !token.per_character &&
           Utf8SequenceLength(static_cast<unsigned char>(
               utf8[token.byte_begin])) == size;
  };
  result.units_per_word = word_weight;
  result.word_units.resize(n + 1);
  result.word_units[0] = 0;
  // A one-character token next to another (an alphabet, a row of digits)
  // weighs as a CJK character; alone among words ("a", "I", "bit 3 of")
  // it is a word.
  bool previous = false, current = n > 0 && one_character(0);
  for (size_t t = 0; t < n; ++t) {
    const bool next = t + 1 < n && one_character(t + 1);
    const bool light =
        tokens_[t].per_character || (current && (previous || next));
    result.word_units[t + 1] =
        result.word_units[t] + (light ? 1u : word_weight);
    previous = current;
    current = next;
  }
  if (n == 0) return result;

  le_hashes_.resize(n);
  for (size_t i = 0; i < n; ++i)
    le_hashes_[i] = ToLittleEndian(tokens_[i].hash);
  result.word_checks.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t in[2] = {le_hashes_[i], ToLittleEndian(kWordCheckDomain)};
    result.word_checks[i] = static_cast<uint8_t>(
        XXH3_64bits_withSecret(in, sizeof(in), key_.secret().data(),
                               key_.secret().size()) >>
        56);
  }

  const unsigned target =
      static_cast<unsigned>(options_.shingle_words) * word_weight;
  auto make = [&](size_t begin, size_t end) {
    return leakhound::Shingle{
        XXH3_64bits_withSecret(le_hashes_.data() + begin,
                               (end - begin) * sizeof(uint64_t),
                               key_.secret().data(), key_.secret().size()),
        tokens_[begin].byte_begin, tokens_[end - 1].byte_end,
        static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  };

  result.shingles.reserve(n);
  // Sliding window: [i, j) is the shortest run from i of weight >= target.
  const std::vector<uint32_t>& units = result.word_units;
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    while (j < n && units[j] - units[i] < target) ++j;
    if (units[j] - units[i] < target) break;
    result.shingles.push_back(make(i, j));
  }
  if (result.shingles.empty()) result.shingles.push_back(make(0, n));

  if (options_.winnow_window > 1) {
    std::vector<uint64_t> fps(result.shingles.size());
    for (size_t i = 0; i < fps.size(); ++i) {
      fps[i] = result.shingles[i].fingerprint;
    }
    std::vector<size_t> keep = WinnowPositions(
        fps, static_cast<size_t>(options_.winnow_window));
    std::vector<leakhound::Shingle> kept;
    kept.reserve(keep.size());
    for (size_t k : keep) kept.push_back(result.shingles[k]);
    result.shingles = std::move(kept);
  }
  return result;
}

std::string IcuVersion() { return U_ICU_VERSION; }

}  // namespace leakhound
