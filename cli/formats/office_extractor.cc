#include "cli/formats/office_extractor.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/markup_parser.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/formats/workbook_xml.h"
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

constexpr char kCustomProperties[] = "docProps/custom.xml";
constexpr char kLabelInfo[] = "docMetadata/LabelInfo.xml";

bool IsEmbedding(std::string_view name) {
  return name.starts_with("word/embeddings/") ||
         name.starts_with("xl/embeddings/") ||
         name.starts_with("ppt/embeddings/");
}

bool Wanted(std::string_view name) {
  const bool content = name.starts_with("word/") || name.starts_with("xl/") ||
                       name.starts_with("ppt/");
  return ((name.ends_with(".xml") || name.ends_with(".rels")) && content) ||
         name == "docProps/core.xml" || name == kCustomProperties ||
         name == kLabelInfo || IsEmbedding(name);
}

// Notes the sensitivity labels of both storages (docs/labels.md): the
// custom properties, and LabelInfo.xml (which wins on whether a label is
// enabled, and has no names).
absl::Status NoteSensitivityLabels(const ZipPackage& package,
                                   ExtractionSink& sink) {
  std::vector<SensitivityLabel> labels;
  for (const char* name : {kLabelInfo, kCustomProperties}) {
    std::string_view xml = package.Get(name);
    if (xml.empty()) continue;
    auto read = std::string_view(name) == kLabelInfo
                    ? ReadLabelInfo(xml)
                    : ReadCustomProperties(xml);
    if (!read.ok()) {
      return absl::Status(read.status().code(),
                          absl::StrCat(name, ": ", read.status().message()));
    }
    MergeLabels(*read, &labels);
  }
  if (!labels.empty()) sink.NoteLabels(labels);
  return absl::OkStatus();
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
  auto parts = ReadWorkbookParts(package, sink.limits().max_output_bytes);
  if (!parts.ok()) return parts.status();
  const size_t max_bytes = sink.limits().max_output_bytes;
  // Cells separated by tabs, rows by line ends.
  const auto on_cell = [&](uint32_t, std::string_view value) {
    if (auto s = AppendWithin(value, max_bytes, text); !s.ok()) return s;
    return AppendWithin("\t", max_bytes, text);
  };
  const std::function<absl::Status()> on_row_end = [&] {
    if (!text->empty() && text->back() == '\t') text->pop_back();
    return AppendWithin("\n", max_bytes, text);
  };
  for (const std::string& name :
       package.Matching("xl/worksheets/sheet", ".xml")) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    if (auto s = ReadSheetCells(package.Get(name), *parts, on_cell, on_row_end);
        !s.ok()) {
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
  if (s = NoteSensitivityLabels(*package, sink); !s.ok()) return s;
  if (auto s2 = sink.AppendText(text); !s2.ok()) return s2;
  for (auto& [name, data] : package->entries) {
    if (!IsEmbedding(name)) continue;
    if (auto s2 = sink.AddMember(name, std::move(data)); !s2.ok()) return s2;
  }
  return absl::OkStatus();
}

}  // namespace leakhound
