#include "cli/formats/xml_text.h"

#include <algorithm>
#include <charconv>

#include "cli/formats/markup_parser.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {
namespace {

bool In(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class RuleText : public MarkupHandler {
 public:
  RuleText(const XmlTextRules& rules, size_t max_bytes, std::string* out)
      : rules_(rules), max_bytes_(max_bytes), out_(out) {}

  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (skipping_ > 0 || In(rules_.skip, name)) {
      ++skipping_;
      return absl::OkStatus();
    }
    if (In(rules_.text_in, name)) ++inside_text_;
    if (In(rules_.tab, name)) return Append("\t");
    if (In(rules_.line_break, name)) return Append("\n");
    if (!rules_.spaces.empty() && name == rules_.spaces) {
      unsigned count = 1;
      for (const auto& [key, value] : attributes) {
        if (key == "c")
          std::from_chars(value.data(), value.data() + value.size(), count);
      }
      return Append(std::string(std::min(count, 100u), ' '));
    }
    return absl::OkStatus();
  }

  absl::Status EndElement(std::string_view name) override {
    if (skipping_ > 0) {
      --skipping_;
      return absl::OkStatus();
    }
    if (In(rules_.text_in, name) && inside_text_ > 0) --inside_text_;
    if (In(rules_.line_end, name)) return Append("\n");
    return absl::OkStatus();
  }

  absl::Status Text(std::string_view text) override {
    if (skipping_ > 0) return absl::OkStatus();
    if (!rules_.text_in.empty() && inside_text_ == 0) return absl::OkStatus();
    return Append(text);
  }

  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

 private:
  absl::Status Append(std::string_view text) {
    return AppendWithin(text, max_bytes_, out_);
  }

  const XmlTextRules& rules_;
  const size_t max_bytes_;
  std::string* out_;
  size_t skipping_ = 0;
  size_t inside_text_ = 0;
};

}  // namespace

absl::Status AppendXmlText(std::string_view xml, const XmlTextRules& rules,
                           size_t max_bytes, std::string* out) {
  RuleText handler(rules, max_bytes, out);
  return ParseXml(xml, handler);
}

}  // namespace leakhound
