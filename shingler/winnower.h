// Winnowing (Schleimer, Wilkerson, Aiken, SIGMOD 2003): from a sequence of
// fingerprints keep the minimum of every window of W consecutive ones
// (the rightmost on ties), each selected position once.
//
// Guarantee: two sequences that share a run of at least W consecutive
// fingerprints share at least one selected fingerprint; with w-token
// shingles that is any shared run of w + W - 1 tokens. Expected density of
// the selection on random fingerprints: 2 / (W + 1).
//
// Thread-safety: a pure function; safe to call concurrently.
#ifndef LEAKHOUND_SHINGLER_WINNOWER_H_
#define LEAKHOUND_SHINGLER_WINNOWER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace leakhound {

// Returns the selected positions of `fingerprints`, increasing.
// window <= 1 selects every position. A sequence shorter than the window is
// one window (its rightmost minimum is selected). O(n) time.
std::vector<size_t> WinnowPositions(std::span<const uint64_t> fingerprints,
                                    size_t window);

// The distinct fingerprints at WinnowPositions(fingerprints, window), in
// order of first occurrence: what a filter sampled by winnowing holds of a
// text (every distinct fingerprint for window <= 1). O(n) expected time.
std::vector<uint64_t> WinnowedDistinct(std::span<const uint64_t> fingerprints,
                                       size_t window);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_WINNOWER_H_
