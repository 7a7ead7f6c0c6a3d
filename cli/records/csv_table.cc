#include "cli/records/csv_table.h"

#include <csv.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

constexpr size_t kMaxFields = 1024;

// What libcsv's callbacks fill; errors are kept and stop the callbacks.
struct Rows {
  const std::function<absl::Status(uint64_t, std::span<const std::string>)>*
      on_row;
  std::vector<std::string> fields;
  uint64_t line = 1;      // the line being read
  uint64_t row_line = 1;  // the current row's first line
  bool first_field = true;
  absl::Status status;
};

void OnField(void* data, size_t size, void* context) {
  auto* rows = static_cast<Rows*>(context);
  if (!rows->status.ok()) return;
  std::string_view field(static_cast<const char*>(data), data ? size : 0);
  if (rows->first_field && field.starts_with("\xEF\xBB\xBF")) {
    field.remove_prefix(3);
  }
  rows->first_field = false;
  if (field.size() > kMaxCsvField || rows->fields.size() >= kMaxFields) {
    rows->status = absl::InvalidArgumentError(
        absl::StrCat("line ", rows->row_line, ": ",
                     field.size() > kMaxCsvField ? "a field longer than 64 KiB"
                                                 : "more than 1,024 fields"));
    return;
  }
  rows->fields.emplace_back(field);
}

void OnRow(int /*terminator*/, void* context) {
  auto* rows = static_cast<Rows*>(context);
  if (rows->status.ok())
    rows->status = (*rows->on_row)(rows->row_line, rows->fields);
  rows->fields.clear();
  rows->row_line = rows->line + 1;
}

// Feeds one block, counting lines so that each row knows its first line.
// Returns false when parsing must stop.
bool Feed(csv_parser& parser, std::string_view block, Rows& rows) {
  size_t at = 0;
  while (at < block.size()) {
    const size_t nl = block.find('\n', at);
    const size_t end = nl == std::string_view::npos ? block.size() : nl + 1;
    const std::string_view piece = block.substr(at, end - at);
    if (csv_parse(&parser, piece.data(), piece.size(), OnField, OnRow, &rows) !=
        piece.size()) {
      rows.status = absl::InvalidArgumentError(absl::StrCat(
          "line ", rows.line, ": ", csv_strerror(csv_error(&parser))));
    }
    if (!rows.status.ok()) return false;
    if (nl != std::string_view::npos) ++rows.line;
    at = end;
  }
  return true;
}

struct ParserCloser {
  void operator()(csv_parser* p) const {
    csv_free(p);
    delete p;
  }
};

absl::Status Read(
    char delimiter,
    const std::function<absl::Status(uint64_t, std::span<const std::string>)>&
        on_row,
    const std::function<bool(Rows&, csv_parser&)>& feed_all) {
  std::unique_ptr<csv_parser, ParserCloser> parser(new csv_parser());
  if (csv_init(parser.get(), CSV_APPEND_NULL) != 0) {
    delete parser.release();
    return absl::ResourceExhaustedError("cannot start the CSV parser");
  }
  csv_set_delim(parser.get(), static_cast<unsigned char>(delimiter));
  Rows rows;
  rows.on_row = &on_row;
  if (!feed_all(rows, *parser)) return rows.status;
  // An open quote at the end is an error (libcsv would close it).
  csv_set_opts(parser.get(), CSV_APPEND_NULL | CSV_STRICT | CSV_STRICT_FINI);
  if (csv_fini(parser.get(), OnField, OnRow, &rows) != 0 && rows.status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", rows.row_line, ": a quoted field is not closed"));
  }
  return rows.status;
}

}  // namespace

absl::Status ReadCsvRows(
    std::string_view bytes, char delimiter,
    const std::function<absl::Status(uint64_t, std::span<const std::string>)>&
        on_row) {
  return Read(delimiter, on_row, [&](Rows& rows, csv_parser& parser) {
    return Feed(parser, bytes, rows);
  });
}

absl::Status ReadCsvFile(
    const std::string& path, char delimiter,
    const std::function<absl::Status(uint64_t, std::span<const std::string>)>&
        on_row) {
  FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  absl::Status read_error;
  absl::Status s = Read(delimiter, on_row, [&](Rows& rows, csv_parser& parser) {
    std::vector<char> block(size_t{1} << 20);
    size_t n = 0;
    while ((n = std::fread(block.data(), 1, block.size(), file)) > 0) {
      if (!Feed(parser, std::string_view(block.data(), n), rows)) return false;
    }
    if (std::ferror(file)) {
      read_error =
          absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", path));
      rows.status = read_error;
      return false;
    }
    return true;
  });
  if (file != stdin) std::fclose(file);
  return s;
}

}  // namespace leakhound
