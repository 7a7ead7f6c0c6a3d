#include "shingler/winnower.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_set.h"

namespace leakhound {

std::vector<size_t> WinnowPositions(std::span<const uint64_t> fingerprints,
                                    size_t window) {
  const size_t n = fingerprints.size();
  std::vector<size_t> selected;
  if (window <= 1) {
    selected.resize(n);
    for (size_t i = 0; i < n; ++i) selected[i] = i;
    return selected;
  }
  if (n == 0) return selected;
  const size_t w = std::min(window, n);
  // Indices whose values increase strictly from front to back; the front is
  // the rightmost minimum of the current window.
  std::deque<size_t> candidates;
  for (size_t r = 0; r < n; ++r) {
    while (!candidates.empty() &&
           fingerprints[candidates.back()] >= fingerprints[r]) {
      candidates.pop_back();
    }
    candidates.push_back(r);
    if (r + 1 < w) continue;
    const size_t window_start = r + 1 - w;
    while (candidates.front() < window_start) candidates.pop_front();
    if (selected.empty() || selected.back() != candidates.front()) {
      selected.push_back(candidates.front());
    }
  }
  return selected;
}

std::vector<uint64_t> WinnowedDistinct(std::span<const uint64_t> fingerprints,
                                       size_t window) {
  std::vector<uint64_t> out;
  absl::flat_hash_set<uint64_t> seen;
  auto keep = [&](uint64_t fp) {
    if (seen.insert(fp).second) out.push_back(fp);
  };
  if (window <= 1) {
    out.reserve(fingerprints.size());
    seen.reserve(fingerprints.size());
    for (uint64_t fp : fingerprints) keep(fp);
    return out;
  }
  const std::vector<size_t> positions = WinnowPositions(fingerprints, window);
  out.reserve(positions.size());
  seen.reserve(positions.size());
  for (size_t i : positions) keep(fingerprints[i]);
  return out;
}

}  // namespace leakhound
