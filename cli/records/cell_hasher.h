// CellHasher: the keyed hash of a normalized cell (exact data match). The
// key is derived from the index's key, so every index hashes differently
// and nothing without the key file can test a guessed value against the
// stored hashes. PERSISTED: the derivation and the hash's input and output
// (docs/storage_format.md, golden test in tests/cli/records/).
//
//   records key = BLAKE2b-256(key = index key, "leakhound records v1")
//   hash(cell)  = first 8 bytes, little-endian, of
//                 BLAKE2b-128(key = records key, type byte || normalized)
//                 (0 becomes 1: 0 marks an empty cell)
//   row key     = 16 hex digits of the first 8 bytes of
//                 BLAKE2b-128(key = records key, 0x00 || table name ||
//                 0x00 || row ordinal, 4 bytes little-endian)
//                 (0x00 is no cell type: a row key never equals a cell's)
//
// Thread-safety: a CellHasher is immutable after Create; Hash may run on
// several threads at once.
#ifndef LEAKHOUND_CLI_RECORDS_CELL_HASHER_H_
#define LEAKHOUND_CLI_RECORDS_CELL_HASHER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/records/record_schema.h"

namespace leakhound {

class CellHasher {
 public:
  // From the index's key (IndexStore::key()). Internal if libsodium cannot
  // start.
  static absl::StatusOr<std::unique_ptr<CellHasher>> Create(
      std::string_view index_key);
  ~CellHasher();

  // The hash of a cell of `type` whose normalized form is `normalized`
  // (cell_normalizer.h). Never 0.
  uint64_t Hash(CellType type, std::string_view normalized) const;

  // The key that names row `row` (0-based, in the table file's order) of
  // table `table` in findings: it tells two rows apart even when they
  // share a primary value, and says nothing of the row's cells.
  std::string RowKey(std::string_view table, uint32_t row) const;

 private:
  struct State;
  explicit CellHasher(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_CELL_HASHER_H_
