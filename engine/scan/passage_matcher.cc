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
#include "engine/scan/passage_chain.h"
#include "engine/scan/word_checks.h"

namespace leakhound {

namespace {

struct Pair {
  uint32_t scanned;  // index into the scanned shingles
  uint32_t source;   // index into the source occurrences
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
PassageChain StartChain(const Shingle& s, const Occurrence& o,
                        const std::vector<uint32_t>& units) {
  Passage fresh{s.token_begin,   s.token_end,   s.byte_begin, s.byte_end,
                o.token_begin,   o.token_end,   o.byte_begin, o.byte_end,
                1,               0};
  return PassageChain{fresh,
                      s.token_begin,
                      Diagonal(s, o),
                      Diagonal(s, o),
                      s.token_end,
                      units[s.token_end] - units[s.token_begin],
                      {},
                      {},
                      {},
                      {}};
}

// PassageChain `c` continued by the pair (s, o).
void ExtendChain(PassageChain& c, const Shingle& s, const Occurrence& o,
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
std::vector<PassageChain> ChainPairs(const ScannedText& scanned,
                                     std::span<const Occurrence> source,
                                     std::span<const Pair> pairs,
                                     const PassageOptions& options) {
  const std::vector<Shingle>& shingles = scanned.text().shingles;
  const std::vector<uint32_t>& units = scanned.text().word_units;
  std::vector<PassageChain> open, done;
  const uint32_t reach =
      std::max(options.max_gap_tokens, options.max_aligned_gap_tokens);
  for (const Pair& p : pairs) {
    const Shingle& s = shingles[p.scanned];
    const Occurrence& o = source[p.source];
    const int64_t diagonal = Diagonal(s, o);
    // Retire chains the gap can no longer bridge.
    auto stale =
        std::partition(open.begin(), open.end(), [&](const PassageChain& c) {
          return s.token_begin - c.last_token <= reach;
        });
    done.insert(done.end(), stale, open.end());
    open.erase(stale, open.end());

    PassageChain* best = nullptr;
    int64_t best_drift = std::numeric_limits<int64_t>::max();
    for (PassageChain& c : open) {
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
                                       std::vector<PassageChain> chains,
                                       const PassageOptions& options) {
  std::sort(chains.begin(), chains.end(),
            [](const PassageChain& a, const PassageChain& b) {
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
  for (const PassageChain& c : chains) {
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
  std::vector<PassageChain> chains =
      ChainPairs(scanned, source, pairs, options);
  if (source_checks.empty() ||
      scanned.text().word_checks.size() != scanned.text().token_count) {
    return OutermostPassages(scanned, std::move(chains), options);
  }
  const CheckExtender extender(scanned, source, source_checks, suppressed,
                               options);
  for (PassageChain& c : chains) {
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
