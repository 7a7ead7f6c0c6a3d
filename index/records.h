// The records of a leakhound index, as plain structs. Every struct here is
// PERSISTED: it is serialized by record_codec.h (Boost.Serialization binary
// archives with explicit class versions) and documented in
// docs/storage_format.md. Adding a field means bumping the struct's class
// version in record_codec.cc and reading the field only from that version
// on, so records written by older binaries stay readable.
//
// Thread-safety: plain values.
#ifndef LEAKHOUND_INDEX_RECORDS_H_
#define LEAKHOUND_INDEX_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace leakhound {

// Written once by Create; identifies how the index was built. The checks
// against the running binary are the caller's (the engine knows the
// shingler version); the index checks only kFormatVersion.
struct MetadataRecord {
  uint32_t format_version = 0;    // kFormatVersion of the writing binary
  uint32_t shingler_version = 0;  // the shingler's kShinglerVersion
  std::string unicode_version;    // ICU's Unicode version at creation
  // Shingler parameters.
  uint32_t shingle_words = 0;
  uint32_t cjk_chars_per_word = 0;
  uint32_t winnow_window = 0;
  // Filter parameters: target false-positive rate p, row capacity n, fill
  // target, and the geometry derived from them (m bits, k hashes).
  double fpr = 0;
  uint32_t row_capacity = 0;
  double fill = 0;
  uint32_t bits = 0;
  uint32_t hashes = 0;
  uint8_t packing = 0;  // the engine's PackingMode
  int64_t created_unix_ms = 0;
  // Rows per row group (the engine's second filter level); 0: none. Class
  // version 2.
  uint32_t group_rows = 0;
  // The filter's winnowing window (ShinglerOptions::filter_winnow_window):
  // the rows hold only the fingerprints of the shingles winnowing selects
  // from each list; 0 or 1: every fingerprint. Class version 3; 0 in
  // records of version 2 and below.
  uint32_t filter_winnow_window = 0;
  bool operator==(const MetadataRecord&) const = default;
};

// Mutable counters, rewritten by every committed change.
struct StateRecord {
  uint32_t next_doc_id = 0;  // internal ids are never reused
  uint64_t generation = 0;   // +1 per committed change; readers poll it
  int64_t open_row = -1;     // the row the next document is appended to
  // A digest of the row table as of this state (ProtectedIndex), so a
  // reader can tell a row table from another state; 0: not recorded (an
  // index last written before StateRecord v2).
  uint64_t rows_digest = 0;
  bool operator==(const StateRecord&) const = default;
};

// A sensitivity label of a protected document (docs/labels.md): the id
// (a GUID, lower case; "" for a label given by name alone) and the name
// the file or the admin gave it. Labels' names, not protected text.
struct LabelRecord {
  std::string id;
  std::string name;
  bool operator==(const LabelRecord&) const = default;
};

struct DocumentRecord {
  std::string external_id;  // the admin's id, unique
  std::string source;       // path or name it was added from
  std::string digest;       // SHA-256 of the extracted text, 32 bytes
  uint64_t bytes = 0;       // size of the extracted text
  uint32_t fingerprints = 0;  // distinct fingerprints in the filter
  uint32_t occurrences = 0;   // shingles in the fingerprint list
  std::vector<uint32_t> rows;  // rows holding it, in list order
  int64_t added_unix_ms = 0;
  std::vector<std::string> labels;
  // Since DocumentRecord v2: its sensitivity labels, read from the file
  // at `add` or given (add --sensitivity).
  std::vector<LabelRecord> sensitivity;
  bool operator==(const DocumentRecord&) const = default;
};

// One shingle of a document's extracted text: its keyed fingerprint, its
// token range and its byte range.
struct Occurrence {
  uint64_t fingerprint = 0;
  uint32_t token_begin = 0;
  uint32_t token_end = 0;
  uint32_t byte_begin = 0;
  uint32_t byte_end = 0;
  bool operator==(const Occurrence&) const = default;
};

// A document's shingles in text order. The filter's fingerprint list is
// derived from it: the distinct fingerprints in order of first occurrence.
struct FingerprintsRecord {
  std::vector<Occurrence> occurrences;
  // One keyed check byte per token of the text (ShingledText::word_checks),
  // from record version 2; empty in lists written before it.
  std::string word_checks;
  bool operator==(const FingerprintsRecord&) const = default;
};

// Fingerprint range [begin, end) of a document's list stored in a row.
struct SegmentRecord {
  uint32_t doc = 0;
  uint32_t begin = 0;
  uint32_t end = 0;
  bool operator==(const SegmentRecord&) const = default;
};

// A row of the pseudo-matrix. A row with no segments is free. Its bits are
// stored apart (row_bits column family), raw.
struct RowRecord {
  std::vector<SegmentRecord> segments;
  uint32_t fingerprints = 0;
  uint32_t bits_set = 0;
  bool operator==(const RowRecord&) const = default;
};

// An allow-list entry: benign text (a disclaimer, a licence header) whose
// fingerprints never count toward a match. Keyed by its name.
struct AllowRecord {
  std::string source;   // path or name it was added from
  std::string digest;   // SHA-256 of the extracted text, 32 bytes
  int64_t added_unix_ms = 0;
  std::vector<uint64_t> fingerprints;  // distinct, ascending
  bool operator==(const AllowRecord&) const = default;
};

// A protected location (`leakhound locations add`): a URL or share-path
// prefix, keyed by its normalized form (engine/protected_locations.h).
// Admin configuration, not protected text: stored as given.
struct LocationRecord {
  std::string given;  // as the admin typed it
  int64_t added_unix_ms = 0;
  bool operator==(const LocationRecord&) const = default;
};

// How many documents hold one fingerprint.
struct FingerprintCount {
  uint64_t fingerprint = 0;
  uint32_t documents = 0;  // at least 1
  bool operator==(const FingerprintCount&) const = default;
};

// One bucket of a document-frequency table (key_format.h, CountTable): the
// counts of the fingerprints whose top CountBucketBits(table) bits are the
// bucket's key. Entries ascend by fingerprint, each at most once.
struct CountBucketRecord {
  std::vector<FingerprintCount> entries;
  bool operator==(const CountBucketRecord&) const = default;
};

// PERSISTED by value: what a column of a protected table is for.
enum class RecordColumnRole : uint8_t {
  kCorroborating = 0,  // counts toward a match next to a primary cell
  kPrimary = 1,        // searched for in the text (its hashes in memory)
};

// One column of a protected table. The meaning of `type` is the records
// library's (cli/records/record_schema.h); the index keeps it as a number. No cell value is ever stored, only keyed hashes (key_format.h).
struct RecordColumnRecord {
  std::string name;
  uint8_t type = 0;  // CellType, PERSISTED by value
  uint8_t role = 0;  // RecordColumnRole
  // The most words any cell of the column has (name and text columns: the
  // scanner tries word runs up to this long).
  uint8_t max_words = 0;
  std::string pattern;  // the column's own regular expression, if any
  // Phone columns (version 2): the schema's region ("DE", "" none), and
  // the regions of the country codes the column's international numbers
  // mostly have, found while loading. A text's number without a country
  // code is read in each (cli/records/phone_numbers.h).
  std::string region;
  std::vector<std::string> held_regions;
  // Name and text columns (version 2): whether the cells' accents were
  // dropped before hashing ("José" as "Jose"); false in version 1.
  bool marks_folded = false;
  bool operator==(const RecordColumnRecord&) const = default;
};

// A protected table (kRecordTablesFamily, keyed by the table's name). Its
// cells are in kRecordDataFamily under (table_id, data_generation).
struct RecordTableRecord {
  uint32_t table_id = 0;
  uint32_t data_generation = 0;
  std::string source;  // the file it was added from, as given
  std::vector<RecordColumnRecord> columns;
  uint32_t min_matches = 0;  // other cells of the row needed with a primary
  uint32_t proximity = 0;    // words between the primary and each other cell
  uint8_t date_order = 0;    // DateOrder, PERSISTED by value
  // How the file reads (for `leakhound rekey`, which reads it again): its
  // field delimiter and whether its first line names the columns.
  uint8_t delimiter = ',';
  bool header = true;
  uint64_t rows = 0;         // rows stored
  uint64_t skipped_rows = 0;  // rows of the file without a usable primary
  // Per column: entries of its primary set (0 for a column not primary).
  std::vector<uint64_t> set_entries;
  // XXH3-64 over the primary sets' chunks in key order: a reader checks
  // that what it loaded is this generation's.
  uint64_t sets_digest = 0;
  int64_t added_unix_ms = 0;
  bool operator==(const RecordTableRecord&) const = default;
};

// Labels declared for the documents under one subfolder of a protected
// source (SourceRecord::folder_labels).
struct FolderLabelsRecord {
  std::string folder;  // relative to the source's root, no trailing slash
  std::vector<std::string> labels;
  bool operator==(const FolderLabelsRecord&) const = default;
};

// A protected source (`leakhound sources add NAME PATH`), kept in the meta
// family under SourceKey(NAME) (key_format.h). Admin configuration, not
// protected text: stored as given. Its documents' ids are NAME/relative
// path; their labels are `labels` plus those of every folder_labels entry
// whose folder holds them.
struct SourceRecord {
  std::string root;  // absolute, lexically normal, no trailing slash
  std::vector<std::string> labels;
  std::vector<std::string> include;  // globs; empty: every file
  std::vector<std::string> exclude;  // globs
  std::vector<FolderLabelsRecord> folder_labels;
  int64_t added_unix_ms = 0;
  bool operator==(const SourceRecord&) const = default;
};

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_RECORDS_H_
