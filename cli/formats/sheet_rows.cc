#include "cli/formats/sheet_rows.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/extraction.h"
#include "cli/formats/workbook_xml.h"
#include "cli/formats/zip_package.h"

namespace leakhound {
namespace {

bool Wanted(std::string_view name) {
  return name.starts_with("xl/") && name.ends_with(".xml");
}

}  // namespace

bool LooksLikeZip(std::string_view bytes) {
  return bytes.starts_with(std::string_view("PK\x03\x04", 4));
}

absl::Status ReadSheetRows(
    std::string_view bytes, const ExtractionLimits& limits,
    const std::function<absl::Status(
        uint64_t row, std::span<const std::string> fields)>& on_row) {
  absl::StatusOr<ZipPackage> package;
  absl::Status unpacked =
      ReadWithinLimits(bytes.size(), limits, [&](ExtractionSink& sink) {
        package = ReadZipPackage(bytes, sink, Wanted);
        return package.status();
      });
  if (!unpacked.ok()) return unpacked;
  const std::vector<std::string> sheets =
      package->Matching("xl/worksheets/sheet", ".xml");
  if (sheets.empty()) {
    return absl::InvalidArgumentError(
        "not an Excel workbook (.xlsx): no worksheet");
  }
  auto parts = ReadWorkbookParts(*package, limits.max_output_bytes);
  if (!parts.ok()) return parts.status();
  std::vector<std::string> fields;
  uint64_t row = 0;
  const auto on_cell = [&](uint32_t column, std::string_view value) {
    if (column >= 1024) {
      return absl::InvalidArgumentError(
          absl::StrCat("row ", row + 1, ": a cell beyond column 1024"));
    }
    if (fields.size() <= column) fields.resize(column + 1);
    fields[column] = std::string(value);
    return absl::OkStatus();
  };
  const std::function<absl::Status()> on_row_end = [&] {
    ++row;
    absl::Status s = fields.empty() ? absl::OkStatus() : on_row(row, fields);
    fields.clear();
    return s;
  };
  return ReadSheetCells(package->Get(sheets.front()), *parts, on_cell,
                        on_row_end);
}

}  // namespace leakhound
