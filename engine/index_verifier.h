// VerifyIndex: the index's fsck. Reads everything an IndexStore holds and
// checks every invariant the writer maintains; changes nothing.
//
// Checked: the state (next id above every id; open row in range); every
// document has its external-id and digest entries and they point back to
// it; each document's fingerprint list exists and matches its counts; the
// rows hold exactly the document's fingerprint range [0, fingerprints),
// tiled without gaps or overlaps, in exactly the rows its record lists;
// every row's segments name existing documents and add up to its count;
// row ids are contiguous; each row's stored bits equal the bits rebuilt
// from its segments' fingerprints, and its popcount equals bits_set.
//
// Thread-safety: reads only; safe alongside other readers.
#ifndef LEAKHOUND_ENGINE_INDEX_VERIFIER_H_
#define LEAKHOUND_ENGINE_INDEX_VERIFIER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "index/index_store.h"

namespace leakhound {

struct VerifyReport {
  uint32_t documents = 0;
  uint32_t rows = 0;
  uint64_t occurrences = 0;           // fingerprint occurrences read
  std::vector<std::string> problems;  // empty: the index is consistent
};

// Returns the report; an error status only when reading failed in a way
// that stops the check (an undecodable record is a problem, not an error).
absl::StatusOr<VerifyReport> VerifyIndex(const IndexStore& store);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_INDEX_VERIFIER_H_
