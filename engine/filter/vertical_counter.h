// VerticalCounter: adds many bit vectors position by position, i.e. keeps
// for every bit position i the number of added vectors that have bit i set.
// The counts are bit-sliced (a 4-bit counter per position held in four
// planes) and fed by a Harley-Seal carry-save adder tree, so adding a
// vector costs a few branch-free, vectorizable word operations per 64
// positions instead of one memory increment per set bit. Every 16 vectors
// the carries out of the planes are added to the plain counts.
//
// Thread-safety: none; one counter per query.
#ifndef LEAKHOUND_ENGINE_FILTER_VERTICAL_COUNTER_H_
#define LEAKHOUND_ENGINE_FILTER_VERTICAL_COUNTER_H_

#include <cstdint>
#include <span>
#include <vector>

namespace leakhound {

class VerticalCounter {
 public:
  // Vectors added per carry-save block.
  static constexpr uint32_t kBlock = 16;

  // Counts vectors of `words` 64-bit words: position i is bit i % 64 of
  // word i / 64.
  explicit VerticalCounter(uint32_t words);

  VerticalCounter(const VerticalCounter&) = delete;
  VerticalCounter& operator=(const VerticalCounter&) = delete;

  // Returns the buffer the caller writes the next vector into (`words`
  // words, contents unspecified). The vector counts once the next call to
  // NextInput or Finish returns. The pointer is invalidated by that call.
  uint64_t* NextInput();

  // Adds the count of position i to counts[i] for i < counts.size()
  // (counts of later positions are dropped) and resets the counter to zero.
  void Finish(std::span<uint32_t> counts);

 private:
  // Adds the kBlock buffered vectors (unused ones are zero).
  void AddBlock();

  const uint32_t words_;
  uint32_t buffered_ = 0;
  std::vector<uint64_t> inputs_;  // kBlock vectors, one after the other
  // Planes of the 4-bit counters: count mod 16 = ones + 2 twos + 4 fours +
  // 8 eights.
  std::vector<uint64_t> ones_, twos_, fours_, eights_;
  std::vector<uint64_t> sixteens_;  // carries out of the last block
  std::vector<uint32_t> high_;      // multiples of 16 per position
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_VERTICAL_COUNTER_H_
