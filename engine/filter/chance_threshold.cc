#include "engine/filter/chance_threshold.h"

#include <cmath>
#include <limits>

namespace leakhound {

double LogChanceTailBound(double lambda, double count) {
  if (count <= lambda) return 0.0;
  if (lambda <= 0.0) return -std::numeric_limits<double>::infinity();
  return -lambda + count * (1.0 + std::log(lambda) - std::log(count));
}

bool IsSignificant(double lambda, double count, double log_alpha) {
  if (count <= lambda) return false;
  const double excess = count - lambda;
  // The margin keeps rounding from ever rejecting a count the exact test
  // accepts; (x - 1)^2 / 2 exceeds h(x) by far more than 1e-9 relative.
  if (excess * excess < -2.0 * lambda * log_alpha * (1.0 - 1e-9)) {
    return false;
  }
  return LogChanceTailBound(lambda, count) <= log_alpha;
}

uint32_t MinSignificantCount(double lambda, double alpha) {
  const double target = std::log(alpha);
  // The bound decreases in count above lambda: bisect on integers.
  auto lo = static_cast<uint64_t>(std::floor(lambda));  // not significant
  uint64_t hi = lo + 1;
  while (LogChanceTailBound(lambda, static_cast<double>(hi)) > target) {
    hi = lo + 2 * (hi - lo);
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (LogChanceTailBound(lambda, static_cast<double>(mid)) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return static_cast<uint32_t>(hi);
}

}  // namespace leakhound
