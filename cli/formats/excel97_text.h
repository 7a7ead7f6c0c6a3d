// Excel97Text: the text of an Excel 97-2003 workbook (BIFF8, MS-XLS) held
// in the Workbook stream of an OLE2 compound file. Records are read in
// order: the shared string table (SST, its strings continued across
// CONTINUE records with a fresh option byte at each boundary), then per
// worksheet the cells: LABELSST, LABEL and RSTRING strings, NUMBER, RK and
// MULRK numbers, FORMULA results (a string result in the STRING record
// that follows), and the text of comments and text boxes (TXO). Cells of
// a row are joined by tabs, rows end lines, each sheet starts with its
// name.
//
// Thread-safety: a reentrant function.
#ifndef LEAKHOUND_CLI_FORMATS_EXCEL97_TEXT_H_
#define LEAKHOUND_CLI_FORMATS_EXCEL97_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

// Appends the text of the BIFF8 Workbook stream `workbook` to *out, at
// most `max_text_bytes` (ResourceExhausted past it). Errors: the
// Unreadable error kEncrypted (text_extractor.h) for a workbook with a
// FILEPASS record; InvalidArgument for one that does not start with a
// BIFF8 BOF (kUnsupported for BIFF5, Excel 5/95), or whose records run
// past the end of the stream (bytes after the last record that are all
// zero are the stream's padding).
absl::Status AppendExcel97Text(std::string_view workbook,
                               size_t max_text_bytes, std::string* out);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_EXCEL97_TEXT_H_
