#include "engine/filter/query_windows.h"

namespace leakhound {

double ChancePerTrial(uint32_t bits_set, double m, uint32_t k,
                      ScoringMode scoring) {
  const double f = bits_set / m;
  double chance = f;
  if (scoring == ScoringMode::kMembership) {
    for (uint32_t j = 1; j < k; ++j) chance *= f;
  }
  return chance;
}

QueryWindows::QueryWindows(size_t size, const QueryOptions& options)
    : size_(size), options_(options) {
  const bool windowed = options.scoring == ScoringMode::kMembership &&
                        options.window >= 2 && size > options.window;
  half_ = windowed ? options.window / 2 : size;
  chunks_ = (size + half_ - 1) / half_;
  windows_ = windowed ? chunks_ - 1 : 0;
}

}  // namespace leakhound
