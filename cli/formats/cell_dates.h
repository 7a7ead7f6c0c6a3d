// CellDates: which cells of a spreadsheet hold dates, and the dates they
// hold. Excel stores a date as a number of days (a serial: 31108 is
// 1985-03-02) with a date number format on the cell's style; read as a
// number, a date cell of a protected table never meets a date column
// (docs/records.md). The .xlsx reader (styles.xml's numFmts and cellXfs)
// and the .xls reader (FORMAT and XF records) declare the formats and
// styles; a date cell's value is then written as an ISO date.
//
// Thread-safety: one per workbook; not shared.
#ifndef LEAKHOUND_CLI_FORMATS_CELL_DATES_H_
#define LEAKHOUND_CLI_FORMATS_CELL_DATES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace leakhound {

// Whether number format `id` with format code `code` ("" for a built-in
// format) shows a date: the built-in date formats (14-22, 27-36, 45-47,
// 50-58), or a code with a day, month or year field outside quotes,
// brackets and escapes (a minute's m, after h or before s, is not one).
bool IsDateFormat(uint32_t id, std::string_view code);

// The date of Excel serial `serial` as YYYY-MM-DD, with " HH:MM:SS" when
// it has a time of day; nullopt outside 1900-01-01 .. 9999-12-31 (1904
// date system: from 1904-01-01). Serial 60 is Excel's 1900-02-29, which
// never was: it reads as 1900-02-28.
std::optional<std::string> SerialDate(double serial, bool date1904);

class CellDates {
 public:
  // A custom number format (built-in ones need no declaration).
  void AddFormat(uint32_t id, std::string code);
  // The next style, in order (xlsx cellXfs' xf, xls XF records).
  void AddStyle(uint32_t format_id);
  void set_date1904(bool v) { date1904_ = v; }

  // Whether style `style` (its index in AddStyle order) shows dates.
  bool IsDate(uint32_t style) const;
  // The text of a number cell of style `style`: its date if the style
  // shows dates and the value is a serial, else nullopt (write the number).
  std::optional<std::string> Text(uint32_t style, double value) const;

 private:
  std::unordered_map<uint32_t, std::string> formats_;
  std::vector<bool> date_styles_;
  bool date1904_ = false;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_CELL_DATES_H_
