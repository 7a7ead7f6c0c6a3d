// SlidingBuffer: the exact answer the windowed duplicate filters are
// tested against (was `x` among the last `window` insertions?), as the
// SKIP Bloom filter paper's "buffer" algorithm. Test helper.
//
// Thread-safety: not thread-safe.
#ifndef LEAKHOUND_TESTS_ENGINE_SLIDING_BUFFER_H_
#define LEAKHOUND_TESTS_ENGINE_SLIDING_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace leakhound {

class SlidingBuffer {
 public:
  explicit SlidingBuffer(size_t window) : window_(window) {}
  bool Contains(uint64_t x) const {
    return std::find(recent_.begin(), recent_.end(), x) != recent_.end();
  }
  void Insert(uint64_t x) {
    recent_.push_back(x);
    if (recent_.size() > window_) recent_.pop_front();
  }

 private:
  size_t window_;
  std::deque<uint64_t> recent_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_ENGINE_SLIDING_BUFFER_H_
