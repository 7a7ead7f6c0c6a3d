#include "cli/formats/opendocument_extractor.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/formats/xml_text.h"
#include "cli/formats/zip_package.h"

namespace leakhound {
namespace {

const XmlTextRules& BodyRules() {
  static const XmlTextRules rules{
      .text_in = {"body", "master-styles"},
      .line_end = {"p", "h", "table-row"},
      .tab = {"tab"},
      .line_break = {"line-break"},
      .skip = {},
      .spaces = "s"};
  return rules;
}

const XmlTextRules& MetaRules() {
  static const XmlTextRules rules{
      .text_in = {"title", "subject", "keyword", "description"},
      .line_end = {"title", "subject", "keyword", "description"},
      .tab = {},
      .line_break = {},
      .skip = {},
      .spaces = {}};
  return rules;
}

bool Wanted(std::string_view name) {
  return name == "content.xml" || name == "styles.xml" || name == "meta.xml" ||
         (name.starts_with("Object ") && name.ends_with("/content.xml"));
}

}  // namespace

absl::Status OpenDocumentExtractor::Extract(std::string_view bytes,
                                            ExtractionSink& sink) const {
  auto package = ReadZipPackage(bytes, sink, Wanted);
  if (!package.ok()) return package.status();
  if (package->Get("content.xml").empty()) {
    return absl::InvalidArgumentError("OpenDocument without content.xml");
  }
  std::vector<std::string> parts = {"content.xml", "styles.xml"};
  for (const std::string& name : package->Matching("Object ", "/content.xml")) {
    parts.push_back(name);
  }
  std::string text;
  for (const std::string& name : parts) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    std::string_view xml = package->Get(name);
    if (xml.empty()) continue;
    if (auto s = AppendXmlText(xml, BodyRules(),
                               sink.limits().max_output_bytes, &text);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(name, ": ", s.message()));
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  if (std::string_view meta = package->Get("meta.xml"); !meta.empty()) {
    if (auto s = AppendXmlText(meta, MetaRules(),
                               sink.limits().max_output_bytes, &text);
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("meta.xml: ", s.message()));
    }
    // Sensitivity labels, as user-defined fields (docs/labels.md).
    auto labels = ReadOpenDocumentMeta(meta);
    if (!labels.ok()) {
      return absl::Status(
          labels.status().code(),
          absl::StrCat("meta.xml: ", labels.status().message()));
    }
    if (!labels->empty()) sink.NoteLabels(*labels);
  }
  return sink.AppendText(text);
}

}  // namespace leakhound
