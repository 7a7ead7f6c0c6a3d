// How a pseudo-matrix query is tested: its options, its cut into windows
// of consecutive fingerprints, and the statistical test of one set of
// rows' hits over the whole query and in each window.
//
// A query of `size` fingerprints is cut into half windows ("chunks");
// window w is chunks w and w + 1, so windows overlap by half. A set of
// rows (one document's) has evidence when its hits over the whole query,
// or in one window, are significant against the chance hits its rows' fill
// predicts (chance_threshold.h).
//
// Thread-safety: QueryWindows is immutable after construction; its const
// methods may run concurrently.
#ifndef LEAKHOUND_ENGINE_FILTER_QUERY_WINDOWS_H_
#define LEAKHOUND_ENGINE_FILTER_QUERY_WINDOWS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "engine/filter/chance_threshold.h"

namespace leakhound {

enum class ScoringMode : uint8_t {
  kMembership = 0,   // query fingerprints with all k bits set in the row
  kAndPopcount = 1,  // popcount(query filter AND row), the paper's score
};

struct QueryOptions {
  ScoringMode scoring = ScoringMode::kMembership;
  // Probability that any document of the index becomes a candidate by
  // chance, over all tests of one query (Bonferroni). Range (0, 1).
  double family_false_alarm = 1e-3;
  // A candidate needs at least this many hits whatever the statistics say.
  uint32_t min_count = 3;
  // Membership scoring also tests windows of this many consecutive query
  // fingerprints (overlapping by half; the caller passes fingerprints in
  // text order), so a short passage inside a long text stands out against
  // the chance hits of its window instead of the whole text's. Every
  // window is one more test of the Bonferroni family. 0 turns windows off.
  // Ignored by kAndPopcount.
  uint32_t window = 256;
  // With row groups: false runs the one-level query instead (for
  // comparing the two on one matrix).
  bool use_groups = true;
  // The two-level query reads rows in at most this share of the 64-row
  // blocks; a query that would read more runs as one level, which streams
  // the slices and is then cheaper (measured: docs/engine.md, "Row
  // groups"). 1 always takes the two-level path.
  double max_block_share = 0.125;
};

// What made a set of rows significant: its hits and the chance hits
// expected, over the whole query or in its fullest significant window.
struct Significance {
  uint32_t count;
  double expected;
};

// Chance that one fingerprint hits a row with `bits_set` of m bits set:
// f^k (membership) or f (AND-popcount).
inline double ChancePerTrial(uint32_t bits_set, double m, uint32_t k,
                             ScoringMode scoring) {
  const double f = bits_set / m;
  double chance = f;
  if (scoring == ScoringMode::kMembership) {
    for (uint32_t j = 1; j < k; ++j) chance *= f;
  }
  return chance;
}

class QueryWindows {
 public:
  // A query of `size` fingerprints. `options` must outlive this object.
  // Windows apply to membership scoring with options.window >= 2 and a
  // query longer than one window; otherwise there is one chunk and no
  // window.
  QueryWindows(size_t size, const QueryOptions& options);

  size_t chunks() const { return chunks_; }
  size_t windows() const { return windows_; }
  // Chunk c is fingerprints [ChunkBegin(c), ChunkEnd(c)).
  size_t ChunkBegin(size_t c) const { return c * half_; }
  size_t ChunkEnd(size_t c) const { return std::min(size_, (c + 1) * half_); }

  // What the windows' test needs of a set of rows: the hits of its
  // fullest window but the last (every window but the last has the same
  // trials, so the same threshold: the fullest decides them all), and the
  // hits of the last.
  struct WindowPeaks {
    uint32_t fullest = 0;
    uint32_t last = 0;
  };

  // The evidence of a set of rows, tested at log_alpha: `sum` hits over
  // the whole query of `trials` trials at chance `p` per trial, and
  // window_hits(w) hits in window w (called only for w < windows()). The
  // whole query's if significant, else the fullest significant window's;
  // nullopt if none. Either needs at least options.min_count hits.
  template <typename WindowHits>
  std::optional<Significance> Test(double log_alpha, uint32_t sum, double p,
                                   double trials,
                                   WindowHits window_hits) const {
    return TestPeaks(log_alpha, sum, p, trials, [&] {
      WindowPeaks peaks;
      for (size_t w = 0; w + 1 < windows_; ++w) {
        peaks.fullest = std::max(peaks.fullest, window_hits(w));
      }
      peaks.last = window_hits(windows_ - 1);
      return peaks;
    });
  }

  // As Test, with peaks() returning the rows' WindowPeaks (called only
  // when the windows are tested, and then once).
  template <typename Peaks>
  std::optional<Significance> TestPeaks(double log_alpha, uint32_t sum,
                                        double p, double trials,
                                        Peaks peaks) const {
    if (Significant(sum, trials * p, log_alpha)) {
      return Significance{sum, trials * p};
    }
    if (sum < options_.min_count || windows_ == 0) return std::nullopt;
    const WindowPeaks w = peaks();
    if (WindowSignificant(w.fullest, p, log_alpha)) {
      return Significance{w.fullest, WindowTrials(0) * p};
    }
    const size_t last = windows_ - 1;
    if (Significant(w.last, WindowTrials(last) * p, log_alpha)) {
      return Significance{w.last, WindowTrials(last) * p};
    }
    return std::nullopt;
  }

  // Whether `hits` in a window but the last are significant at chance `p`
  // per trial (false when there is no such window).
  bool WindowSignificant(uint32_t hits, double p, double log_alpha) const {
    return windows_ > 1 && Significant(hits, WindowTrials(0) * p, log_alpha);
  }

 private:
  bool Significant(uint32_t count, double lambda, double log_alpha) const {
    return count >= options_.min_count &&
           IsSignificant(lambda, count, log_alpha);
  }
  double WindowTrials(size_t w) const {
    return static_cast<double>(std::min(size_, (w + 2) * half_) - w * half_);
  }

  const size_t size_;
  const QueryOptions& options_;
  size_t half_;
  size_t chunks_;
  size_t windows_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_QUERY_WINDOWS_H_
