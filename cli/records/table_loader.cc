#include "cli/records/table_loader.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/records/cell_hasher.h"
#include "cli/records/cell_normalizer.h"
#include "cli/records/csv_table.h"

namespace leakhound {

RecordSchema SchemaOfTable(const RecordTableRecord& table) {
  RecordSchema schema;
  schema.min_matches = table.min_matches;
  schema.proximity = table.proximity;
  schema.date_order = static_cast<DateOrder>(table.date_order);
  schema.header = table.header;
  for (const RecordColumnRecord& c : table.columns) {
    schema.columns.push_back(
        {c.name, static_cast<CellType>(c.type),
         c.role == static_cast<uint8_t>(RecordColumnRole::kPrimary),
         c.pattern});
  }
  return schema;
}

RecordTableRecord TableShape(const RecordSchema& schema,
                             const TableLoadOptions& options) {
  RecordTableRecord shape;
  shape.source = options.path;
  shape.delimiter = static_cast<uint8_t>(options.delimiter);
  shape.header = schema.header;
  shape.min_matches = schema.min_matches;
  shape.proximity = schema.proximity;
  shape.date_order = static_cast<uint8_t>(schema.date_order);
  for (const SchemaColumn& c : schema.columns) {
    RecordColumnRecord column;
    column.name = c.name;
    column.type = static_cast<uint8_t>(c.type);
    column.role =
        static_cast<uint8_t>(c.primary ? RecordColumnRole::kPrimary
                                       : RecordColumnRole::kCorroborating);
    column.pattern = c.pattern;
    shape.columns.push_back(std::move(column));
  }
  return shape;
}

absl::StatusOr<RecordTableRecord> LoadTable(ProtectedIndex& index,
                                            const RecordSchema& schema,
                                            const TableLoadOptions& options) {
  auto hasher = CellHasher::Create(index.store().key());
  if (!hasher.ok()) return hasher.status();
  auto normalizer = CellNormalizer::Create();
  if (!normalizer.ok()) return normalizer.status();
  auto load = index.BeginRecordTable(options.name, TableShape(schema, options),
                                     options.replace);
  if (!load.ok()) return load.status();
  const size_t columns = schema.columns.size();
  // field_of[c]: the file's field holding schema column c.
  std::vector<size_t> field_of(columns);
  for (size_t c = 0; c < columns; ++c) field_of[c] = c;
  bool header_read = !schema.header;
  std::vector<uint64_t> cells(columns);
  std::vector<uint8_t> words(columns, 0);
  uint64_t read = 0;
  absl::Status s = ReadCsvFile(
      options.path, options.delimiter,
      [&](uint64_t line, std::span<const std::string> fields) -> absl::Status {
        if (!header_read) {
          header_read = true;
          for (size_t c = 0; c < columns; ++c) {
            const std::string want =
                absl::AsciiStrToLower(schema.columns[c].name);
            auto it = std::find_if(
                fields.begin(), fields.end(), [&](const std::string& f) {
                  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(f)) ==
                         want;
                });
            if (it == fields.end()) {
              // Its fields are not shown: without a header they would be
              // a row's values.
              return absl::InvalidArgumentError(absl::StrCat(
                  "line ", line, ": the header has no column ",
                  schema.columns[c].name, " (it has ", fields.size(),
                  " fields; without a header, set header = false)"));
            }
            field_of[c] = static_cast<size_t>(it - fields.begin());
          }
          return absl::OkStatus();
        }
        bool primary = false;
        for (size_t c = 0; c < columns; ++c) {
          cells[c] = 0;
          if (field_of[c] >= fields.size()) continue;
          const std::string& raw = fields[field_of[c]];
          const SchemaColumn& column = schema.columns[c];
          auto form = (*normalizer)->Cell(column.type, schema.date_order, raw);
          if (!form) continue;
          cells[c] = (*hasher)->Hash(column.type, *form);
          if (column.primary) primary = true;
          if (column.type == CellType::kName ||
              column.type == CellType::kText) {
            words[c] = static_cast<uint8_t>(std::max<uint32_t>(
                words[c],
                std::min<uint32_t>(16, CellNormalizer::WordCount(raw))));
          }
        }
        if (++read % 100000 == 0 && options.progress) options.progress(read);
        if (!primary) {
          (*load)->SkipRow();
          return absl::OkStatus();
        }
        return (*load)->AddRow(cells);
      });
  if (!s.ok()) {
    const std::string message(s.message());
    if (message.starts_with("line ")) {
      return absl::InvalidArgumentError(
          absl::StrCat(options.path, ":", message.substr(5)));
    }
    return s;
  }
  for (size_t c = 0; c < columns; ++c) (*load)->SetMaxWords(c, words[c]);
  return index.CommitRecordTable(**load);
}

}  // namespace leakhound
