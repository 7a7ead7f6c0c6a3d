#include "cli/formats/office_extractor.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/cell_dates.h"
#include "cli/formats/markup_parser.h"
#include "cli/formats/xml_text.h"
#include "cli/formats/zip_package.h"

namespace leakhound {
namespace {

const XmlTextRules& WordRules() {
  static const XmlTextRules rules{.text_in = {"t", "delText"},
                                  .line_end = {"p"},
                                  .tab = {"tab"},
                                  .line_break = {"br", "cr"},
                                  .skip = {"instrText", "delInstrText"},
                                  .spaces = {}};
  return rules;
}

// Slides, notes, comments, drawings: DrawingML and PresentationML text.
const XmlTextRules& DrawingRules() {
  static const XmlTextRules rules{.text_in = {"t", "text"},
                                  .line_end = {"p", "cm"},
                                  .tab = {"tab"},
                                  .line_break = {"br"},
                                  .skip = {},
                                  .spaces = {}};
  return rules;
}

const XmlTextRules& PropertyRules() {
  static const XmlTextRules rules{
      .text_in = {"title", "subject", "keywords", "description"},
      .line_end = {"title", "subject", "keywords", "description"},
      .tab = {},
      .line_break = {},
      .skip = {},
      .spaces = {}};
  return rules;
}

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

// A worksheet cell by cell: values (shared strings looked up, a date
// cell's serial as its date), cells separated by tabs, rows by line ends.
class SheetText : public MarkupHandler {
 public:
  SheetText(const std::vector<std::string>& shared, const CellDates& dates,
            size_t max_bytes, std::string* out)
      : shared_(shared), dates_(dates), max_bytes_(max_bytes), out_(out) {}
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name == "c") {
      shared_cell_ = false;
      number_cell_ = true;
      style_ = 0;
      cell_.clear();
      for (const auto& [key, value] : attributes) {
        if (key == "t") {
          shared_cell_ = value == "s";
          number_cell_ = value == "n";
        }
        if (key == "s") {
          std::from_chars(value.data(), value.data() + value.size(), style_);
        }
      }
    } else if (name == "v" || name == "t") {
      ++in_value_;
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if ((name == "v" || name == "t") && in_value_ > 0) --in_value_;
    if (name == "c") {
      std::string_view value = cell_;
      if (shared_cell_) {
        size_t i = 0;
        const auto [end, ec] =
            std::from_chars(cell_.data(), cell_.data() + cell_.size(), i);
        value = ec == std::errc() && i < shared_.size() ? shared_[i]
                                                        : std::string_view();
      }
      std::optional<std::string> date;
      if (number_cell_ && !cell_.empty() && dates_.IsDate(style_)) {
        double serial = 0;
        const auto [end, ec] =
            std::from_chars(cell_.data(), cell_.data() + cell_.size(), serial);
        if (ec == std::errc()) date = dates_.Text(style_, serial);
        if (date) value = *date;
      }
      if (!value.empty()) {
        if (auto s = Append(value); !s.ok()) return s;
        return Append("\t");
      }
    } else if (name == "row") {
      if (!out_->empty() && out_->back() == '\t') out_->pop_back();
      return Append("\n");
    }
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view text) override {
    if (in_value_ > 0) cell_.append(text);
    return absl::OkStatus();
  }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

 private:
  absl::Status Append(std::string_view text) {
    return AppendWithin(text, max_bytes_, out_);
  }

  const std::vector<std::string>& shared_;
  const CellDates& dates_;
  const size_t max_bytes_;
  std::string* out_;
  bool shared_cell_ = false;
  bool number_cell_ = true;
  uint32_t style_ = 0;
  int in_value_ = 0;
  std::string cell_;
};

bool IsEmbedding(std::string_view name) {
  return name.starts_with("word/embeddings/") ||
         name.starts_with("xl/embeddings/") ||
         name.starts_with("ppt/embeddings/");
}

bool Wanted(std::string_view name) {
  const bool content = name.starts_with("word/") || name.starts_with("xl/") ||
                       name.starts_with("ppt/");
  return ((name.ends_with(".xml") || name.ends_with(".rels")) && content) ||
         name == "docProps/core.xml" || IsEmbedding(name);
}

// The external targets of a part's relationships (hyperlinks to web pages
// and shares): distinct, in package order.
class ExternalTargets : public MarkupHandler {
 public:
  explicit ExternalTargets(std::vector<std::string>* targets)
      : targets_(targets) {}
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name != "Relationship") return absl::OkStatus();
    std::string_view target, mode;
    for (const auto& [attribute, value] : attributes) {
      if (attribute == "Target") target = value;
      if (attribute == "TargetMode") mode = value;
    }
    if (mode == "External" && !target.empty() &&
        std::find(targets_->begin(), targets_->end(), target) ==
            targets_->end()) {
      targets_->emplace_back(target);
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view) override {
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view) override { return absl::OkStatus(); }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

 private:
  std::vector<std::string>* targets_;
};

// Appends the package's external link targets (AppendLinkTargets), so that
// a hyperlink to a protected location is seen behind its text.
absl::Status AppendExternalTargets(const ZipPackage& package,
                                   ExtractionSink& sink, std::string* text) {
  std::vector<std::string> targets;
  for (const auto& [name, data] : package.entries) {
    if (!name.ends_with(".rels")) continue;
    ExternalTargets handler(&targets);
    if (auto s = ParseXml(data, handler); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
    }
  }
  return AppendLinkTargets(targets, sink.limits().max_output_bytes, text);
}

// Appends `names`' text under `rules`, checking the clock between parts.
absl::Status AppendParts(const ZipPackage& package,
                         const std::vector<std::string>& names,
                         const XmlTextRules& rules, ExtractionSink& sink,
                         std::string* text) {
  for (const std::string& name : names) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    if (auto s = AppendXmlText(package.Get(name), rules,
                               sink.limits().max_output_bytes, text);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
    }
    if (!text->empty() && text->back() != '\n') *text += '\n';
  }
  return absl::OkStatus();
}

std::vector<std::string> Concat(std::vector<std::vector<std::string>> lists) {
  std::vector<std::string> out;
  for (auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

absl::Status WorkbookText(const ZipPackage& package, ExtractionSink& sink,
                          std::string* text) {
  SharedStrings shared(sink.limits().max_output_bytes);
  if (std::string_view xml = package.Get("xl/sharedStrings.xml");
      !xml.empty()) {
    if (auto s = ParseXml(xml, shared); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("xl/sharedStrings.xml: ", s.message()));
    }
  }
  CellDates dates;
  StyleDates styles(&dates);
  for (const char* part : {"xl/workbook.xml", "xl/styles.xml"}) {
    if (package.Get(part).empty()) continue;
    if (auto s = ParseXml(package.Get(part), styles); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(part, ": ", s.message()));
    }
  }
  for (const std::string& name :
       package.Matching("xl/worksheets/sheet", ".xml")) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    SheetText sheet(shared.strings(), dates, sink.limits().max_output_bytes,
                    text);
    if (auto s = ParseXml(package.Get(name), sheet); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
    }
  }
  return AppendParts(package, package.Matching("xl/comments", ".xml"),
                     DrawingRules(), sink, text);
}

}  // namespace

absl::Status OfficeExtractor::Extract(std::string_view bytes,
                                      ExtractionSink& sink) const {
  auto package = ReadZipPackage(bytes, sink, Wanted);
  if (!package.ok()) return package.status();
  std::string text;
  absl::Status s;
  if (!package->Get("word/document.xml").empty()) {
    s = AppendParts(*package,
                    Concat({{"word/document.xml"},
                            package->Matching("word/header", ".xml"),
                            package->Matching("word/footer", ".xml"),
                            package->Matching("word/footnotes", ".xml"),
                            package->Matching("word/endnotes", ".xml"),
                            package->Matching("word/comments", ".xml")}),
                    WordRules(), sink, &text);
  } else if (!package->Get("xl/workbook.xml").empty()) {
    s = WorkbookText(*package, sink, &text);
  } else if (!package->Get("ppt/presentation.xml").empty()) {
    s = AppendParts(
        *package,
        Concat({package->Matching("ppt/slides/slide", ".xml"),
                package->Matching("ppt/notesSlides/notesSlide", ".xml"),
                package->Matching("ppt/comments/", ".xml")}),
        DrawingRules(), sink, &text);
  } else {
    return absl::InvalidArgumentError(
        "Office Open XML package without a document, workbook or "
        "presentation part");
  }
  if (!s.ok()) return s;
  if (!package->Get("docProps/core.xml").empty()) {
    s = AppendParts(*package, {"docProps/core.xml"}, PropertyRules(), sink,
                    &text);
    if (!s.ok()) return s;
  }
  s = AppendExternalTargets(*package, sink, &text);
  if (!s.ok()) return s;
  if (auto s2 = sink.AppendText(text); !s2.ok()) return s2;
  for (auto& [name, data] : package->entries) {
    if (!IsEmbedding(name)) continue;
    if (auto s2 = sink.AddMember(name, std::move(data)); !s2.ok()) return s2;
  }
  return absl::OkStatus();
}

}  // namespace leakhound
