// SlidingBuffer: the exact answer the windowed duplicate filters are
// tested against (was `x` among the last `window` insertions?), as the
// SKIP Bloom filter paper's "buffer" algorithm; a stream that repeats
// elements at every distance around a window; and a run of a filter over
// such a stream against the buffer. Test helpers.
//
// Thread-safety: not thread-safe.
#ifndef LEAKHOUND_TESTS_SLIDING_BUFFER_H_
#define LEAKHOUND_TESTS_SLIDING_BUFFER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

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

// `size` elements; each is, with probability 1/2, a repeat of one up to
// twice `window` back, else a fresh random value.
inline std::vector<uint64_t> RepeatingStream(size_t size, size_t window,
                                             uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> stream;
  for (size_t i = 0; i < size; ++i) {
    if (!stream.empty() && rng() % 2 == 0) {
      const size_t back = 1 + rng() % std::min(stream.size(), 2 * window);
      stream.push_back(stream[stream.size() - back]);
    } else {
      stream.push_back(rng());
    }
  }
  return stream;
}

struct WindowRun {
  size_t duplicates = 0;       // elements within the window (the buffer's)
  size_t negatives = 0;        // the others
  size_t false_positives = 0;  // negatives the filter called duplicates
  size_t false_negatives = 0;  // duplicates it did not
};

// Runs filter.TestAndInsert over `stream` against the exact buffer.
template <typename Filter>
WindowRun RunAgainstBuffer(Filter& filter, size_t window,
                           const std::vector<uint64_t>& stream) {
  SlidingBuffer exact(window);
  WindowRun run;
  for (uint64_t x : stream) {
    const bool truth = exact.Contains(x);
    const bool seen = filter.TestAndInsert(x);
    if (truth) {
      ++run.duplicates;
      run.false_negatives += !seen;
    } else {
      ++run.negatives;
      run.false_positives += seen;
    }
    exact.Insert(x);
  }
  return run;
}

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_SLIDING_BUFFER_H_
