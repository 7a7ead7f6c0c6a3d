// DataScanner: one pass of the pattern scanner over a text serves both
// exact data match (rows of the protected tables) and data identifiers
// (docs/records.md):
//  1. Hyperscan finds the candidates of every identifier's pattern and of
//     every primary column's type at once.
//  2. Each identifier's candidates are validated (and their context
//     checked) and counted.
//  3. Each primary candidate is normalized, hashed under the index's key
//     and looked up in the tables' primary sets (memory only). For each row
//     found, the row's other cells are read from the index and looked for
//     among the word runs within `proximity` words; the row is a record
//     match when `min_matches` of them are there.
// Findings name tables, columns, row keys (the row's ordinal, keyed)
// and byte ranges: never a table's values.
//
// Thread-safety: a DataScanner is immutable after Create; Scan may run on
// several threads at once, each with its own Session.
#ifndef LEAKHOUND_CLI_RECORDS_DATA_SCANNER_H_
#define LEAKHOUND_CLI_RECORDS_DATA_SCANNER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "cli/records/cell_hasher.h"
#include "cli/records/cell_normalizer.h"
#include "cli/records/data_identifiers.h"
#include "cli/records/pattern_scanner.h"
#include "cli/records/phone_numbers.h"
#include "engine/record_tables.h"
#include "index/index_store.h"

namespace leakhound {

struct RecordMatch {
  std::string table;
  std::string row_key;  // CellHasher::RowKey: tells rows apart, keyed
  // The columns found, the primary first, with their byte ranges.
  std::vector<std::string> columns;
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  std::vector<CellType> types;  // of each column, for masking by type
};

struct DataFindings {
  // One per (table, row), in text order of their primary cells.
  std::vector<RecordMatch> records;
  // Identifiers with at least one valid match, in the scanner's order.
  std::vector<IdentifierCount> identifiers;

  // Rows matched of `table` ("" for all tables).
  uint32_t RecordsOf(std::string_view table) const;
  // Distinct valid values of identifier `name`; 0 if none.
  uint32_t IdentifierDistinct(std::string_view name) const;
  bool empty() const { return records.empty() && identifiers.empty(); }
};

class DataScanner {
 public:
  // Per-thread state: Hyperscan scratch, a normalizer, buffers. Only
  // Scan uses its members.
  class Session {
   public:
    std::unique_ptr<PatternScanner::Scratch> scratch;
    std::unique_ptr<CellNormalizer> normalizer;
    std::vector<PatternMatch> matches;
    std::vector<std::string> forms;
    std::vector<uint32_t> rows;
    // The text's words, split once per scan when first needed.
    std::vector<WordSpan> words;
    bool words_ready = false;
    const std::vector<WordSpan>& Words(std::string_view text);
  };

  // `identifiers`: what to count (BuiltInIdentifiers and the policy's).
  // `tables` and `store`: the protected tables and the index they were
  // loaded from (null store: no tables); `index_key` the index's key.
  // REQUIRES: `store` outlives the scanner and is not reopened while it
  // scans. Errors: a pattern that does not compile (InvalidArgument
  // naming it), libsodium.
  static absl::StatusOr<std::unique_ptr<DataScanner>> Create(
      std::vector<IdentifierSpec> identifiers,
      std::shared_ptr<const RecordTables> tables, const IndexStore* store,
      std::string_view index_key);
  ~DataScanner();

  absl::StatusOr<std::unique_ptr<Session>> NewSession() const;

  // Scans `text`. Errors: the index's reads, the pattern scanner's.
  absl::StatusOr<DataFindings> Scan(std::string_view text,
                                    Session& session) const;

  const std::vector<IdentifierSpec>& identifiers() const {
    return identifiers_;
  }
  const RecordTables& tables() const { return *tables_; }

 private:
  struct Use;  // what one pattern is scanned for
  struct Hit;  // a primary cell found
  DataScanner() = default;

  // A valid identifier match, with its context checked.
  struct Found {
    size_t identifier = 0;
    uint32_t begin = 0;
    uint32_t end = 0;
  };
  // Adds identifier `index`'s valid matches among matches[first, end)
  // (one pattern's) to `found`.
  void FindIdentifier(size_t index, std::string_view text,
                      const std::vector<PatternMatch>& matches, size_t first,
                      size_t end, Session& session,
                      std::vector<Found>& found) const;
  // Counts `found` per identifier, less each match inside a longer one of
  // another identifier (a card's digits inside an IBAN).
  void CountIdentifiers(std::string_view text, std::vector<Found>& found,
                        DataFindings& findings) const;
  void FindPrimaries(const Use& use, std::string_view text,
                     const std::vector<PatternMatch>& matches, size_t first,
                     size_t end, Session& session,
                     std::vector<Hit>& hits) const;
  // The hashes of the cell forms of `n` words from word `w` of `text`
  // as a `type` cell, appended to `out`; `word_forms` caches each word's
  // normalized form for the scan. A name's run is also read with its first
  // word moved last and its last moved first ("Smith, John").
  void RunHashes(CellType type, std::string_view text,
                 const std::vector<WordSpan>& words, size_t w, uint32_t n,
                 Session& session,
                 absl::flat_hash_map<uint32_t, std::string>& word_forms,
                 std::vector<uint64_t>* out) const;
  // Appends the hashes of `forms` (one per word) joined as one `type`
  // cell, and a name's in family-name-first orders.
  void AddRunHashes(CellType type, const std::vector<std::string>& forms,
                    std::vector<uint64_t>* out) const;
  // Adds a column's type and run length to run_types_.
  void AddRunType(const RecordColumnRecord& column);
  // Adds a phone column's regions to phone_regions_.
  void AddPhoneRegions(const RecordColumnRecord& column);
  // The cells of the rows `hits` name, read once each.
  using HitRows =
      absl::flat_hash_map<std::pair<const LoadedRecordTable*, uint32_t>,
                          std::vector<uint64_t>>;
  absl::StatusOr<HitRows> ReadHitRows(std::span<const Hit> hits) const;
  // The runs of words near a batch of hits, by what they hash to: (type,
  // hash) -> (first word, words), by first word then length.
  struct RunIndex {
    absl::flat_hash_map<std::pair<uint8_t, uint64_t>,
                        std::vector<std::pair<uint32_t, uint32_t>>>
        runs;
    absl::flat_hash_map<uint32_t, std::string> word_forms;
  };
  // The words [lo, hi) within the proximity of `hit`'s table around it.
  std::pair<size_t, size_t> Window(const std::vector<WordSpan>& words,
                                   const Hit& hit) const;
  // Replaces `index` with the runs of every corroborating type within the
  // windows of `batch`.
  void IndexRuns(std::string_view text, std::span<const Hit> batch,
                 Session& session, RunIndex& index) const;
  // The primary `hit` with the cells of its row `row` found near it.
  RecordMatch MatchRow(std::string_view text, const Hit& hit,
                       const std::vector<uint64_t>& row, Session& session,
                       const RunIndex& index) const;
  absl::Status Corroborate(std::string_view text, std::vector<Hit>& hits,
                           Session& session, DataFindings& findings) const;

  std::vector<IdentifierSpec> identifiers_;
  std::shared_ptr<const RecordTables> tables_;
  const IndexStore* store_ = nullptr;
  std::unique_ptr<CellHasher> hasher_;
  std::unique_ptr<PatternScanner> scanner_;
  std::vector<std::vector<Use>> uses_;  // per pattern id
  // The regions a number without a country code is read in: every phone
  // column's region and held regions (phone_numbers.h).
  std::vector<PhoneRegion> phone_regions_;
  // Whether a name or text column kept its accents (a table added before
  // issue 67): runs are then hashed with theirs too.
  bool unfolded_names_ = false;
  // Each type a table's column has, with its longest run of words.
  std::vector<std::pair<CellType, uint32_t>> run_types_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_DATA_SCANNER_H_
