#include "cli/formats/workbook_xml.h"

#include <charconv>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cli/formats/markup_parser.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {
namespace {

// Shared strings of a workbook: one string per <si>, phonetic runs left out.
class SharedStrings : public MarkupHandler {
 public:
  explicit SharedStrings(size_t max_bytes) : max_bytes_(max_bytes) {}
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes&) override {
    if (name == "si") strings_.emplace_back();
    if (name == "rPh") ++phonetic_;
    if (name == "t") ++in_t_;
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if (name == "rPh" && phonetic_ > 0) --phonetic_;
    if (name == "t" && in_t_ > 0) --in_t_;
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view text) override {
    if (in_t_ == 0 || phonetic_ > 0 || strings_.empty())
      return absl::OkStatus();
    bytes_ += text.size();
    if (bytes_ > max_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("shared strings larger than the limit of ", max_bytes_,
                       " bytes (--max-text-size)"));
    }
    strings_.back().append(text);
    return absl::OkStatus();
  }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }
  std::vector<std::string>& strings() { return strings_; }

 private:
  const size_t max_bytes_;
  size_t bytes_ = 0;
  int phonetic_ = 0, in_t_ = 0;
  std::vector<std::string> strings_;
};

// The workbook's number formats and cell styles (xl/styles.xml) and its
// date system (xl/workbook.xml): which cells hold dates.
class StyleDates : public MarkupHandler {
 public:
  explicit StyleDates(CellDates* dates) : dates_(dates) {}
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    const auto number = [&](std::string_view key) {
      uint32_t v = 0;
      for (const auto& [k, value] : attributes) {
        if (k == key)
          std::from_chars(value.data(), value.data() + value.size(), v);
      }
      return v;
    };
    if (name == "cellXfs") {
      in_cell_xfs_ = true;
    } else if (name == "numFmt") {
      for (const auto& [k, value] : attributes) {
        if (k == "formatCode")
          dates_->AddFormat(number("numFmtId"), std::string(value));
      }
    } else if (name == "xf" && in_cell_xfs_) {
      dates_->AddStyle(number("numFmtId"));
    } else if (name == "workbookPr") {
      for (const auto& [k, value] : attributes) {
        if (k == "date1904")
          dates_->set_date1904(value == "1" || value == "true");
      }
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if (name == "cellXfs") in_cell_xfs_ = false;
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view) override { return absl::OkStatus(); }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

 private:
  CellDates* dates_;
  bool in_cell_xfs_ = false;
};

// The column of a cell reference ("C7" is 2), or nullopt.
std::optional<uint32_t> ReferenceColumn(std::string_view reference) {
  uint32_t column = 0;
  size_t i = 0;
  for (; i < reference.size() && reference[i] >= 'A' && reference[i] <= 'Z';
       ++i) {
    column = column * 26 + static_cast<uint32_t>(reference[i] - 'A' + 1);
    if (column > 16384) return std::nullopt;  // past XFD
  }
  if (i == 0) return std::nullopt;
  return column - 1;
}

// A worksheet cell by cell (ReadSheetCells).
class SheetCells : public MarkupHandler {
 public:
  using CellCallback =
      std::function<absl::Status(uint32_t column, std::string_view value)>;
  SheetCells(const WorkbookParts& parts, const CellCallback& on_cell,
             const std::function<absl::Status()>& on_row_end)
      : parts_(parts), on_cell_(on_cell), on_row_end_(on_row_end) {}
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name == "row") {
      column_ = 0;
    } else if (name == "c") {
      shared_cell_ = false;
      number_cell_ = true;
      style_ = 0;
      cell_.clear();
      for (const auto& [key, value] : attributes) {
        if (key == "t") {
          shared_cell_ = value == "s";
          number_cell_ = value == "n";
        } else if (key == "s") {
          std::from_chars(value.data(), value.data() + value.size(), style_);
        } else if (key == "r") {
          if (auto c = ReferenceColumn(value)) column_ = *c;
        }
      }
    } else if (name == "v" || name == "t") {
      ++in_value_;
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if ((name == "v" || name == "t") && in_value_ > 0) --in_value_;
    if (name == "row") return on_row_end_();
    if (name != "c") return absl::OkStatus();
    const uint32_t column = column_++;
    std::string_view value = cell_;
    if (shared_cell_) {
      size_t i = 0;
      const auto [end, ec] =
          std::from_chars(cell_.data(), cell_.data() + cell_.size(), i);
      value = ec == std::errc() && i < parts_.shared.size()
                  ? std::string_view(parts_.shared[i])
                  : std::string_view();
    }
    std::optional<std::string> date;
    if (number_cell_ && !cell_.empty() && parts_.dates.IsDate(style_)) {
      double serial = 0;
      const auto [end, ec] =
          std::from_chars(cell_.data(), cell_.data() + cell_.size(), serial);
      if (ec == std::errc()) date = parts_.dates.Text(style_, serial);
      if (date) value = *date;
    }
    if (value.empty()) return absl::OkStatus();
    return on_cell_(column, value);
  }
  absl::Status Text(std::string_view text) override {
    if (in_value_ > 0) cell_.append(text);
    return absl::OkStatus();
  }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

 private:
  const WorkbookParts& parts_;
  const CellCallback& on_cell_;
  const std::function<absl::Status()>& on_row_end_;
  bool shared_cell_ = false;
  bool number_cell_ = true;
  uint32_t style_ = 0;
  uint32_t column_ = 0;
  int in_value_ = 0;
  std::string cell_;
};

}  // namespace

absl::StatusOr<WorkbookParts> ReadWorkbookParts(const ZipPackage& package,
                                                size_t max_bytes) {
  WorkbookParts parts;
  SharedStrings shared(max_bytes);
  StyleDates styles(&parts.dates);
  const std::pair<const char*, MarkupHandler*> readers[] = {
      {"xl/sharedStrings.xml", &shared},
      {"xl/workbook.xml", &styles},
      {"xl/styles.xml", &styles}};
  for (const auto& [part, handler] : readers) {
    const std::string_view xml = package.Get(part);
    if (xml.empty()) continue;
    if (auto s = ParseXml(xml, *handler); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(part, ": ", s.message()));
    }
  }
  parts.shared = std::move(shared.strings());
  return parts;
}

absl::Status ReadSheetCells(
    std::string_view xml, const WorkbookParts& parts,
    const std::function<absl::Status(uint32_t column, std::string_view value)>&
        on_cell,
    const std::function<absl::Status()>& on_row_end) {
  SheetCells cells(parts, on_cell, on_row_end);
  return ParseXml(xml, cells);
}

}  // namespace leakhound
