// libFuzzer target: the readers of a protected table's files, the schema
// (toml++) and the table (libcsv). The first byte picks which, and for the
// table the delimiter. Checks: no crash, errors name a line, rows hold
// only fields within the limits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/records/csv_table.h"
#include "cli/records/record_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  if ((data[0] & 1) == 0) {
    auto schema = leakhound::ParseRecordSchema(input, "fuzz.toml");
    if (schema.ok()) {
      // What a parsed schema promises (record_schema.h).
      bool primary = false;
      for (const auto& c : schema->columns) {
        primary = primary || c.primary;
        if (c.primary && !leakhound::CanBePrimary(c.type)) __builtin_trap();
        if (c.type == leakhound::CellType::kNationalId && c.pattern.empty()) {
          __builtin_trap();
        }
      }
      if (!primary || schema->min_matches >= schema->columns.size()) {
        __builtin_trap();
      }
    } else if (std::string(schema.status().message()).rfind("fuzz.toml", 0) !=
               0) {
      __builtin_trap();  // every error names the file
    }
    return 0;
  }
  static constexpr char kDelimiters[] = {',', ';', '\t', '|'};
  const char delimiter = kDelimiters[(data[0] >> 1) & 3];
  uint64_t last_line = 0;
  absl::Status s = leakhound::ReadCsvRows(
      input, delimiter,
      [&](uint64_t line, std::span<const std::string> fields) {
        if (line < last_line || fields.size() > 1024) __builtin_trap();
        for (const std::string& f : fields) {
          if (f.size() > leakhound::kMaxCsvField) __builtin_trap();
        }
        last_line = line;
        return absl::OkStatus();
      });
  if (!s.ok() && std::string(s.message()).rfind("line ", 0) != 0) {
    __builtin_trap();
  }
  return 0;
}
