// TableLoader: a table file (CSV or tab-separated) and its schema into the
// index as a protected table: each row's cells normalized, hashed under the
// index's key and stored (engine/record_tables.h). Nothing readable is
// kept; the file is not needed afterwards (but `leakhound rekey` reads it
// again from the path the table records).
//
// Thread-safety: one call per writer.
#ifndef LEAKHOUND_CLI_RECORDS_TABLE_LOADER_H_
#define LEAKHOUND_CLI_RECORDS_TABLE_LOADER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/records/record_schema.h"
#include "engine/protected_index.h"

namespace leakhound {

struct TableLoadOptions {
  std::string name;  // the table's name (the schema's, or the file's)
  std::string path;  // the file ("-": standard input)
  char delimiter = ',';
  bool replace = false;  // replace the table `name` (must exist)
  // Called every 100,000 rows with the rows read so far; may be empty.
  std::function<void(uint64_t rows)> progress;
  // Refuse a row with fewer fields than the header (else counted).
  bool strict = false;
};

// What a load noticed without refusing: rows with fewer fields than the
// header (their missing cells are empty), with the first lines.
struct TableLoadNotes {
  static constexpr size_t kLinesShown = 5;
  uint64_t short_rows = 0;
  std::vector<uint64_t> short_lines;  // the first kLinesShown
};

// The schema as the index stores it (columns, settings, how the file
// reads; no counts yet).
RecordTableRecord TableShape(const RecordSchema& schema,
                             const TableLoadOptions& options);
// The schema a stored table was added with (for `leakhound rekey`).
RecordSchema SchemaOfTable(const RecordTableRecord& table);

// Loads the file into `index` (a writer) and commits it, filling `notes`
// when given. Errors: InvalidArgument "PATH:LINE: ..." for a header that
// lacks a schema column (listing the header's fields, or naming the
// delimiter the file seems to use when the header reads as one field), a
// short row with options.strict, or a malformed file; the index's;
// AlreadyExists / NotFound as
// ProtectedIndex::BeginRecordTable. On an error nothing is named: the
// index is as before (what was written is deleted by the next load).
absl::StatusOr<RecordTableRecord> LoadTable(ProtectedIndex& index,
                                            const RecordSchema& schema,
                                            const TableLoadOptions& options,
                                            TableLoadNotes* notes = nullptr);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_TABLE_LOADER_H_
