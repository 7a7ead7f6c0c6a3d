#include "corpus/near_copy_referee.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace leakhound {
namespace {

// Positions of one seed looked at, at most: a token run repeated more often
// (a table's rule line) seeds no further diagonals.
constexpr size_t kMaxSeedPositions = 32;

struct Segment {
  uint32_t a_begin, a_end;  // scanned tokens
  uint32_t b_begin, b_end;  // source tokens
  int64_t score;            // equal tokens - mismatch_cost * differing ones
};

uint64_t Seed(std::span<const uint64_t> h, size_t i) {
  uint64_t x = h[i];
  for (size_t k = 1; k < kSeedTokens; ++k) {
    x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ULL + h[i + k];
  }
  return x;
}

// The segments of diagonal `d` (scanned token i faces source token i - d):
// the longest stretches, from an equal token to an equal token, with at
// most one differing token in mismatch_cost + 1 (their score, +1 per equal
// token and -mismatch_cost per differing one, is not negative), longest
// first and not overlapping, each scoring at least kSeedTokens.
void WalkDiagonal(std::span<const uint64_t> a, std::span<const uint64_t> b,
                  int64_t d, uint32_t mismatch_cost,
                  std::vector<Segment>* out) {
  const auto lo = static_cast<size_t>(std::max<int64_t>(0, d));
  const auto hi = static_cast<size_t>(std::min<int64_t>(
      static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size()) + d));
  if (hi <= lo) return;
  const size_t n = hi - lo;
  std::vector<bool> equal(n);
  // prefix[k]: the score of positions [0, k); minima: the positions whose
  // prefix is below every earlier one (decreasing prefixes), where the
  // longest stretch ending anywhere starts.
  std::vector<int64_t> prefix(n + 1, 0);
  std::vector<size_t> minima = {0};
  for (size_t k = 0; k < n; ++k) {
    equal[k] = a[lo + k] == b[static_cast<size_t>(
                                static_cast<int64_t>(lo + k) - d)];
    prefix[k + 1] =
        prefix[k] + (equal[k] ? 1 : -static_cast<int64_t>(mismatch_cost));
    if (prefix[k + 1] < prefix[minima.back()]) minima.push_back(k + 1);
  }
  struct Stretch {
    size_t begin, end;  // positions on the diagonal
    int64_t score;
  };
  std::vector<Stretch> stretches;
  for (size_t e = 0; e < n; ++e) {
    if (!equal[e]) continue;
    // The first minimum at or below prefix[e + 1].
    auto it = std::partition_point(minima.begin(), minima.end(), [&](size_t k) {
      return prefix[k] > prefix[e + 1];
    });
    size_t s = *it;
    while (!equal[s]) ++s;  // s <= e: equal[e]
    const int64_t score = prefix[e + 1] - prefix[s];
    if (score >= kSeedTokens) stretches.push_back({s, e + 1, score});
  }
  std::sort(stretches.begin(), stretches.end(),
            [](const Stretch& x, const Stretch& y) {
              return x.end - x.begin > y.end - y.begin;
            });
  std::vector<Stretch> kept;
  for (const Stretch& x : stretches) {
    const bool overlaps = std::any_of(
        kept.begin(), kept.end(),
        [&](const Stretch& y) { return x.begin < y.end && y.begin < x.end; });
    if (overlaps) continue;
    kept.push_back(x);
    out->push_back(
        {static_cast<uint32_t>(lo + x.begin), static_cast<uint32_t>(lo + x.end),
         static_cast<uint32_t>(static_cast<int64_t>(lo + x.begin) - d),
         static_cast<uint32_t>(static_cast<int64_t>(lo + x.end) - d), x.score});
  }
}

}  // namespace

uint32_t LongestNearCopyWords(const RefereeText& scanned,
                              std::span<const uint64_t> source,
                              const RefereeOptions& options) {
  const std::span<const uint64_t> a = scanned.hashes;
  if (a.size() < kSeedTokens || source.size() < kSeedTokens) return 0;
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> seeds;
  for (size_t j = 0; j + kSeedTokens <= source.size(); ++j) {
    std::vector<uint32_t>& at = seeds[Seed(source, j)];
    if (at.size() < kMaxSeedPositions) at.push_back(static_cast<uint32_t>(j));
  }
  std::vector<int64_t> diagonals;
  for (size_t i = 0; i + kSeedTokens <= a.size(); ++i) {
    auto it = seeds.find(Seed(a, i));
    if (it == seeds.end()) continue;
    for (uint32_t j : it->second) {
      diagonals.push_back(static_cast<int64_t>(i) - j);
    }
  }
  std::sort(diagonals.begin(), diagonals.end());
  diagonals.erase(std::unique(diagonals.begin(), diagonals.end()),
                  diagonals.end());
  std::vector<Segment> segments;
  for (int64_t d : diagonals) {
    WalkDiagonal(a, source, d, options.mismatch_cost, &segments);
  }
  std::sort(segments.begin(), segments.end(),
            [](const Segment& x, const Segment& y) {
              return x.a_begin < y.a_begin;
            });
  // A chain scores as one segment whose gap tokens (the larger of its two
  // sides) all differ, and holds only while that score is not negative, so
  // that it too has at most one differing token in mismatch_cost + 1.
  // score[q], units[q]: the best-scoring chain ending with segment q and
  // its word units.
  const auto cost = static_cast<int64_t>(options.mismatch_cost);
  std::vector<int64_t> score(segments.size());
  std::vector<uint32_t> units(segments.size());
  uint32_t most = 0;
  for (size_t q = 0; q < segments.size(); ++q) {
    const Segment& s = segments[q];
    score[q] = s.score;
    uint32_t before_units = 0;
    bool chained = false;
    for (size_t p = 0; p < q; ++p) {
      const Segment& r = segments[p];
      if (r.a_end > s.a_begin || r.b_end > s.b_begin) continue;
      const uint32_t gap = std::max(s.a_begin - r.a_end, s.b_begin - r.b_end);
      if (gap > options.max_gap_tokens) continue;
      const int64_t linked = score[p] - cost * gap + s.score;
      if (linked >= 0 && (!chained || linked > score[q])) {
        chained = true;
        score[q] = linked;
        before_units = units[p];
      }
    }
    units[q] =
        before_units + scanned.counts[s.a_end] - scanned.counts[s.a_begin];
    most = std::max(most, units[q]);
  }
  return most / scanned.units_per_word;
}

}  // namespace leakhound
