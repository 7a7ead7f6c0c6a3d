// Workbook XML (SpreadsheetML, .xlsx): a workbook's shared strings and
// date styles, and a worksheet's cells one by one. Shared by the text
// extractor (office_extractor: cells as text) and the table reader
// (sheet_rows: `records add` of a table exported from Excel).
//
// Thread-safety: plain functions; a WorkbookParts is immutable once read.
#ifndef LEAKHOUND_CLI_FORMATS_WORKBOOK_XML_H_
#define LEAKHOUND_CLI_FORMATS_WORKBOOK_XML_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/formats/cell_dates.h"
#include "cli/formats/zip_package.h"

namespace leakhound {

// What every worksheet of a workbook refers to.
struct WorkbookParts {
  std::vector<std::string> shared;  // xl/sharedStrings.xml, by index
  CellDates dates;                  // xl/styles.xml and xl/workbook.xml
};

// Reads `package`'s shared strings (phonetic runs left out; at most
// `max_bytes` of them: ResourceExhausted past it) and date styles.
// Errors name the part.
absl::StatusOr<WorkbookParts> ReadWorkbookParts(const ZipPackage& package,
                                                size_t max_bytes);

// Calls `on_cell` for each cell of worksheet `xml` that has a value, in
// order: its 0-based column (from its reference, "C7" is 2; else the one
// after the previous cell) and its value (a shared string looked up, a
// date cell's serial as its date, else the value as stored); and
// `on_row_end` after each row. Stops at the first error a callback
// returns; XML errors as ParseXml's.
absl::Status ReadSheetCells(
    std::string_view xml, const WorkbookParts& parts,
    const std::function<absl::Status(uint32_t column, std::string_view value)>&
        on_cell,
    const std::function<absl::Status()>& on_row_end);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_WORKBOOK_XML_H_
