#include "cli/formats/excel97_text.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/cell_dates.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {
namespace {

// Record types (MS-XLS 2.3).
enum : uint16_t {
  kFormula = 0x0006,
  kEof = 0x000A,
  kDateMode = 0x0022,
  kFilePass = 0x002F,
  kContinue = 0x003C,
  kBoundSheet = 0x0085,
  kMulRk = 0x00BD,
  kRString = 0x00D6,
  kXf = 0x00E0,
  kSst = 0x00FC,
  kLabelSst = 0x00FD,
  kTxo = 0x01B6,
  kNumber = 0x0203,
  kLabel = 0x0204,
  kString = 0x0207,
  kRk = 0x027E,
  kFormat = 0x041E,
  kBof = 0x0809,
};

constexpr uint16_t kBiff8 = 0x0600;
constexpr uint16_t kWorkbookGlobals = 0x0005;

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed Excel workbook: ", std::string(what)));
}

struct Record {
  uint16_t type = 0;
  std::string_view data;
};

// A record's data and its CONTINUE records, read as one sequence. Strings
// that cross into a CONTINUE start it with a fresh option byte (whether
// the characters that follow take one or two bytes).
class Segments {
 public:
  explicit Segments(std::vector<std::string_view> segments)
      : segments_(std::move(segments)) {}

  bool Byte(uint8_t* out) {
    if (!Advance()) return false;
    *out = static_cast<uint8_t>(segments_[seg_][pos_++]);
    return true;
  }
  bool U16(uint16_t* out) {
    uint8_t a = 0, b = 0;
    if (!Byte(&a) || !Byte(&b)) return false;
    *out = static_cast<uint16_t>(a | (b << 8));
    return true;
  }
  bool U32(uint32_t* out) {
    uint16_t a = 0, b = 0;
    if (!U16(&a) || !U16(&b)) return false;
    *out = a | (uint32_t{b} << 16);
    return true;
  }
  bool Skip(size_t n) {
    while (n > 0) {
      if (!Advance()) return false;
      const size_t k = std::min(n, segments_[seg_].size() - pos_);
      pos_ += k;
      n -= k;
    }
    return true;
  }
  // `count` characters, one or two bytes each as `high` says; at each
  // segment boundary a new option byte decides again.
  bool Chars(size_t count, bool high, std::string* out) {
    while (count > 0) {
      if (pos_ == segments_[seg_].size()) {
        if (seg_ + 1 >= segments_.size()) return false;
        ++seg_;
        pos_ = 0;
        uint8_t option = 0;
        if (!Byte(&option)) return false;
        high = (option & 0x01) != 0;
      }
      const size_t width = high ? 2 : 1;
      const size_t available = (segments_[seg_].size() - pos_) / width;
      if (available == 0) return false;
      const size_t n = std::min(count, available);
      const std::string_view bytes = segments_[seg_].substr(pos_, n * width);
      if (high) {
        AppendUtf16Le(bytes, out);
      } else {
        AppendLatin1(bytes, out);
      }
      pos_ += n * width;
      count -= n;
    }
    return true;
  }
  // An XLUnicodeRichExtendedString (the SST's strings).
  bool RichString(std::string* out) {
    uint16_t cch = 0;
    uint8_t flags = 0;
    uint16_t runs = 0;
    uint32_t ext = 0;
    if (!U16(&cch) || !Byte(&flags)) return false;
    if ((flags & 0x08) && !U16(&runs)) return false;
    if ((flags & 0x04) && !U32(&ext)) return false;
    return Chars(cch, flags & 0x01, out) && Skip(size_t{runs} * 4) && Skip(ext);
  }

 private:
  // Moves to the next segment with bytes left; false at the end.
  bool Advance() {
    while (pos_ == segments_[seg_].size()) {
      if (seg_ + 1 >= segments_.size()) return false;
      ++seg_;
      pos_ = 0;
    }
    return true;
  }

  std::vector<std::string_view> segments_;
  size_t seg_ = 0;
  size_t pos_ = 0;
};

// An XLUnicodeString (cch, option byte, characters) at the start of
// `data` and its continuations.
bool UnicodeString(std::vector<std::string_view> segments, std::string* out) {
  Segments s(std::move(segments));
  uint16_t cch = 0;
  uint8_t flags = 0;
  return s.U16(&cch) && s.Byte(&flags) && s.Chars(cch, flags & 0x01, out);
}

std::string Number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", v);
  return buffer;
}

double RkValue(uint32_t rk) {
  double v = 0;
  if (rk & 0x02) {
    v = static_cast<double>(static_cast<int32_t>(rk) >> 2);
  } else {
    const uint64_t bits = uint64_t{rk & 0xFFFFFFFCu} << 32;
    std::memcpy(&v, &bits, sizeof v);
  }
  return (rk & 0x01) ? v / 100 : v;
}

// Cells in reading order: a tab between the cells of a row, a line end
// between rows.
class CellWriter {
 public:
  CellWriter(size_t max_bytes, std::string* out)
      : max_bytes_(max_bytes), out_(out) {}

  absl::Status Line(std::string_view text) {
    if (!out_->empty() && out_->back() != '\n') out_->push_back('\n');
    row_ = -1;
    return Append(text, "\n");
  }
  absl::Status Cell(uint16_t row, std::string_view text) {
    if (text.empty()) return absl::OkStatus();
    if (row_ == row) {
      out_->push_back('\t');
    } else if (!out_->empty() && out_->back() != '\n') {
      out_->push_back('\n');
    }
    row_ = row;
    return Append(text, "");
  }

 private:
  absl::Status Append(std::string_view text, std::string_view end) {
    if (out_->size() + text.size() + end.size() > max_bytes_) {
      return TextLimitError(max_bytes_);
    }
    out_->append(text);
    out_->append(end);
    return absl::OkStatus();
  }

  size_t max_bytes_;
  std::string* out_;
  int row_ = -1;
};

// The workbook stream's records, in order; Malformed when one runs past
// the stream's end (but for zero padding).
absl::StatusOr<std::vector<Record>> ReadRecords(std::string_view workbook) {
  std::vector<Record> records;
  const ByteView stream(workbook);
  for (size_t pos = 0; pos < workbook.size();) {
    uint16_t type = 0, length = 0;
    Record r;
    if (!stream.Get(pos, &type) || !stream.Get(pos + 2, &length) ||
        !stream.Slice(pos + 4, length, &r.data)) {
      if (workbook.find_first_not_of('\0', pos) == std::string_view::npos) {
        break;  // padding
      }
      return Malformed("record past the end of the stream");
    }
    r.type = type;
    records.push_back(r);
    pos += 4 + size_t{length};
  }
  if (records.empty() || records[0].type != kBof) {
    return Malformed("no BOF record");
  }
  uint16_t version = 0;
  ByteView(records[0].data).Get(0, &version);
  if (version != kBiff8) {
    return UnreadableError(Unreadable::kUnsupported,
                           "Excel 5/95 (BIFF5) workbook: unsupported format");
  }
  return records;
}

// Walks a BIFF8 workbook's records, writing its cells, sheet names and
// text boxes in reading order.
class WorkbookReader {
 public:
  WorkbookReader(std::vector<Record> records, size_t workbook_bytes,
                 size_t max_text_bytes, std::string* out)
      : records_(std::move(records)),
        workbook_bytes_(workbook_bytes),
        max_text_bytes_(max_text_bytes),
        cells_(max_text_bytes, out) {}

  absl::Status Read() {
    for (size_t i = 0; i < records_.size(); ++i) {
      if (absl::Status s = OnRecord(i); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  // The record at i with its CONTINUE records.
  std::vector<std::string_view> Continued(size_t i) const {
    std::vector<std::string_view> segments{records_[i].data};
    for (size_t k = i + 1; k < records_.size() && records_[k].type == kContinue;
         ++k) {
      segments.push_back(records_[k].data);
    }
    return segments;
  }

  absl::Status OnRecord(size_t i) {
    const Record& r = records_[i];
    const ByteView d(r.data);
    uint16_t row = 0;
    d.Get(0, &row);
    switch (r.type) {
      case kFilePass:
        return UnreadableError(Unreadable::kEncrypted,
                               "password-protected Excel workbook");
      case kBof: {
        uint16_t kind = 0;
        d.Get(2, &kind);
        if (kind != kWorkbookGlobals && sheet_ < sheets_.size()) {
          return cells_.Line(sheets_[sheet_++]);
        }
        return absl::OkStatus();
      }
      case kBoundSheet:
        OnBoundSheet(d);
        return absl::OkStatus();
      case kFormat: {
        // ifmt, then the format code as an XLUnicodeString.
        uint16_t id = 0;
        std::string code;
        if (d.Get(0, &id) &&
            UnicodeString({r.data.substr(std::min<size_t>(2, r.data.size()))},
                          &code)) {
          dates_.AddFormat(id, std::move(code));
        }
        return absl::OkStatus();
      }
      case kXf: {
        uint16_t format = 0;  // ifnt, then ifmt
        d.Get(2, &format);
        dates_.AddStyle(format);
        return absl::OkStatus();
      }
      case kDateMode: {
        uint16_t f1904 = 0;
        d.Get(0, &f1904);
        dates_.set_date1904(f1904 == 1);
        return absl::OkStatus();
      }
      case kSst:
        return OnSst(i);
      case kLabelSst: {
        uint32_t index = 0;
        if (d.Get(6, &index) && index < strings_.size()) {
          return cells_.Cell(row, strings_[index]);
        }
        return absl::OkStatus();
      }
      case kLabel:
      case kRString: {
        std::string text;
        std::vector<std::string_view> segments = Continued(i);
        segments[0] =
            segments[0].substr(std::min<size_t>(6, segments[0].size()));
        UnicodeString(std::move(segments), &text);
        return cells_.Cell(row, text);
      }
      default:
        return OnValueOrText(i, row);
    }
  }

  // The numbers, formulas' results and text boxes.
  absl::Status OnValueOrText(size_t i, uint16_t row) {
    const Record& r = records_[i];
    const ByteView d(r.data);
    switch (r.type) {
      case kNumber: {
        // rw, col, ixfe, then the value.
        uint64_t bits = 0;
        uint16_t style = 0;
        if (!d.Get(6, &bits) || !d.Get(4, &style)) return absl::OkStatus();
        double v = 0;
        std::memcpy(&v, &bits, sizeof v);
        return cells_.Cell(row, CellNumber(style, v));
      }
      case kRk: {
        // rw, col, then an RkRec: ixfe and the RK value.
        uint32_t rk = 0;
        uint16_t style = 0;
        if (!d.Get(6, &rk) || !d.Get(4, &style)) return absl::OkStatus();
        return cells_.Cell(row, CellNumber(style, RkValue(rk)));
      }
      case kMulRk: {
        // rw, colFirst, then (ixfe, RK) pairs, then colLast.
        absl::Status s;
        for (size_t at = 4; at + 6 + 2 <= r.data.size() && s.ok(); at += 6) {
          uint32_t rk = 0;
          uint16_t style = 0;
          d.Get(at, &style);
          d.Get(at + 2, &rk);
          s = cells_.Cell(row, CellNumber(style, RkValue(rk)));
        }
        return s;
      }
      case kFormula:
        return OnFormula(d, row);
      case kString: {
        if (!pending_string_) return absl::OkStatus();
        pending_string_ = false;
        std::string text;
        UnicodeString(Continued(i), &text);
        return cells_.Cell(pending_row_, text);
      }
      case kTxo:
        return OnTxo(i);
      default:
        return absl::OkStatus();
    }
  }

  void OnBoundSheet(const ByteView& d) {
    std::string name;
    uint8_t cch = 0, flags = 0;
    std::string_view chars;
    if (d.Get(6, &cch) && d.Get(7, &flags) &&
        d.Slice(8, size_t{cch} * ((flags & 1) ? 2 : 1), &chars)) {
      (flags & 1) ? AppendUtf16Le(chars, &name) : AppendLatin1(chars, &name);
    }
    sheets_.push_back(std::move(name));
  }

  absl::Status OnSst(size_t i) {
    Segments seg(Continued(i));
    uint32_t total = 0, unique = 0;
    if (!seg.U32(&total) || !seg.U32(&unique)) return Malformed("bad SST");
    // Each string takes at least three bytes: a count past what the
    // records hold is a lie, not a reason to reserve memory.
    if (unique > workbook_bytes_ / 3) return Malformed("bad SST count");
    strings_.reserve(unique);
    for (uint32_t k = 0; k < unique; ++k) {
      std::string text;
      if (!seg.RichString(&text)) return Malformed("truncated SST");
      strings_.push_back(std::move(text));
      if (strings_.size() % 1024 == 0 &&
          strings_.size() * 3 > max_text_bytes_) {
        return TextLimitError(max_text_bytes_);
      }
    }
    return absl::OkStatus();
  }

  absl::Status OnFormula(const ByteView& d, uint16_t row) {
    uint16_t marker = 0;
    uint8_t kind = 0, flag = 0;
    uint64_t bits = 0;
    if (!d.Get(12, &marker) || !d.Get(6, &kind) || !d.Get(8, &flag) ||
        !d.Get(6, &bits)) {
      return absl::OkStatus();
    }
    if (marker != 0xFFFF) {
      double v = 0;
      std::memcpy(&v, &bits, sizeof v);
      return cells_.Cell(row, Number(v));
    }
    if (kind == 0) {  // a string result: the STRING record that follows
      pending_string_ = true;
      pending_row_ = row;
    } else if (kind == 1) {
      return cells_.Cell(row, flag ? "TRUE" : "FALSE");
    }
    return absl::OkStatus();
  }

  // A comment's or text box's text: cchText at offset 10, the characters
  // in the CONTINUE records that follow, each starting with an option
  // byte.
  absl::Status OnTxo(size_t i) {
    uint16_t cch = 0;
    if (!ByteView(records_[i].data).Get(10, &cch) || cch == 0) {
      return absl::OkStatus();
    }
    std::vector<std::string_view> segments = Continued(i);
    segments.erase(segments.begin());
    if (segments.empty()) return absl::OkStatus();
    Segments seg(std::move(segments));
    uint8_t option = 0;
    std::string text;
    if (seg.Byte(&option)) seg.Chars(cch, option & 0x01, &text);
    return cells_.Line(text);
  }

  const std::vector<Record> records_;
  const size_t workbook_bytes_;
  const size_t max_text_bytes_;
  // A number cell's text: its date where its style shows one.
  std::string CellNumber(uint16_t style, double v) const {
    if (auto date = dates_.Text(style, v)) return *date;
    return Number(v);
  }

  CellWriter cells_;
  CellDates dates_;  // FORMAT, XF and DATEMODE records
  std::vector<std::string> strings_;  // the SST
  std::vector<std::string> sheets_;   // BOUNDSHEET names, in order
  size_t sheet_ = 0;
  bool pending_string_ = false;  // a FORMULA's string result comes next
  uint16_t pending_row_ = 0;
};

}  // namespace

absl::Status AppendExcel97Text(std::string_view workbook, size_t max_text_bytes,
                               std::string* out) {
  auto records = ReadRecords(workbook);
  if (!records.ok()) return records.status();
  return WorkbookReader(std::move(*records), workbook.size(), max_text_bytes,
                        out)
      .Read();
}

}  // namespace leakhound
