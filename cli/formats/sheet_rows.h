// ReadSheetRows: the rows of a workbook's first worksheet, for `leakhound
// records add` of a table an admin exported from Excel (.xlsx). Cells are
// placed by their references (an empty cell Excel leaves out is an empty
// field), shared strings looked up, date cells written as ISO dates.
// "First" is the package's first sheet part in natural order (sheet1).
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_FORMATS_SHEET_ROWS_H_
#define LEAKHOUND_CLI_FORMATS_SHEET_ROWS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// Whether `bytes` begin as a zip archive does (an .xlsx, or another OOXML
// or ODF package).
bool LooksLikeZip(std::string_view bytes);

// Calls `on_row` with each row of `bytes`' first worksheet that has a
// cell, numbered from 1 in order. Within `limits` (decompression, input size, time);
// InvalidArgument for a file that is no .xlsx workbook or has no sheet.
absl::Status ReadSheetRows(
    std::string_view bytes, const ExtractionLimits& limits,
    const std::function<absl::Status(uint64_t row,
                                     std::span<const std::string> fields)>&
        on_row);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_SHEET_ROWS_H_
