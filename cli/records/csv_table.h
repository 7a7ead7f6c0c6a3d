// CsvTable: a delimited text table (RFC 4180 CSV, or tab-separated), read
// row by row with libcsv (the only file that calls it), streaming: memory
// holds one row. Quoted fields may hold delimiters, quotes ("") and line
// breaks; a UTF-8 byte-order mark before the first field is dropped.
//
// Thread-safety: a function; one call per file.
#ifndef LEAKHOUND_CLI_RECORDS_CSV_TABLE_H_
#define LEAKHOUND_CLI_RECORDS_CSV_TABLE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

// Longest field accepted: a table cell, not a document.
inline constexpr size_t kMaxCsvField = size_t{64} << 10;

// Calls on_row(line, fields) for each row of `bytes` (`line`: the row's
// first line, 1-based), in order; stops at and returns on_row's first
// error. InvalidArgument "LINE: ..." for a field longer than kMaxCsvField,
// a row of more than 1,024 fields, or a quote left open at the end.
absl::Status ReadCsvRows(
    std::string_view bytes, char delimiter,
    const std::function<absl::Status(
        uint64_t line, std::span<const std::string> fields)>& on_row);

// The same for the file at `path` ("-": standard input), read in blocks.
// NotFound / PermissionDenied naming the file.
absl::Status ReadCsvFile(
    const std::string& path, char delimiter,
    const std::function<absl::Status(
        uint64_t line, std::span<const std::string> fields)>& on_row);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_CSV_TABLE_H_
