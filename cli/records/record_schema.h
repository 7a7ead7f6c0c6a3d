// RecordSchema: what a protected table's columns are (exact data match,
// docs/records.md), read from the schema file `leakhound records add
// --schema` names:
//
//   table = "customers"        # optional: the table's name
//   min_matches = 2            # other cells of a row needed with a primary
//   proximity = 50             # words between the primary and each of them
//   date_order = "dmy"         # how 03/04/1985 reads: dmy, mdy or ymd
//   header = true              # the file's first line names its columns
//   region = "DE"              # how phone numbers without a country code
//                              #   read (ISO 3166 code; a phone column may
//                              #   name its own)
//   [[column]]
//   name = "card"              # the header's name (any case)
//   type = "card"              # email phone card iban national_id date
//                              #   name text
//   primary = true             # searched for; else it corroborates
//   pattern = "[A-Z]{2}\\d{7}" # national_id only: the id's form
//   region = "FR"              # phone only: overrides the table's
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_CLI_RECORDS_RECORD_SCHEMA_H_
#define LEAKHOUND_CLI_RECORDS_RECORD_SCHEMA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

// PERSISTED by value (RecordColumnRecord::type) and in the cell hashes'
// input (cell_hasher.h): never renumber.
enum class CellType : uint8_t {
  kEmail = 1,
  kPhone = 2,
  kCard = 3,
  kIban = 4,
  kNationalId = 5,
  kDate = 6,
  kName = 7,
  kText = 8,
};

// PERSISTED by value (RecordTableRecord::date_order).
enum class DateOrder : uint8_t {
  kDayMonthYear = 0,
  kMonthDayYear = 1,
  kYearMonthDay = 2
};

// The schema file's spelling of a type ("card"); nullopt if unknown.
std::optional<CellType> CellTypeNamed(std::string_view name);
std::string_view CellTypeName(CellType type);
// Whether the scanner can find cells of `type` on their own (a pattern
// with a validator): only these may be primary.
bool CanBePrimary(CellType type);

struct SchemaColumn {
  std::string name;
  CellType type = CellType::kText;
  bool primary = false;
  std::string pattern;  // kNationalId: a regular expression (Hyperscan's)
  std::string region;   // kPhone: its own or the table's region; "" none
};

struct RecordSchema {
  std::string table;  // empty: the file's name without extension
  uint32_t min_matches = 2;
  uint32_t proximity = 50;
  DateOrder date_order = DateOrder::kDayMonthYear;
  bool header = true;
  std::string region;  // phone columns' default region ("DE"); "" none
  std::vector<SchemaColumn> columns;
};

// Parses a schema file's text; `path` names it in errors, which are
// InvalidArgument "PATH:LINE: what is wrong" (the first one). Checks: at
// least one primary column, each of a type that can be, every national_id
// with a pattern, names unique, min_matches below the number of columns.
absl::StatusOr<RecordSchema> ParseRecordSchema(std::string_view text,
                                               const std::string& path);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_RECORD_SCHEMA_H_
