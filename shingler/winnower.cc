#include "shingler/winnower.h"

#include <algorithm>
#include <deque>

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

}  // namespace leakhound
