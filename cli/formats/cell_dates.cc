#include "cli/formats/cell_dates.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/ascii.h"

namespace leakhound {
namespace {

// Days from 1970-01-01 to civil date (y, m, d) and back (Howard Hinnant's
// algorithms, proleptic Gregorian).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2 ? 1 : 0);
}

constexpr int64_t kDays1899_12_30 = -25569;  // days from 1970-01-01
constexpr int64_t kDays1904_01_01 = -24107;

}  // namespace

bool IsDateFormat(uint32_t id, std::string_view code) {
  if ((id >= 14 && id <= 22) || (id >= 27 && id <= 36) ||
      (id >= 45 && id <= 47) || (id >= 50 && id <= 58)) {
    return true;
  }
  bool date = false, quoted = false, bracket = false;
  char previous = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const char c = static_cast<char>(
        absl::ascii_tolower(static_cast<unsigned char>(code[i])));
    if (quoted) {
      quoted = c != '"';
      continue;
    }
    if (bracket) {
      bracket = c != ']';
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == '[') {
      bracket = true;
    } else if (c == '\\' || c == '_' || c == '*') {
      ++i;  // the next character is shown (or padded) as is
    } else if (c == ';') {
      break;  // the first section decides
    } else if (c == 'd' || c == 'y') {
      date = true;
    } else if (c == 'm') {
      // A minute: right after an hour or before seconds.
      size_t next = i + 1;
      while (next < code.size() && (code[next] == 'm' || code[next] == 'M')) {
        ++next;
      }
      const bool minute =
          previous == 'h' || previous == ':' ||
          (next < code.size() && (code[next] == ':' || code[next] == 's'));
      if (!minute) date = true;
      i = next - 1;  // the run of m is one field
    }
    if (c != ' ') previous = c;
  }
  return date;
}

std::optional<std::string> SerialDate(double serial, bool date1904) {
  if (!std::isfinite(serial) || serial < (date1904 ? 0 : 1) ||
      serial >= 2958466) {
    return std::nullopt;
  }
  auto whole = static_cast<int64_t>(std::floor(serial));
  int64_t days = 0;
  if (date1904) {
    days = kDays1904_01_01 + whole;
  } else {
    if (whole >= 60) --whole;  // Excel's 1900-02-29; 60 reads as 02-28
    days = kDays1899_12_30 + 1 + whole;
  }
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  char out[64];
  const auto seconds = static_cast<int64_t>(
      std::llround((serial - std::floor(serial)) * 86400.0));
  if (seconds > 0 && seconds < 86400) {
    std::snprintf(out, sizeof out, "%04lld-%02u-%02u %02lld:%02lld:%02lld",
                  static_cast<long long>(y), m, d,  // NOLINT(runtime/int)
                  static_cast<long long>(seconds / 3600),     // NOLINT
                  static_cast<long long>(seconds / 60 % 60),  // NOLINT
                  static_cast<long long>(seconds % 60));      // NOLINT
  } else {
    std::snprintf(out, sizeof out, "%04lld-%02u-%02u",
                  static_cast<long long>(y), m, d);  // NOLINT(runtime/int)
  }
  return std::string(out);
}

void CellDates::AddFormat(uint32_t id, std::string code) {
  formats_[id] = std::move(code);
}

void CellDates::AddStyle(uint32_t format_id) {
  const auto code = formats_.find(format_id);
  date_styles_.push_back(IsDateFormat(
      format_id, code != formats_.end() ? std::string_view(code->second)
                                        : std::string_view()));
}

bool CellDates::IsDate(uint32_t style) const {
  return style < date_styles_.size() && date_styles_[style];
}

std::optional<std::string> CellDates::Text(uint32_t style, double value) const {
  if (!IsDate(style)) return std::nullopt;
  return SerialDate(value, date1904_);
}

}  // namespace leakhound
