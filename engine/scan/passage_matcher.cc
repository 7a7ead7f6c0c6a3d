#include "engine/scan/passage_matcher.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"

namespace leakhound {

namespace {

struct Keyed {
  uint64_t fingerprint;
  uint32_t shingle;
};

// Sorts `items` by fingerprint, keeping the input order among equal
// fingerprints. Two stable counting passes on the top 22 bits (11 each, so
// the counts stay in L1 and the scatter has 2,048 streams), then an
// insertion sort finishing the runs that share those bits: under one item
// long on average below 4 million items. Fingerprints are keyed hashes,
// so a sender cannot make long runs of distinct fingerprints; equal ones
// (a repeated line) never move past each other.
void SortByFingerprint(std::vector<Keyed>& items) {
  constexpr unsigned kBits = 11;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  std::vector<Keyed> scratch(items.size());
  std::vector<uint32_t> start(size_t{1} << kBits);
  for (unsigned shift : {64 - 2 * kBits, 64 - kBits}) {
    std::fill(start.begin(), start.end(), 0);
    for (const Keyed& k : items) ++start[(k.fingerprint >> shift) & kMask];
    uint32_t sum = 0;
    for (uint32_t& s : start) sum += std::exchange(s, sum);
    for (const Keyed& k : items) {
      scratch[start[(k.fingerprint >> shift) & kMask]++] = k;
    }
    items.swap(scratch);
  }
  for (size_t i = 1; i < items.size(); ++i) {
    const Keyed k = items[i];
    size_t j = i;
    for (; j > 0 && items[j - 1].fingerprint > k.fingerprint; --j) {
      items[j] = items[j - 1];
    }
    items[j] = k;
  }
}

}  // namespace

ScannedText::ScannedText(ShingledText text) : text_(std::move(text)) {
  const auto n = static_cast<uint32_t>(text_.shingles.size());
  std::vector<Keyed> items(n);
  for (uint32_t i = 0; i < n; ++i) {
    items[i] = Keyed{text_.shingles[i].fingerprint, i};
  }
  SortByFingerprint(items);
  // Each run of one fingerprint: its shingles in text order, at most
  // kMaxRepeats; the run's first shingle is where the fingerprint first
  // occurs.
  std::vector<bool> first(n);
  sorted_.reserve(n);
  begin_.reserve(n + 1);
  shingle_index_.reserve(n);
  begin_.push_back(0);
  for (uint32_t k = 0; k < n;) {
    const uint64_t fp = items[k].fingerprint;
    first[items[k].shingle] = true;
    uint32_t r = k;
    for (; r < n && items[r].fingerprint == fp; ++r) {
      if (r - k < kMaxRepeats) shingle_index_.push_back(items[r].shingle);
    }
    sorted_.push_back(fp);
    begin_.push_back(static_cast<uint32_t>(shingle_index_.size()));
    k = r;
  }
  distinct_.reserve(sorted_.size());
  for (uint32_t i = 0; i < n; ++i) {
    if (first[i]) distinct_.push_back(text_.shingles[i].fingerprint);
  }
  // 2^bits >= 64 * distinct, between 2^12 and 2^26 bits (8 MB); a bucket
  // per 64 bits, at least one per distinct fingerprint up to a million.
  unsigned bits = 12;
  while (bits < 26 && (uint64_t{1} << bits) < 64 * sorted_.size()) ++bits;
  shift_ = 64 - bits;
  bucket_shift_ = shift_ + 6;
  present_.assign(size_t{1} << (bits - 6), 0);
  bucket_.assign((size_t{1} << (bits - 6)) + 1, 0);
  for (uint64_t fp : sorted_) {
    const uint64_t bit = fp >> shift_;
    present_[bit >> 6] |= uint64_t{1} << (bit & 63);
    ++bucket_[(fp >> bucket_shift_) + 1];
  }
  for (size_t h = 1; h < bucket_.size(); ++h) bucket_[h] += bucket_[h - 1];
}

std::span<const uint32_t> ScannedText::Lookup(uint64_t fingerprint) const {
  const uint64_t h = fingerprint >> bucket_shift_;
  const auto last = sorted_.begin() + bucket_[h + 1];
  const auto it =
      std::lower_bound(sorted_.begin() + bucket_[h], last, fingerprint);
  if (it == last || *it != fingerprint) return {};
  const auto k = static_cast<size_t>(it - sorted_.begin());
  return std::span<const uint32_t>(shingle_index_.data() + begin_[k],
                                   begin_[k + 1] - begin_[k]);
}

PassageOptions PassageOptionsFor(const ShinglerOptions& options) {
  const auto shingle_tokens = static_cast<uint32_t>(options.shingle_words) *
                              static_cast<uint32_t>(options.cjk_chars_per_word);
  PassageOptions out;
  out.max_gap_tokens =
      2 * shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_aligned_gap_tokens =
      3 * shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_drift_tokens = static_cast<uint32_t>(options.shingle_words);
  out.max_group_gap_tokens =
      shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_group_slack_tokens = shingle_tokens;
  out.max_check_skip_tokens = static_cast<uint32_t>(options.cjk_chars_per_word);
  out.min_check_run_tokens = out.max_check_skip_tokens;
  out.max_check_extension_tokens = out.max_aligned_gap_tokens;
  return out;
}

namespace {

struct Pair {
  uint32_t scanned;  // index into the scanned shingles
  uint32_t source;   // index into the source occurrences
};

struct Chain {
  Passage passage;
  uint32_t last_token;  // token_begin of the last scanned shingle
  int64_t first_diagonal;
  int64_t last_diagonal;
  // Union of the chained shingles' scanned tokens: its end and its weight
  // (ShingledText::word_units). Shingles come in token_begin order.
  uint32_t covered_end;
  uint64_t covered_units;
  // Scanned tokens counted as covered without a shingle over them, between
  // shingles on one diagonal: each [begin, end) with its diagonal.
  struct Unverified {
    uint32_t begin, end;
    int64_t diagonal;
  };
  std::vector<Unverified> unverified;
  // Scanned tokens [begin, end) the chain bridged off its diagonal (words
  // inserted, or moved from elsewhere in the source), not counted as
  // covered, each with the chain's covered_units before it.
  struct Bridged {
    uint32_t begin, end;
    uint64_t covered_before;
    int64_t diagonal_after;  // of the shingle after them
  };
  std::vector<Bridged> bridged;
  // What CheckExtender::Extend added before the chain's first shingle and
  // after its last: the weight, and the tokens whose checks differ (counted
  // as it walks) with their weight.
  struct Extension {
    uint64_t units = 0;
    uint32_t differing = 0;
    uint64_t differing_units = 0;
  };
  Extension head, tail;
};

int64_t Diagonal(const Shingle& s, const Occurrence& o) {
  return int64_t{o.token_begin} - int64_t{s.token_begin};
}

// Every (scanned shingle, source occurrence) with one fingerprint, each
// fingerprint's source occurrences capped like the scanned ones, in
// scanned order (then source order).
std::vector<Pair> SharedPairs(const ScannedText& scanned,
                              std::span<const Occurrence> source,
                              const std::function<bool(uint64_t)>& suppressed) {
  const std::vector<Shingle>& shingles = scanned.text().shingles;
  std::vector<Pair> pairs;
  absl::flat_hash_map<uint64_t, uint32_t> source_repeats;
  for (uint32_t j = 0; j < source.size(); ++j) {
    const uint64_t fp = source[j].fingerprint;
    std::span<const uint32_t> hits = scanned.ShinglesWith(fp);
    if (hits.empty() || (suppressed && suppressed(fp))) continue;
    if (++source_repeats[fp] > ScannedText::kMaxRepeats) continue;
    for (uint32_t i : hits) pairs.push_back(Pair{i, j});
  }
  std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
    const uint32_t ta = shingles[a.scanned].token_begin;
    const uint32_t tb = shingles[b.scanned].token_begin;
    if (ta != tb) return ta < tb;
    return source[a.source].token_begin < source[b.source].token_begin;
  });
  return pairs;
}

// A chain of one pair.
Chain StartChain(const Shingle& s, const Occurrence& o,
                 const std::vector<uint32_t>& units) {
  Passage fresh{s.token_begin,   s.token_end,   s.byte_begin, s.byte_end,
                o.token_begin,   o.token_end,   o.byte_begin, o.byte_end,
                1,               0};
  return Chain{fresh,          s.token_begin,
               Diagonal(s, o), Diagonal(s, o),
               s.token_end,    units[s.token_end] - units[s.token_begin],
               {},             {},
               {},             {}};
}

// Chain `c` continued by the pair (s, o).
void ExtendChain(Chain& c, const Shingle& s, const Occurrence& o,
                 const std::vector<uint32_t>& units) {
  Passage& q = c.passage;
  q.token_end = std::max(q.token_end, s.token_end);
  q.byte_end = std::max(q.byte_end, s.byte_end);
  q.source_token_begin = std::min(q.source_token_begin, o.token_begin);
  q.source_token_end = std::max(q.source_token_end, o.token_end);
  q.source_byte_begin = std::min(q.source_byte_begin, o.byte_begin);
  q.source_byte_end = std::max(q.source_byte_end, o.byte_end);
  ++q.shingles;
  // On the chain's own diagonal, the scanned tokens between the covered
  // part and this shingle face as many source tokens: words substituted
  // one for one, which count as covered.
  const bool aligned = Diagonal(s, o) == c.last_diagonal;
  c.last_token = s.token_begin;
  c.last_diagonal = Diagonal(s, o);
  if (s.token_end > c.covered_end) {
    const uint32_t from =
        aligned ? c.covered_end : std::max(s.token_begin, c.covered_end);
    if (from < s.token_begin) {
      c.unverified.push_back({from, s.token_begin, c.last_diagonal});
    }
    if (!aligned && c.covered_end < s.token_begin) {
      c.bridged.push_back(
          {c.covered_end, s.token_begin, c.covered_units, c.last_diagonal});
    }
    c.covered_units += units[s.token_end] - units[from];
    c.covered_end = s.token_end;
  }
}

// Greedy chaining in scanned order: each pair extends the open chain
// whose diagonal it continues best, or starts a new one. Returns every
// chain.
std::vector<Chain> ChainPairs(const ScannedText& scanned,
                              std::span<const Occurrence> source,
                              std::span<const Pair> pairs,
                              const PassageOptions& options) {
  const std::vector<Shingle>& shingles = scanned.text().shingles;
  const std::vector<uint32_t>& units = scanned.text().word_units;
  std::vector<Chain> open, done;
  const uint32_t reach =
      std::max(options.max_gap_tokens, options.max_aligned_gap_tokens);
  for (const Pair& p : pairs) {
    const Shingle& s = shingles[p.scanned];
    const Occurrence& o = source[p.source];
    const int64_t diagonal = Diagonal(s, o);
    // Retire chains the gap can no longer bridge.
    auto stale = std::partition(open.begin(), open.end(), [&](const Chain& c) {
      return s.token_begin - c.last_token <= reach;
    });
    done.insert(done.end(), stale, open.end());
    open.erase(stale, open.end());

    Chain* best = nullptr;
    int64_t best_drift = std::numeric_limits<int64_t>::max();
    for (Chain& c : open) {
      if (c.last_token >= s.token_begin) continue;  // one pair per step
      const int64_t drift = std::llabs(diagonal - c.last_diagonal);
      const uint32_t gap = drift == 0 ? options.max_aligned_gap_tokens
                                      : options.max_gap_tokens;
      if (s.token_begin - c.last_token > gap) continue;
      if (drift <= int64_t{options.max_drift_tokens} && drift < best_drift) {
        best = &c;
        best_drift = drift;
      }
    }
    if (best == nullptr) {
      open.push_back(StartChain(s, o, units));
    } else {
      ExtendChain(*best, s, o, units);
    }
  }
  done.insert(done.end(), open.begin(), open.end());
  return done;
}

// The byte where token `t` begins (`end` false) or ends (`end` true),
// read off `items` (shingles or occurrences, ascending token_begin, so
// also ascending token_end): kept as `fallback` when no item starts (ends)
// at that token, as under winnowing.
template <typename Item>
uint32_t TokenByte(std::span<const Item> items, uint32_t t, bool end,
                   uint32_t fallback) {
  if (!end) {
    auto it = std::lower_bound(
        items.begin(), items.end(), t,
        [](const Item& x, uint32_t v) { return x.token_begin < v; });
    return it != items.end() && it->token_begin == t ? it->byte_begin
                                                     : fallback;
  }
  auto it = std::lower_bound(
      items.begin(), items.end(), t + 1,
      [](const Item& x, uint32_t v) { return x.token_end < v; });
  return it != items.end() && it->token_end == t + 1 ? it->byte_end : fallback;
}

// Whether a suppressed shingle of `text` holds token t.
bool HeldBySuppressed(const ShingledText& text,
                      const std::function<bool(uint64_t)>& suppressed,
                      uint32_t t) {
  if (!suppressed) return false;
  const std::vector<Shingle>& shingles = text.shingles;
  auto it = std::upper_bound(
      shingles.begin(), shingles.end(), t,
      [](uint32_t v, const Shingle& x) { return v < x.token_begin; });
  // Shingles ending at or before t end the walk: token_end ascends with
  // token_begin.
  while (it != shingles.begin()) {
    --it;
    if (it->token_end <= t) break;
    if (suppressed(it->fingerprint)) return true;
  }
  return false;
}

// Grows chain `c` past its ends along its diagonals while the word checks
// agree (PassageOptions::max_check_skip_tokens), never into a token of a
// suppressed scanned shingle.
class CheckExtender {
 public:
  CheckExtender(const ScannedText& scanned, std::span<const Occurrence> source,
                std::string_view source_checks,
                const std::function<bool(uint64_t)>& suppressed,
                const PassageOptions& options)
      : text_(scanned.text()),
        source_(source),
        source_checks_(source_checks),
        suppressed_(suppressed),
        options_(options) {}

  void Extend(Chain& c) const {
    Passage& q = c.passage;
    const std::vector<uint32_t>& units = text_.word_units;
    const uint32_t begin = Reach(q.token_begin, c.first_diagonal, -1, &c.head);
    const uint32_t end = Reach(q.token_end, c.last_diagonal, +1, &c.tail);
    if (begin < q.token_begin) {
      c.head.units = units[q.token_begin] - units[begin];
      c.covered_units += c.head.units;
      q.byte_begin =
          TokenByte<Shingle>(text_.shingles, begin, false, q.byte_begin);
      const auto source_begin =
          static_cast<uint32_t>(int64_t{begin} + c.first_diagonal);
      q.source_byte_begin =
          std::min(q.source_byte_begin,
                   TokenByte<Occurrence>(source_, source_begin, false,
                                         q.source_byte_begin));
      q.source_token_begin = std::min(q.source_token_begin, source_begin);
      q.token_begin = begin;
    }
    if (end > q.token_end) {
      c.tail.units = units[end] - units[q.token_end];
      c.covered_units += c.tail.units;
      q.byte_end =
          TokenByte<Shingle>(text_.shingles, end - 1, true, q.byte_end);
      const auto source_end =
          static_cast<uint32_t>(int64_t{end} + c.last_diagonal);
      q.source_byte_end = std::max(
          q.source_byte_end, TokenByte<Occurrence>(source_, source_end - 1,
                                                   true, q.source_byte_end));
      q.source_token_end = std::max(q.source_token_end, source_end);
      q.token_end = end;
    }
  }

  // Checks the words `c` holds without a shingle. Substituted ones: the
  // tokens it counts as covered whose checks differ, but for an aligned
  // gap the source holds elsewhere (sentences swapped: Explain). Inserted
  // ones: the tokens it bridged off its diagonal that the source does not
  // hold near there (short sentences moved within a copied excerpt, too
  // short for a shingle of their own, are held, and count as covered).
  // When more than one token in kMaxSubstitutedShare of the passage is
  // substituted or inserted, it is another text with words in common (a
  // sibling page's sentence with its subject changed, a paragraph written
  // from one template), not a copy with a few words changed. It then
  // counts the largest run of the stretches between its insertions that
  // stays within that share; a single stretch beyond it counts less its
  // substituted words.
  void Verify(Chain& c) const {
    const Passage& q = c.passage;
    const std::vector<uint32_t>& units = text_.word_units;
    // Scanned tokens [begin, end), their weight, and their substituted
    // words and weight; `inserted_after`: the inserted tokens that follow.
    struct Stretch {
      uint32_t begin, end;
      uint64_t units;
      uint32_t differing;
      uint64_t differing_units;
      uint32_t inserted_after;
    };
    std::vector<Stretch> stretches;
    uint32_t begin = q.token_begin;
    uint64_t before = 0;
    uint32_t inserted = 0;
    uint64_t copied = 0;  // weight of the copied gap words of the stretch
    uint64_t copied_total = 0;
    for (const Chain::Bridged& b : c.bridged) {
      const Gap gap = Explain(b.begin, b.end, b.diagonal_after);
      if (gap.inserted == 0) {
        copied += gap.copied_units;
        continue;
      }
      inserted += gap.inserted;
      stretches.push_back({begin, b.begin, b.covered_before - before + copied,
                           0, 0, gap.inserted});
      begin = b.end;
      before = b.covered_before;
      copied_total += copied;
      copied = 0;
    }
    copied_total += copied;
    stretches.push_back({begin, q.token_end,
                         c.covered_units - c.head.units - before + copied,
                         c.tail.differing, c.tail.differing_units, 0});
    c.covered_units += copied_total;
    Stretch& first = stretches.front();
    first.units += c.head.units;
    first.differing += c.head.differing;
    first.differing_units += c.head.differing_units;
    uint32_t differing = c.head.differing + c.tail.differing;
    size_t k = 0;  // unverified gaps come in text order
    for (const Chain::Unverified& u : c.unverified) {
      while (u.begin >= stretches[k].end && k + 1 < stretches.size()) ++k;
      uint32_t gap_differing = 0;
      uint64_t gap_differing_units = 0;
      for (uint32_t t = u.begin; t < u.end; ++t) {
        if (Usable(t, u.diagonal) && !Agrees(t, u.diagonal)) {
          ++gap_differing;
          gap_differing_units += units[t + 1] - units[t];
        }
      }
      // Sentences swapped between two of its shingles on one diagonal are
      // moved words, not substituted ones.
      if (gap_differing >= kMinMovedTokens &&
          Explain(u.begin, u.end, u.diagonal).inserted == 0) {
        continue;
      }
      differing += gap_differing;
      stretches[k].differing += gap_differing;
      stretches[k].differing_units += gap_differing_units;
    }
    if (uint64_t{differing + inserted} * kMaxSubstitutedShare <=
        q.token_end - q.token_begin) {
      return;
    }
    uint64_t largest = 0;
    for (size_t i = 0; i < stretches.size(); ++i) {
      const Stretch& alone = stretches[i];
      largest = std::max(largest, alone.units - std::min(alone.units,
                                                         alone.differing_units));
      uint64_t weight = 0;
      uint64_t charged = 0;
      const size_t last = std::min(stretches.size(), i + kMaxGroupPassages);
      for (size_t j = i; j < last; ++j) {
        weight += stretches[j].units;
        charged += stretches[j].differing;
        if (charged * kMaxSubstitutedShare <= stretches[j].end - alone.begin) {
          largest = std::max(largest, weight);
        }
        charged += stretches[j].inserted_after;
      }
    }
    c.covered_units = largest;
  }

  // Sets each passage's inserted_before and copied_before: the tokens
  // between it and the passages before it, when at most
  // max_group_gap_tokens, that count as inserted, and the words of those
  // that count as covered, moved ones (Explain). Unless those are
  // copied, sets held_after and held_before (Held): the moved words at
  // the edges, each side's walk stopping where the other's began. A gap
  // partly held still counts whole as inserted.
  // REQUIRES: `passages` in scanned-text order.
  void ChargeGaps(std::vector<Passage>& passages) const {
    const uint32_t limit = options_.max_group_gap_tokens;
    uint32_t reach = 0;
    size_t reaching = 0;  // the passage that ends at `reach`
    for (size_t j = 0; j < passages.size(); ++j) {
      Passage& p = passages[j];
      // Where the walk back from p must stop.
      uint32_t from = p.token_begin - std::min(p.token_begin, limit);
      if (j > 0 && p.token_begin > reach) {
        Passage& before = passages[reaching];
        const uint32_t after_end = std::min(p.token_begin, reach + limit);
        if (p.token_begin - reach <= limit) {
          const Gap gap =
              Explain(reach, p.token_begin,
                      int64_t{p.source_token_begin} - int64_t{p.token_begin});
          p.inserted_before = gap.inserted;
          p.copied_before =
              static_cast<uint32_t>(gap.copied_units / text_.units_per_word);
        }
        if (p.copied_before == 0) {
          uint32_t held_end = reach;
          before.held_after =
              Held(reach, after_end, before.source_token_begin,
                   before.source_token_end, &held_end);
          from = std::max(from, held_end);
        } else {
          from = p.token_begin;
        }
      } else if (j > 0) {
        from = p.token_begin;  // overlaps the passages before it
      }
      uint32_t unused = 0;
      p.held_before = Held(p.token_begin, from, p.source_token_begin,
                           p.source_token_end, &unused);
      if (p.token_end > reach) {
        reach = p.token_end;
        reaching = j;
      }
    }
    if (!passages.empty()) {
      Passage& last = passages[reaching];
      uint32_t unused = 0;
      last.held_after = Held(reach, std::min(text_.token_count, reach + limit),
                             last.source_token_begin, last.source_token_end,
                             &unused);
    }
  }

 private:
  // Whether scanned token t (facing source token t + diagonal) may be
  // compared: both exist and no suppressed shingle holds t.
  bool Usable(int64_t t, int64_t diagonal) const {
    const int64_t s = t + diagonal;
    if (t < 0 || t >= int64_t{text_.token_count} || s < 0 ||
        s >= static_cast<int64_t>(source_checks_.size())) {
      return false;
    }
    return !HeldBySuppressed(text_, suppressed_, static_cast<uint32_t>(t));
  }

  // Scanned tokens between two runs of copied text: how many count as
  // inserted, and the weight of those that count as covered.
  struct Gap {
    uint32_t inserted;
    uint64_t copied_units;
  };
  // The scanned tokens [begin, end) before text on source diagonal
  // `after`. They are inserted unless the source holds them, checks equal
  // and in order, as runs of at least kMinMovedTokens tokens (the last of
  // several may be shorter) each within kMoveTokens of where the text
  // after them resumes: moved words (short sentences of a reordered
  // excerpt, too short for a shingle of their own), which count as
  // covered. A gap shorter than one run is inserted words. Suppressed
  // tokens match any and count as neither.
  static constexpr uint32_t kMoveTokens = 256;
  // A run of 3 tokens' checks agrees by chance with one of the 512 places
  // searched with probability 2^-15; a run of 1 almost surely does.
  static constexpr uint32_t kMinMovedTokens = 3;
  Gap Explain(uint32_t begin, uint32_t end, int64_t after) const {
    const std::vector<uint32_t>& units = text_.word_units;
    absl::InlinedVector<int16_t, 32> wanted;
    uint64_t copied = 0;
    uint32_t unsuppressed = 0;
    for (uint32_t t = begin; t < end; ++t) {
      if (HeldBySuppressed(text_, suppressed_, t)) {
        wanted.push_back(kAnyCheck);
        continue;
      }
      wanted.push_back(text_.word_checks[t]);
      copied += units[t + 1] - units[t];
      ++unsuppressed;
    }
    if (unsuppressed == 0) return {0, 0};
    const int64_t next = int64_t{end} + after;
    const int64_t lo = std::max<int64_t>(0, next - kMoveTokens);
    const int64_t hi = std::min(static_cast<int64_t>(source_checks_.size()),
                                next + kMoveTokens);
    // Greedily, the longest held run from each token on.
    for (uint32_t t = begin; t < end;) {
      const uint32_t longest = LongestRun(
          std::span<const int16_t>(wanted).subspan(t - begin), lo, hi, +1);
      const uint32_t run =
          t == begin ? kMinMovedTokens : std::min(kMinMovedTokens, end - t);
      if (longest < run) return {unsuppressed, 0};
      t += longest;
    }
    return {0, copied};
  }

  // The words of the scanned tokens from `edge` toward `limit` (forward
  // when limit > edge: tokens [edge, limit); backward otherwise: tokens
  // [limit, edge) from the last) that the source holds, checks equal and
  // in order, as consecutive runs of at least kMinMovedTokens tokens, each
  // within the group slack and gap of the passage's source range
  // [source_begin, source_end) but outside it (another part of the
  // excerpt, not a phrase the passage repeats); the walk stops at the
  // first token no such run holds, or a suppressed one, and sets
  // `*reached` to where it stopped.
  uint32_t Held(uint32_t edge, uint32_t limit, uint32_t source_begin,
                uint32_t source_end, uint32_t* reached) const {
    const int step = limit >= edge ? 1 : -1;
    // Scanned token k of the walk.
    const auto token = [&](uint32_t k) {
      return step > 0 ? edge + k : edge - 1 - k;
    };
    const uint32_t stop = step > 0 ? limit - edge : edge - limit;
    absl::InlinedVector<int16_t, 32> checks;
    for (uint32_t k = 0; k < stop; ++k) {
      checks.push_back(text_.word_checks[token(k)]);
    }
    const int64_t reach = int64_t{options_.max_group_slack_tokens} +
                          options_.max_group_gap_tokens;
    const int64_t size = static_cast<int64_t>(source_checks_.size());
    const std::array<std::pair<int64_t, int64_t>, 2> windows = {
        std::pair<int64_t, int64_t>{std::max<int64_t>(0, source_begin - reach),
                                    std::min<int64_t>(size, source_begin)},
        std::pair<int64_t, int64_t>{std::min<int64_t>(size, source_end),
                                    std::min<int64_t>(size, source_end + reach)}};
    // The tokens held among the first n of the walk.
    const auto walk = [&](uint32_t n) {
      uint32_t taken = 0;
      while (taken < n) {
        const auto rest =
            std::span<const int16_t>(checks).subspan(taken, n - taken);
        uint32_t longest = 0;
        for (const auto& [lo, hi] : windows) {
          longest = std::max(longest, LongestRun(rest, lo, hi, step));
        }
        if (longest < kMinMovedTokens) break;
        taken += longest;
      }
      return taken;
    };
    uint32_t taken = walk(stop);
    // Suppressed tokens end the walk (looked up only for held ones).
    for (uint32_t k = 0; k < taken; ++k) {
      if (HeldBySuppressed(text_, suppressed_, token(k))) {
        taken = walk(k);
        break;
      }
    }
    *reached = step > 0 ? edge + taken : edge - taken;
    const std::vector<uint32_t>& units = text_.word_units;
    const uint32_t held = step > 0 ? units[edge + taken] - units[edge]
                                   : units[edge] - units[edge - taken];
    return held / text_.units_per_word;
  }

  // The most of `wanted`, from its first, that the source holds in
  // order, checks equal, starting at a token of [lo, hi) and read forward
  // (`step` +1) or backward (-1) without leaving it. kAnyCheck matches
  // any check.
  static constexpr int16_t kAnyCheck = -1;
  uint32_t LongestRun(std::span<const int16_t> wanted, int64_t lo, int64_t hi,
                      int step) const {
    uint32_t longest = 0;
    for (int64_t p = lo; p < hi && longest < wanted.size(); ++p) {
      uint32_t k = 0;
      for (int64_t q = p;
           k < wanted.size() && q >= lo && q < hi &&
           (wanted[k] == kAnyCheck ||
            wanted[k] == static_cast<uint8_t>(
                             source_checks_[static_cast<size_t>(q)]));
           q += step) {
        ++k;
      }
      longest = std::max(longest, k);
    }
    return longest;
  }

  bool Agrees(int64_t t, int64_t diagonal) const {
    return static_cast<uint8_t>(
               source_checks_[static_cast<size_t>(t + diagonal)]) ==
           text_.word_checks[static_cast<size_t>(t)];
  }

  // Grows a passage whose end (`step` +1) or first token (`step` -1) is
  // `edge`, by at most max_check_extension_tokens tokens: returns its new
  // end (a token index for the begin, one past it for the end) and sets
  // the differing tokens it crossed, with their weight, in `*extension`.
  uint32_t Reach(uint32_t edge, int64_t diagonal, int step,
                 Chain::Extension* extension) const {
    int64_t accepted = step > 0 ? int64_t{edge} - 1 : edge;  // last kept
    const int64_t last =
        accepted + step * int64_t{options_.max_check_extension_tokens};
    auto usable = [&](int64_t t) {
      return (last - t) * step >= 0 && Usable(t, diagonal);
    };
    const std::vector<uint32_t>& units = text_.word_units;
    for (;;) {
      int64_t t = accepted + step;
      uint32_t skipped = 0;
      uint64_t skipped_units = 0;
      while (usable(t) && !Agrees(t, diagonal) &&
             skipped <= options_.max_check_skip_tokens) {
        ++skipped;
        const auto at = static_cast<size_t>(t);
        skipped_units += units[at + 1] - units[at];
        t += step;
      }
      if (skipped > options_.max_check_skip_tokens) break;
      uint32_t run = 0;
      while (usable(t) && Agrees(t, diagonal)) {
        ++run;
        t += step;
      }
      if (run < options_.min_check_run_tokens) break;
      accepted = t - step;
      extension->differing += skipped;
      extension->differing_units += skipped_units;
    }
    return static_cast<uint32_t>(step > 0 ? accepted + 1 : accepted);
  }

  const ShingledText& text_;
  std::span<const Occurrence> source_;
  std::string_view source_checks_;
  const std::function<bool(uint64_t)>& suppressed_;
  const PassageOptions& options_;
};

// The source tokens between two passages' source ranges: 0 when they
// overlap or touch.
uint32_t SourceDistance(const Passage& a, const Passage& b) {
  if (a.source_token_end < b.source_token_begin) {
    return b.source_token_begin - a.source_token_end;
  }
  if (b.source_token_end < a.source_token_begin) {
    return a.source_token_begin - b.source_token_end;
  }
  return 0;
}

// The chains' passages in text order, longer first at equal starts; a
// passage ending no later than one kept before it lies inside that one and
// is dropped. A scanned span that matches the source in several places
// (a sentence the source repeats) keeps the place nearest the source
// ranges of the passages next to it in the scanned text, at most
// max_group_gap_tokens away: the other sentences of its excerpt.
std::vector<Passage> OutermostPassages(const ScannedText& scanned,
                                       std::vector<Chain> chains,
                                       const PassageOptions& options) {
  std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) {
    if (a.passage.token_begin != b.passage.token_begin) {
      return a.passage.token_begin < b.passage.token_begin;
    }
    if (a.passage.token_end != b.passage.token_end) {
      return a.passage.token_end > b.passage.token_end;
    }
    return a.passage.shingles > b.passage.shingles;
  });
  std::vector<Passage> out;
  // Other places of a kept passage: (its index in out, the passage).
  std::vector<std::pair<size_t, Passage>> places;
  uint32_t reach = 0;
  for (const Chain& c : chains) {
    Passage p = c.passage;
    p.words = scanned.text().Words(p.token_begin, p.token_end);
    p.covered_words =
        static_cast<uint32_t>(c.covered_units / scanned.text().units_per_word);
    if (!out.empty() && p.token_end <= reach) {
      const Passage& kept = out.back();
      if (p.token_begin == kept.token_begin &&
          p.token_end == kept.token_end &&
          p.covered_words == kept.covered_words) {
        places.emplace_back(out.size() - 1, p);
      }
      continue;
    }
    out.push_back(p);
    reach = std::max(reach, p.token_end);
  }
  // Source distance from the nearest neighbour within a group's gap in the
  // scanned text; with none there, the largest value (p never replaces).
  const auto distance = [&](size_t i, const Passage& p) {
    uint32_t nearest = std::numeric_limits<uint32_t>::max();
    if (i > 0 &&
        p.token_begin <= out[i - 1].token_end + options.max_group_gap_tokens) {
      nearest = std::min(nearest, SourceDistance(out[i - 1], p));
    }
    if (i + 1 < out.size() &&
        out[i + 1].token_begin <= p.token_end + options.max_group_gap_tokens) {
      nearest = std::min(nearest, SourceDistance(out[i + 1], p));
    }
    return nearest;
  };
  for (const auto& [i, p] : places) {
    if (distance(i, p) < distance(i, out[i])) out[i] = p;
  }
  return out;
}

}  // namespace

std::vector<Passage> MatchPassages(
    const ScannedText& scanned, std::span<const Occurrence> source,
    std::string_view source_checks,
    const std::function<bool(uint64_t)>& suppressed,
    const PassageOptions& options) {
  const std::vector<Pair> pairs = SharedPairs(scanned, source, suppressed);
  std::vector<Chain> chains = ChainPairs(scanned, source, pairs, options);
  if (source_checks.empty() ||
      scanned.text().word_checks.size() != scanned.text().token_count) {
    return OutermostPassages(scanned, std::move(chains), options);
  }
  const CheckExtender extender(scanned, source, source_checks, suppressed,
                               options);
  for (Chain& c : chains) {
    extender.Extend(c);
    extender.Verify(c);
  }
  std::vector<Passage> passages =
      OutermostPassages(scanned, std::move(chains), options);
  extender.ChargeGaps(passages);
  return passages;
}

double SourceCoverage(std::span<const Passage> passages,
                      uint32_t source_tokens) {
  if (source_tokens == 0) return 0;
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  spans.reserve(passages.size());
  for (const Passage& p : passages) {
    spans.emplace_back(p.source_token_begin, p.source_token_end);
  }
  const uint64_t covered = UnionMeasure(
      std::move(spans), [](uint32_t b, uint32_t e) { return e - b; });
  return static_cast<double>(covered) / source_tokens;
}

namespace {

// Source tokens [begin, end).
struct SourceRange {
  uint32_t begin, end;
};

// Adds `range` to the sorted, disjoint `*ranges` (merging those it
// overlaps or touches, in place) and returns how many of its tokens were
// in none of them.
uint32_t AddSourceRange(SourceRange range, std::vector<SourceRange>* ranges) {
  // The ranges it overlaps or touches are consecutive: from the first
  // ending at or past its begin to the last starting at or before its end.
  const auto first = std::lower_bound(
      ranges->begin(), ranges->end(), range.begin,
      [](const SourceRange& r, uint32_t v) { return r.end < v; });
  auto last = first;
  uint32_t held = 0;
  SourceRange merged = range;
  for (; last != ranges->end() && last->begin <= range.end; ++last) {
    const uint32_t end = std::min(last->end, range.end);
    held += end - std::min(std::max(last->begin, range.begin), end);
    merged = {std::min(merged.begin, last->begin),
              std::max(merged.end, last->end)};
  }
  if (first == last) {
    ranges->insert(first, merged);
  } else {
    *first = merged;
    ranges->erase(first + 1, last);
  }
  return range.end - range.begin - held;
}

}  // namespace

uint32_t LargestGroupWords(std::span<const Passage> passages,
                           const PassageOptions& options) {
  // Every run of passages starting at each passage is tried: a run's prefix
  // may span a gap of the source that a later passage fills (the second
  // sentence of three, moved last), so growing one run greedily and
  // restarting where its prefix fails would miss whole groups.
  uint64_t largest = 0;
  std::vector<SourceRange> sources;  // the run's source ranges, merged
  for (size_t i = 0; i < passages.size(); ++i) {
    Passage group = passages[i];
    uint64_t words = uint64_t{group.covered_words} + group.held_before;
    uint64_t inserted = 0;
    largest = std::max(largest, words + group.held_after);
    sources.assign(1, {group.source_token_begin, group.source_token_end});
    const size_t last = std::min(passages.size(), i + kMaxGroupPassages);
    for (size_t j = i + 1; j < last; ++j) {
      const Passage& p = passages[j];
      if (p.token_begin > group.token_end + options.max_group_gap_tokens) break;
      inserted += p.inserted_before;
      if (p.token_begin > group.token_end) words += p.copied_before;
      // Only the part past the run's scanned end, and outside the source
      // ranges it holds, adds words: a source sentence copied twice counts
      // once.
      const uint32_t from =
          std::clamp(group.token_end, p.token_begin, p.token_end);
      const uint32_t source_tokens =
          std::max<uint32_t>(1, p.source_token_end - p.source_token_begin);
      const uint32_t new_source = AddSourceRange(
          {p.source_token_begin, p.source_token_end}, &sources);
      words += std::min(uint64_t{p.covered_words} * (p.token_end - from) /
                            std::max<uint32_t>(1, p.token_end - p.token_begin),
                        uint64_t{p.covered_words} * new_source / source_tokens);
      words += passages[j - 1].held_after + p.held_before;
      group.token_end = std::max(group.token_end, p.token_end);
      group.source_token_begin =
          std::min(group.source_token_begin, p.source_token_begin);
      group.source_token_end =
          std::max(group.source_token_end, p.source_token_end);
      const uint32_t span = group.token_end - group.token_begin;
      if (group.source_token_end - group.source_token_begin <=
              span + options.max_group_slack_tokens &&
          inserted * kMaxSubstitutedShare <= span) {
        largest = std::max(largest, words + p.held_after);
      }
    }
  }
  return static_cast<uint32_t>(largest);
}

}  // namespace leakhound
