#include "engine/scan/word_checks.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#include "absl/container/inlined_vector.h"

namespace leakhound {
namespace {

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

}  // namespace

void CheckExtender::Extend(PassageChain& c) const {
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
    q.source_byte_begin = std::min(
        q.source_byte_begin, TokenByte<Occurrence>(source_, source_begin, false,
                                                   q.source_byte_begin));
    q.source_token_begin = std::min(q.source_token_begin, source_begin);
    q.token_begin = begin;
  }
  if (end > q.token_end) {
    c.tail.units = units[end] - units[q.token_end];
    c.covered_units += c.tail.units;
    q.byte_end = TokenByte<Shingle>(text_.shingles, end - 1, true, q.byte_end);
    const auto source_end =
        static_cast<uint32_t>(int64_t{end} + c.last_diagonal);
    q.source_byte_end = std::max(
        q.source_byte_end, TokenByte<Occurrence>(source_, source_end - 1, true,
                                                 q.source_byte_end));
    q.source_token_end = std::max(q.source_token_end, source_end);
    q.token_end = end;
  }
}

void CheckExtender::Verify(PassageChain& c) const {
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
  for (const PassageChain::Bridged& b : c.bridged) {
    const Gap gap = Explain(b.begin, b.end, b.diagonal_after);
    if (gap.inserted == 0) {
      copied += gap.copied_units;
      continue;
    }
    inserted += gap.inserted;
    stretches.push_back({begin, b.begin, b.covered_before - before + copied, 0,
                         0, gap.inserted});
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
  for (const PassageChain::Unverified& u : c.unverified) {
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
    largest = std::max(
        largest, alone.units - std::min(alone.units, alone.differing_units));
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

void CheckExtender::ChargeGaps(std::vector<Passage>& passages) const {
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
        before.held_after = Held(reach, after_end, before.source_token_begin,
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
    last.held_after =
        Held(reach, std::min(text_.token_count, reach + limit),
             last.source_token_begin, last.source_token_end, &unused);
  }
}

bool CheckExtender::Usable(int64_t t, int64_t diagonal) const {
  const int64_t s = t + diagonal;
  if (t < 0 || t >= int64_t{text_.token_count} || s < 0 ||
      s >= static_cast<int64_t>(source_checks_.size())) {
    return false;
  }
  return !HeldBySuppressed(text_, suppressed_, static_cast<uint32_t>(t));
}

CheckExtender::Gap CheckExtender::Explain(uint32_t begin, uint32_t end,
                                          int64_t after) const {
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
  const int64_t hi =
      std::min(static_cast<int64_t>(source_checks_.size()), next + kMoveTokens);
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

uint32_t CheckExtender::Held(uint32_t edge, uint32_t limit,
                             uint32_t source_begin, uint32_t source_end,
                             uint32_t* reached) const {
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
  const int64_t reach =
      int64_t{options_.max_group_slack_tokens} + options_.max_group_gap_tokens;
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

uint32_t CheckExtender::LongestRun(std::span<const int16_t> wanted, int64_t lo,
                                   int64_t hi, int step) const {
  uint32_t longest = 0;
  for (int64_t p = lo; p < hi && longest < wanted.size(); ++p) {
    uint32_t k = 0;
    for (int64_t q = p;
         k < wanted.size() && q >= lo && q < hi &&
         (wanted[k] == kAnyCheck ||
          wanted[k] ==
              static_cast<uint8_t>(source_checks_[static_cast<size_t>(q)]));
         q += step) {
      ++k;
    }
    longest = std::max(longest, k);
  }
  return longest;
}

bool CheckExtender::Agrees(int64_t t, int64_t diagonal) const {
  return static_cast<uint8_t>(
             source_checks_[static_cast<size_t>(t + diagonal)]) ==
         text_.word_checks[static_cast<size_t>(t)];
}

uint32_t CheckExtender::Reach(uint32_t edge, int64_t diagonal, int step,
                              PassageChain::Extension* extension) const {
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

}  // namespace leakhound
