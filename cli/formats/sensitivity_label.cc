#include "cli/formats/sensitivity_label.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli/formats/markup_parser.h"

namespace leakhound {
namespace {

constexpr std::string_view kPropertyPrefix = "MSIP_Label_";
constexpr size_t kGuidLength = 36;

bool IsTrue(std::string_view value) {
  const std::string v =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(std::string(value)));
  return v == "true" || v == "1" || v == "yes";
}

// Collects the text of elements and the values of attributes whose local
// names start `prefix` ("" : every element's attributes), as properties.
class PropertyCollector : public MarkupHandler {
 public:
  // `name_element`: the element whose `name_attribute` names the
  // property its text holds (custom.xml's property/@name, ODF's
  // user-defined/@name); "" for XMP, where the element is the property.
  PropertyCollector(std::string_view name_element,
                    std::string_view name_attribute)
      : name_element_(name_element), name_attribute_(name_attribute) {}

  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    for (const auto& [attribute, value] : attributes) {
      if (name_element_.empty() && attribute.starts_with(kPropertyPrefix)) {
        properties_.Add(attribute, value);
      }
      if (name == name_element_ && attribute == name_attribute_) {
        open_ = std::string(value);
      }
    }
    if (name_element_.empty() && name.starts_with(kPropertyPrefix)) {
      open_ = std::string(name);
    }
    if (!open_.empty()) ++depth_;
    text_.clear();
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view) override {
    if (open_.empty()) return absl::OkStatus();
    if (--depth_ == 0) {
      properties_.Add(open_, text_);
      open_.clear();
    }
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view utf8) override {
    if (!open_.empty()) text_.append(utf8);
    return absl::OkStatus();
  }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

  const LabelProperties& properties() const { return properties_; }

 private:
  const std::string name_element_;
  const std::string name_attribute_;
  std::string open_;  // the property being read
  int depth_ = 0;     // elements open inside it (custom.xml: vt:lpwstr)
  std::string text_;
  LabelProperties properties_;
};

absl::StatusOr<std::vector<SensitivityLabel>> Collect(
    std::string_view xml, std::string_view name_element,
    std::string_view name_attribute) {
  PropertyCollector collector(name_element, name_attribute);
  if (absl::Status s = ParseXml(xml, collector); !s.ok()) return s;
  return collector.properties().Labels();
}

// LabelInfo.xml: <clbl:label id="{GUID}" enabled="1" method="Standard"
// siteId="{GUID}" removed="0"/>.
class LabelInfoReader : public MarkupHandler {
 public:
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name != "label") return absl::OkStatus();
    SensitivityLabel label;
    bool removed = false;
    for (const auto& [attribute, value] : attributes) {
      if (attribute == "id") label.id = NormalizeLabelId(value);
      if (attribute == "enabled") label.enabled = IsTrue(value);
      if (attribute == "method") label.method = std::string(value);
      if (attribute == "siteId") label.site = NormalizeLabelId(value);
      if (attribute == "removed") removed = IsTrue(value);
    }
    label.enabled = label.enabled && !removed;
    if (!label.id.empty()) MergeLabels({label}, &labels_);
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view) override {
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view) override { return absl::OkStatus(); }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

  std::vector<SensitivityLabel> labels_;
};

}  // namespace

std::string NormalizeLabelId(std::string_view id) {
  std::string out =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(std::string(id)));
  if (out.size() == kGuidLength + 2 && out.front() == '{' &&
      out.back() == '}') {
    out = out.substr(1, kGuidLength);
  }
  if (out.size() != kGuidLength) return "";
  for (size_t i = 0; i < out.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? out[i] != '-'
             : !std::isxdigit(static_cast<unsigned char>(out[i]))) {
      return "";
    }
  }
  return out;
}

void LabelProperties::Add(std::string_view name, std::string_view value) {
  if (name.size() < kPropertyPrefix.size() ||
      !absl::EqualsIgnoreCase(
          std::string(name.substr(0, kPropertyPrefix.size())),
          std::string(kPropertyPrefix))) {
    return;
  }
  name.remove_prefix(kPropertyPrefix.size());
  if (name.size() < kGuidLength + 2 || name[kGuidLength] != '_') return;
  const std::string id = NormalizeLabelId(name.substr(0, kGuidLength));
  if (id.empty()) return;
  const std::string field =
      absl::AsciiStrToLower(std::string(name.substr(kGuidLength + 1)));
  const std::string text =
      std::string(absl::StripAsciiWhitespace(std::string(value)));
  SensitivityLabel& label = labels_[id];
  label.id = id;
  if (field == "enabled") label.enabled = IsTrue(text);
  if (field == "name") label.name = text;
  if (field == "siteid") label.site = NormalizeLabelId(text);
  // Outlook's header says Extended_MSFT_Method; the properties, Method.
  if (field == "method" || field == "extended_msft_method") {
    label.method = text;
  }
}

std::vector<SensitivityLabel> LabelProperties::Labels() const {
  std::vector<SensitivityLabel> out;
  for (const auto& [id, label] : labels_) out.push_back(label);
  return out;
}

void MergeLabels(const std::vector<SensitivityLabel>& more,
                 std::vector<SensitivityLabel>* labels) {
  for (const SensitivityLabel& m : more) {
    auto it =
        std::find_if(labels->begin(), labels->end(),
                     [&](const SensitivityLabel& l) { return l.id == m.id; });
    if (it == labels->end()) {
      labels->push_back(m);
      continue;
    }
    if (it->name.empty()) it->name = m.name;
    if (it->method.empty()) it->method = m.method;
    if (it->site.empty()) it->site = m.site;
    it->enabled = it->enabled && m.enabled;
  }
}

absl::StatusOr<std::vector<SensitivityLabel>> ReadCustomProperties(
    std::string_view xml) {
  return Collect(xml, "property", "name");
}

absl::StatusOr<std::vector<SensitivityLabel>> ReadLabelInfo(
    std::string_view xml) {
  LabelInfoReader reader;
  if (absl::Status s = ParseXml(xml, reader); !s.ok()) return s;
  return reader.labels_;
}

absl::StatusOr<std::vector<SensitivityLabel>> ReadOpenDocumentMeta(
    std::string_view xml) {
  return Collect(xml, "user-defined", "name");
}

absl::StatusOr<std::vector<SensitivityLabel>> ReadXmpLabels(
    std::string_view xml) {
  return Collect(xml, "", "");
}

std::vector<SensitivityLabel> ReadMsipLabelsHeader(std::string_view value) {
  LabelProperties properties;
  for (const std::string& pair :
       std::vector<std::string>(absl::StrSplit(std::string(value), ';'))) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) continue;
    const std::string key(absl::StripAsciiWhitespace(pair.substr(0, eq)));
    properties.Add(key, std::string_view(pair).substr(eq + 1));
  }
  return properties.Labels();
}

}  // namespace leakhound
