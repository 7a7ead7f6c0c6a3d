#include "engine/filter/query_windows.h"

namespace leakhound {

QueryWindows::QueryWindows(size_t size, const QueryOptions& options)
    : size_(size), options_(options) {
  const bool windowed = options.scoring == ScoringMode::kMembership &&
                        options.window >= 2 && size > options.window;
  half_ = windowed ? options.window / 2 : size;
  chunks_ = (size + half_ - 1) / half_;
  windows_ = windowed ? chunks_ - 1 : 0;
}

}  // namespace leakhound
