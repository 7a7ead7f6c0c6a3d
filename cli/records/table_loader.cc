#include "cli/records/table_loader.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/records/cell_hasher.h"
#include "cli/records/cell_normalizer.h"
#include "cli/formats/sheet_rows.h"
#include "cli/records/csv_table.h"
#include "cli/records/phone_numbers.h"

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
         c.pattern, c.region});
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
    column.region = c.region;
    column.marks_folded = true;
    shape.columns.push_back(std::move(column));
  }
  return shape;
}

namespace {

// A header field list that is one field holding another delimiter than
// `delimiter`: the delimiter the file seems to use, else 0.
char LikelyDelimiter(std::span<const std::string> fields, char delimiter) {
  if (fields.size() != 1) return 0;
  for (char c : {',', ';', '\t', '|'}) {
    if (c != delimiter && fields[0].find(c) != std::string::npos) return c;
  }
  return 0;
}

std::string DelimiterOption(char c) {
  return c == '\t' ? "--delimiter tab" : absl::StrCat("--delimiter '", std::string(1, c), "'");
}

// One file's rows into a table load: the header mapped to the schema's
// columns, then each row's cells hashed; rows shorter than the header
// counted (TableLoadNotes) or, with options.strict, refused.
class TableRead {
 public:
  TableRead(const RecordSchema& schema, const TableLoadOptions& options,
            const CellHasher& hasher, CellNormalizer& normalizer,
            RecordTableLoad& load, TableLoadNotes& notes)
      : schema_(schema),
        options_(options),
        hasher_(hasher),
        normalizer_(normalizer),
        load_(load),
        notes_(notes),
        field_of_(schema.columns.size()),
        cells_(schema.columns.size()),
        words_(schema.columns.size(), 0),
        country_codes_(schema.columns.size()),
        sampled_(schema.columns.size(), 0),
        header_read_(!schema.header) {
    for (size_t c = 0; c < field_of_.size(); ++c) field_of_[c] = c;
    width_ = field_of_.size();
  }

  absl::Status Line(uint64_t line, std::span<const std::string> fields) {
    if (!header_read_) {
      header_read_ = true;
      return Header(line, fields);
    }
    if (fields.size() < width_) {
      if (options_.strict) {
        return absl::InvalidArgumentError(absl::StrCat(
            "line ", line, ": ", fields.size(), " of the header's ", width_,
            " fields (--strict refuses short rows)"));
      }
      if (notes_.short_lines.size() < TableLoadNotes::kLinesShown) {
        notes_.short_lines.push_back(line);
      }
      ++notes_.short_rows;
    }
    return Row(fields);
  }

  // The longest word run of each name and text column; the regions of
  // each phone column's international numbers.
  void Finish() {
    for (size_t c = 0; c < words_.size(); ++c) load_.SetMaxWords(c, words_[c]);
    for (size_t c = 0; c < country_codes_.size(); ++c) {
      load_.SetHeldRegions(c, HeldRegions(country_codes_[c]));
    }
  }

 private:
  absl::Status Header(uint64_t line, std::span<const std::string> fields) {
    width_ = fields.size();
    for (size_t c = 0; c < schema_.columns.size(); ++c) {
      const std::string want = absl::AsciiStrToLower(schema_.columns[c].name);
      auto it = std::find_if(fields.begin(), fields.end(),
                             [&](const std::string& f) {
                               return absl::AsciiStrToLower(
                                          absl::StripAsciiWhitespace(f)) == want;
                             });
      if (it != fields.end()) {
        field_of_[c] = static_cast<size_t>(it - fields.begin());
        continue;
      }
      std::string message = absl::StrCat(
          "line ", line, ": the header has no column ", schema_.columns[c].name);
      if (const char d = LikelyDelimiter(fields, options_.delimiter)) {
        absl::StrAppend(&message, "; it reads as one field, ",
                        Quoted(fields[0]), ": the file seems separated by ",
                        d == '\t' ? "tabs" : absl::StrCat("'", std::string(1, d), "'"),
                        " (", DelimiterOption(d), ")");
      } else {
        std::vector<std::string> names;
        for (const std::string& f : fields) names.push_back(Quoted(f));
        absl::StrAppend(&message, " (its columns: ", absl::StrJoin(names, ", "),
                        "; without a header, set header = false)");
      }
      return absl::InvalidArgumentError(message);
    }
    return absl::OkStatus();
  }

  static std::string Quoted(std::string_view field) {
    std::string shown(field.substr(0, 60));
    if (field.size() > 60) shown += "...";
    return absl::StrCat("'", shown, "'");
  }

  absl::Status Row(std::span<const std::string> fields) {
    bool primary = false;
    for (size_t c = 0; c < cells_.size(); ++c) {
      cells_[c] = 0;
      if (field_of_[c] >= fields.size()) continue;
      const std::string& raw = fields[field_of_[c]];
      const SchemaColumn& column = schema_.columns[c];
      std::optional<std::string> form;
      if (column.type == CellType::kPhone) {
        form = Phone(c, raw);
      } else {
        form = normalizer_.Cell(column.type, schema_.date_order, raw);
      }
      if (!form) continue;
      cells_[c] = hasher_.Hash(column.type, *form);
      if (column.primary) primary = true;
      if (column.type == CellType::kName || column.type == CellType::kText) {
        words_[c] = static_cast<uint8_t>(std::max<uint32_t>(
            words_[c], std::min<uint32_t>(16, CellNormalizer::WordCount(raw))));
      }
    }
    if (++read_ % 100000 == 0 && options_.progress) options_.progress(read_);
    if (!primary) {
      load_.SkipRow();
      return absl::OkStatus();
    }
    return load_.AddRow(cells_);
  }

  // A phone cell's form: written without a country code and the column
  // has a region, the E.164 digits libphonenumber reads in it; else its
  // digits, as the normalizer has them. Counts the country codes of the
  // first kRegionSample international cells.
  std::optional<std::string> Phone(size_t c, std::string_view raw) {
    const absl::string_view at = absl::StripLeadingAsciiWhitespace(
        absl::string_view(raw.data(), raw.size()));
    const bool international =
        absl::StartsWith(at, "+") || absl::StartsWith(at, "00");
    const std::string& region = schema_.columns[c].region;
    if (!international && !region.empty()) {
      if (auto e164 = PhoneE164(raw, region)) return e164;
    }
    auto form = normalizer_.Cell(CellType::kPhone, schema_.date_order, raw);
    if (form && international) {
      auto& counts = country_codes_[c];
      if (++sampled_[c] <= kRegionSample) ++counts[RegionOfInternational(*form)];
    }
    return form;
  }

  // Regions holding at least 1 % of a column's sampled numbers, the most
  // first, at most 8.
  static std::vector<std::string> HeldRegions(
      const std::map<std::string, uint64_t>& counts) {
    uint64_t total = 0;
    for (const auto& [region, n] : counts) total += n;
    std::vector<std::pair<uint64_t, std::string>> held;
    for (const auto& [region, n] : counts) {
      if (!region.empty() && n * 100 >= total) held.emplace_back(n, region);
    }
    std::sort(held.begin(), held.end(), std::greater<>());
    if (held.size() > 8) held.resize(8);
    std::vector<std::string> out;
    for (auto& [n, region] : held) out.push_back(std::move(region));
    return out;
  }

  static constexpr uint64_t kRegionSample = 100000;

  const RecordSchema& schema_;
  const TableLoadOptions& options_;
  const CellHasher& hasher_;
  CellNormalizer& normalizer_;
  RecordTableLoad& load_;
  TableLoadNotes& notes_;
  std::vector<size_t> field_of_;  // [c]: the file's field of column c
  std::vector<uint64_t> cells_;
  std::vector<uint8_t> words_;
  std::vector<std::map<std::string, uint64_t>> country_codes_;  // per column
  std::vector<uint64_t> sampled_;
  bool header_read_;
  size_t width_ = 0;  // the header's fields (no header: the schema's)
  uint64_t read_ = 0;
};

// Whether `path` names an Excel workbook (.xlsx) rather than delimited
// text.
bool IsWorkbook(const std::string& path) {
  return absl::EndsWithIgnoreCase(path, ".xlsx");
}

// The rows of the workbook at `path`'s first sheet, as ReadCsvFile gives
// a CSV file's. Larger limits than a scan's: a table is an admin's file.
absl::Status ReadWorkbookFile(
    const std::string& path,
    const std::function<absl::Status(uint64_t, std::span<const std::string>)>&
        on_row) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot be opened"));
  }
  ExtractionLimits limits;
  limits.max_input_bytes = size_t{2} << 30;
  limits.max_output_bytes = size_t{4} << 30;
  limits.max_seconds = 3600;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || static_cast<uint64_t>(size) > limits.max_input_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a workbook larger than 2 GiB"));
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) {
    return absl::DataLossError(absl::StrCat(path, ": cannot be read"));
  }
  if (!LooksLikeZip(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not an Excel workbook (.xlsx)"));
  }
  if (absl::Status s = ReadSheetRows(bytes, limits, on_row); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RecordTableRecord> LoadTable(ProtectedIndex& index,
                                            const RecordSchema& schema,
                                            const TableLoadOptions& options,
                                            TableLoadNotes* notes) {
  auto hasher = CellHasher::Create(index.store().key());
  if (!hasher.ok()) return hasher.status();
  auto normalizer = CellNormalizer::Create();
  if (!normalizer.ok()) return normalizer.status();
  auto load = index.BeginRecordTable(options.name, TableShape(schema, options),
                                     options.replace);
  if (!load.ok()) return load.status();
  TableLoadNotes ignored;
  TableRead read(schema, options, **hasher, **normalizer, **load,
                 notes != nullptr ? *notes : ignored);
  const auto on_row = [&read](uint64_t line,
                              std::span<const std::string> fields) {
    return read.Line(line, fields);
  };
  absl::Status s = IsWorkbook(options.path)
                       ? ReadWorkbookFile(options.path, on_row)
                       : ReadCsvFile(options.path, options.delimiter, on_row);
  if (!s.ok()) {
    const std::string message(s.message());
    if (message.starts_with("line ")) {
      return absl::InvalidArgumentError(
          absl::StrCat(options.path, ":", message.substr(5)));
    }
    return s;
  }
  read.Finish();
  return index.CommitRecordTable(**load);
}

}  // namespace leakhound
