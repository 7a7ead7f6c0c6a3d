// The row table of the pseudo-matrix Bloom filter: which documents each
// row holds, and which range of each document's fingerprint list
// (Segment), with the row's fingerprint and set-bit counts (RowInfo); and
// the digest that lets a reader tell one row table from another.
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_ENGINE_FILTER_ROW_TABLE_H_
#define LEAKHOUND_ENGINE_FILTER_ROW_TABLE_H_

#include <cstdint>
#include <span>
#include <vector>

namespace leakhound {

using DocId = uint32_t;

// Fingerprint range [begin, end) of a document's list stored in a row.
struct Segment {
  DocId doc;
  uint32_t begin;
  uint32_t end;
  bool operator==(const Segment&) const = default;
};

struct RowInfo {
  std::vector<Segment> segments;  // in insertion order
  uint32_t fingerprints = 0;      // sum of segment lengths
  uint32_t bits_set = 0;          // popcount of the row
};

// PERSISTED (StateRecord::rows_digest, docs/storage_format.md): a digest of
// one row, 0 for a row without segments: Fmix64 chained over the row's id,
// each segment's document, begin and end, the fingerprint and set-bit
// counts.
uint64_t RowHash(uint32_t row, const RowInfo& info);
// PERSISTED: the digest of a row table: kRowsDigestSeed XOR every row's
// RowHash. Never 0 but by a 2^-64 chance (0 means "not recorded"). With
// `hashes`, also sets (*hashes)[r] to row r's RowHash.
inline constexpr uint64_t kRowsDigestSeed = 0x6c65616b686f756eull;
uint64_t RowsDigest(std::span<const RowInfo> rows,
                    std::vector<uint64_t>* hashes = nullptr);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_ROW_TABLE_H_
