#include "cli/formats/html_extractor.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/markup_parser.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

bool IsOneOf(std::string_view name,
             std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool Skipped(std::string_view name) {
  return IsOneOf(name, {"script", "style", "template"});
}

bool Block(std::string_view name) {
  return IsOneOf(name, {"address", "article", "aside", "blockquote", "br",
                        "dd", "div", "dl", "dt", "figcaption", "footer",
                        "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
                        "hr", "li", "main", "nav", "ol", "p", "pre",
                        "section", "table", "td", "th", "title", "tr", "ul"});
}

class HtmlText : public MarkupHandler {
 public:
  explicit HtmlText(size_t max_bytes) : max_bytes_(max_bytes) {}

  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (skipping_ > 0 || Skipped(name)) {
      ++skipping_;
      return absl::OkStatus();
    }
    if (Block(name)) EndLine();
    // Link and resource targets: an <a href> to the finance wiki leaks a
    // protected location though its text says "the plan".
    for (const auto& [attribute, value] : attributes) {
      if ((attribute == "href" || attribute == "src") && !value.empty() &&
          !value.starts_with("data:") && !value.starts_with("#") &&
          std::find(links_.begin(), links_.end(), value) == links_.end()) {
        links_.emplace_back(value);
      }
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if (skipping_ > 0) {
      --skipping_;
      return absl::OkStatus();
    }
    if (Block(name)) EndLine();
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view text) override {
    if (skipping_ > 0) return absl::OkStatus();
    return Append(text);
  }
  absl::Status Comment(std::string_view text) override {
    if (skipping_ > 0) return absl::OkStatus();
    EndLine();
    if (auto s = Append(text); !s.ok()) return s;
    out_ += '\n';
    return absl::OkStatus();
  }

  // The text, then the link targets in document order, one per line after
  // a blank line.
  absl::StatusOr<std::string> Take() {
    if (auto s = AppendLinkTargets(links_, max_bytes_, &out_); !s.ok())
      return s;
    return std::move(out_);
  }

 private:
  void EndLine() {
    if (!out_.empty() && out_.back() != '\n') out_ += '\n';
  }
  absl::Status Append(std::string_view text) {
    return AppendWithin(text, max_bytes_, &out_);
  }

  const size_t max_bytes_;
  size_t skipping_ = 0;  // depth inside a skipped element
  std::string out_;
  std::vector<std::string> links_;  // distinct href and src values
};

}  // namespace

absl::StatusOr<std::string> HtmlToText(std::string_view utf8,
                                       size_t max_bytes) {
  HtmlText text(max_bytes);
  // libxml2 stops reading at a NUL byte: text after it would be lost (a
  // way to hide a leak), so NUL bytes are read as spaces.
  std::string without_nul;
  if (utf8.find('\0') != std::string_view::npos) {
    without_nul.assign(utf8);
    std::replace(without_nul.begin(), without_nul.end(), '\0', ' ');
    utf8 = without_nul;
  }
  if (auto s = ParseHtml(utf8, text); !s.ok()) return s;
  return text.Take();
}

absl::Status HtmlExtractor::Extract(std::string_view bytes,
                                    ExtractionSink& sink) const {
  auto decoded = DecodeText(std::string(bytes));
  if (!decoded.ok()) return decoded.status();
  sink.NoteDecoding(decoded->encoding, decoded->invalid_sequences);
  auto text = HtmlToText(decoded->utf8, sink.limits().max_output_bytes);
  if (!text.ok()) return text.status();
  return sink.AppendText(*text);
}

}  // namespace leakhound
