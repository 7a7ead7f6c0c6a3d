#include "engine/scan/scanned_text.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace leakhound {

namespace {

struct Keyed {
  uint64_t fingerprint;
  uint32_t shingle;
};

// Sorts `items` by fingerprint, keeping the input order among equal
// fingerprints. Two stable counting passes on the top 22 bits (11 each, so
// the counts stay in L1 and the scatter has 2,048 streams), then an
// insertion sort finishing the runs that share those bits: under one item
// long on average below 4 million items. Fingerprints are keyed hashes,
// so a sender cannot make long runs of distinct fingerprints; equal ones
// (a repeated line) never move past each other.
void SortByFingerprint(std::vector<Keyed>& items) {
  constexpr unsigned kBits = 11;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  std::vector<Keyed> scratch(items.size());
  std::vector<uint32_t> start(size_t{1} << kBits);
  for (unsigned shift : {64 - 2 * kBits, 64 - kBits}) {
    std::fill(start.begin(), start.end(), 0);
    for (const Keyed& k : items) ++start[(k.fingerprint >> shift) & kMask];
    uint32_t sum = 0;
    for (uint32_t& s : start) sum += std::exchange(s, sum);
    for (const Keyed& k : items) {
      scratch[start[(k.fingerprint >> shift) & kMask]++] = k;
    }
    items.swap(scratch);
  }
  for (size_t i = 1; i < items.size(); ++i) {
    const Keyed k = items[i];
    size_t j = i;
    for (; j > 0 && items[j - 1].fingerprint > k.fingerprint; --j) {
      items[j] = items[j - 1];
    }
    items[j] = k;
  }
}

}  // namespace

ScannedText::ScannedText(ShingledText text) : text_(std::move(text)) {
  const auto n = static_cast<uint32_t>(text_.shingles.size());
  std::vector<Keyed> items(n);
  for (uint32_t i = 0; i < n; ++i) {
    items[i] = Keyed{text_.shingles[i].fingerprint, i};
  }
  SortByFingerprint(items);
  // Each run of one fingerprint: its shingles in text order, at most
  // kMaxRepeats; the run's first shingle is where the fingerprint first
  // occurs.
  std::vector<bool> first(n);
  sorted_.reserve(n);
  begin_.reserve(n + 1);
  shingle_index_.reserve(n);
  begin_.push_back(0);
  for (uint32_t k = 0; k < n;) {
    const uint64_t fp = items[k].fingerprint;
    first[items[k].shingle] = true;
    uint32_t r = k;
    for (; r < n && items[r].fingerprint == fp; ++r) {
      if (r - k < kMaxRepeats) shingle_index_.push_back(items[r].shingle);
    }
    sorted_.push_back(fp);
    begin_.push_back(static_cast<uint32_t>(shingle_index_.size()));
    k = r;
  }
  distinct_.reserve(sorted_.size());
  for (uint32_t i = 0; i < n; ++i) {
    if (first[i]) distinct_.push_back(text_.shingles[i].fingerprint);
  }
  // 2^bits >= 64 * distinct, between 2^12 and 2^26 bits (8 MB); a bucket
  // per 64 bits, at least one per distinct fingerprint up to a million.
  unsigned bits = 12;
  while (bits < 26 && (uint64_t{1} << bits) < 64 * sorted_.size()) ++bits;
  shift_ = 64 - bits;
  bucket_shift_ = shift_ + 6;
  present_.assign(size_t{1} << (bits - 6), 0);
  bucket_.assign((size_t{1} << (bits - 6)) + 1, 0);
  for (uint64_t fp : sorted_) {
    const uint64_t bit = fp >> shift_;
    present_[bit >> 6] |= uint64_t{1} << (bit & 63);
    ++bucket_[(fp >> bucket_shift_) + 1];
  }
  for (size_t h = 1; h < bucket_.size(); ++h) bucket_[h] += bucket_[h - 1];
}

std::span<const uint32_t> ScannedText::Lookup(uint64_t fingerprint) const {
  const uint64_t h = fingerprint >> bucket_shift_;
  const auto last = sorted_.begin() + bucket_[h + 1];
  const auto it =
      std::lower_bound(sorted_.begin() + bucket_[h], last, fingerprint);
  if (it == last || *it != fingerprint) return {};
  const auto k = static_cast<size_t>(it - sorted_.begin());
  return std::span<const uint32_t>(shingle_index_.data() + begin_[k],
                                   begin_[k + 1] - begin_[k]);
}

}  // namespace leakhound
