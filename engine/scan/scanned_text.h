// ScannedText: a scanned text's shingles with an index from fingerprint to
// shingles, for the second stage's exact comparison (passage_matcher.h).
//
// Thread-safety: immutable after construction; may be shared by threads.
#ifndef LEAKHOUND_ENGINE_SCAN_SCANNED_TEXT_H_
#define LEAKHOUND_ENGINE_SCAN_SCANNED_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "shingler/shingler.h"

namespace leakhound {

// A scanned text's shingles with an index from fingerprint to shingles.
class ScannedText {
 public:
  // At most this many shingles per fingerprint take part in matching (a
  // line repeated a thousand times must not make a million pairs).
  static constexpr size_t kMaxRepeats = 16;

  explicit ScannedText(ShingledText text);

  const ShingledText& text() const { return text_; }
  // Indexes into text().shingles of the shingles with `fingerprint`, in
  // text order, at most kMaxRepeats; empty if none. Most calls ask for
  // fingerprints the text lacks (a candidate's whole list is probed), and
  // a bit array answers most of those without touching the map.
  std::span<const uint32_t> ShinglesWith(uint64_t fingerprint) const {
    const uint64_t bit = fingerprint >> shift_;
    if (((present_[bit >> 6] >> (bit & 63)) & 1) == 0) return {};
    return Lookup(fingerprint);
  }
  // The distinct fingerprints, in order of first occurrence.
  const std::vector<uint64_t>& distinct() const { return distinct_; }

 private:
  std::span<const uint32_t> Lookup(uint64_t fingerprint) const;

  ShingledText text_;
  // The distinct fingerprints in ascending order; the shingles of
  // sorted_[k] are shingle_index_[begin_[k], begin_[k + 1]): flat arrays
  // built by a radix sort, not a hash map (why, measured: docs/engine.md,
  // "The scanned text's index").
  std::vector<uint64_t> sorted_;
  std::vector<uint32_t> begin_;
  std::vector<uint32_t> shingle_index_;
  std::vector<uint64_t> distinct_;
  // Bit (fingerprint >> shift_) is set for every fingerprint of the text:
  // at least 64 bits per distinct fingerprint, so a fingerprint the text
  // lacks passes with probability under 1/64 (fingerprints are keyed
  // hashes, uniform in their top bits). The fingerprints of sorted_ with
  // top bits h (fingerprint >> bucket_shift_) are
  // sorted_[bucket_[h], bucket_[h + 1]): about one each.
  std::vector<uint64_t> present_;
  unsigned shift_ = 52;
  std::vector<uint32_t> bucket_;
  unsigned bucket_shift_ = 64;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_SCANNED_TEXT_H_
