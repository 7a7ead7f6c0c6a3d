#include "cli/html_extractor.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include <climits>
#include <memory>

#include <cctype>

#include "absl/strings/str_cat.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

// ASCII case-insensitive: does `text` start with `prefix`?
bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

bool NameIs(const xmlNode* node, std::string_view name) {
  if (node->name == nullptr) return false;
  const std::string_view own(reinterpret_cast<const char*>(node->name));
  return own.size() == name.size() && StartsWithNoCase(own, name);
}

bool Skipped(const xmlNode* node) {
  return NameIs(node, "script") || NameIs(node, "style") ||
         NameIs(node, "template");
}

bool Block(const xmlNode* node) {
  static constexpr const char* kBlocks[] = {
      "address", "article", "aside",   "blockquote", "br",     "dd",
      "div",     "dl",      "dt",      "figcaption", "footer", "form",
      "h1",      "h2",      "h3",      "h4",         "h5",     "h6",
      "header",  "hr",      "li",      "main",       "nav",    "ol",
      "p",       "pre",     "section", "table",      "td",     "th",
      "title",   "tr",      "ul"};
  for (const char* name : kBlocks) {
    if (NameIs(node, name)) return true;
  }
  return false;
}

// Appends the text under `node`; false once `out` would pass `limit`.
// Iterative (explicit stack): nesting depth is the input's to choose.
bool AppendText(const xmlNode* root, size_t limit, std::string& out) {
  std::vector<std::pair<const xmlNode*, bool>> stack;  // (node, leaving)
  stack.emplace_back(root, false);
  while (!stack.empty()) {
    auto [node, leaving] = stack.back();
    stack.pop_back();
    if (leaving) {
      if (Block(node) && !out.empty() && out.back() != '\n') out += '\n';
      continue;
    }
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE ||
        node->type == XML_COMMENT_NODE) {
      if (node->content != nullptr) {
        const char* text = reinterpret_cast<const char*>(node->content);
        if (node->type == XML_COMMENT_NODE && !out.empty() &&
            out.back() != '\n') {
          out += '\n';
        }
        out += text;
        if (node->type == XML_COMMENT_NODE) out += '\n';
      }
    } else if (node->type == XML_ELEMENT_NODE ||
               node->type == XML_DOCUMENT_NODE ||
               node->type == XML_HTML_DOCUMENT_NODE) {
      if (node->type == XML_ELEMENT_NODE && Skipped(node)) continue;
      if (Block(node) && !out.empty() && out.back() != '\n') out += '\n';
      stack.emplace_back(node, true);
      // Children pushed last-first so they come off the stack in order.
      std::vector<const xmlNode*> children;
      for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        children.push_back(c);
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        stack.emplace_back(*it, false);
      }
    }
    if (out.size() > limit) return false;
  }
  return true;
}

}  // namespace

bool HtmlExtractor::Accepts(std::string_view path,
                            std::string_view head) const {
  const size_t dot = path.rfind('.');
  if (dot != std::string_view::npos) {
    const std::string_view ext = path.substr(dot);
    for (std::string_view html : {".html", ".htm", ".xhtml"}) {
      if (ext.size() == html.size() && StartsWithNoCase(ext, html)) return true;
    }
  }
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head[0]))) {
    head.remove_prefix(1);
  }
  return StartsWithNoCase(head, "<!doctype html") ||
         StartsWithNoCase(head, "<html");
}

absl::StatusOr<ExtractedText> HtmlExtractor::Extract(
    std::string_view, std::string bytes,
    const ExtractionLimits& limits) const {
  if (bytes.size() > limits.max_input_bytes || bytes.size() > INT_MAX) {
    return absl::ResourceExhaustedError(
        absl::StrCat("larger than the limit of ", limits.max_input_bytes,
                     " bytes"));
  }
  auto decoded = DecodeText(std::move(bytes));
  if (!decoded.ok()) return decoded.status();
  const std::string& html = decoded->utf8;
  if (html.size() > INT_MAX) {
    return absl::ResourceExhaustedError("HTML too large once decoded");
  }
  std::unique_ptr<htmlParserCtxt, decltype(&htmlFreeParserCtxt)> parser(
      htmlNewParserCtxt(), &htmlFreeParserCtxt);
  if (parser == nullptr) return absl::InternalError("libxml2: out of memory");
  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc(
      htmlCtxtReadMemory(parser.get(), html.data(),
                         static_cast<int>(html.size()), nullptr, "UTF-8",
                         HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                             HTML_PARSE_NOWARNING | HTML_PARSE_NONET),
      &xmlFreeDoc);
  // Broken markup is recovered from, but an internal error (nesting past
  // libxml2's depth limit) stops the parser and would silently lose the
  // rest of the text: refuse the file rather than under-report it.
  if (parser->lastError.code == XML_ERR_INTERNAL_ERROR) {
    std::string why = parser->lastError.message != nullptr
                          ? parser->lastError.message
                          : "internal error";
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::InvalidArgumentError(
        absl::StrCat("HTML not fully parsed (libxml2: ", why, ")"));
  }
  ExtractedText out;
  out.format = "html";
  out.encoding = std::move(decoded->encoding);
  out.invalid_sequences = decoded->invalid_sequences;
  if (doc == nullptr) {
    if (html.find_first_not_of(" \t\r\n") == std::string::npos) return out;
    return absl::InvalidArgumentError("libxml2 could not parse the HTML");
  }
  if (!AppendText(reinterpret_cast<const xmlNode*>(doc.get()),
                  limits.max_output_bytes, out.text)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("extracted text larger than the limit of ",
                     limits.max_output_bytes, " bytes"));
  }
  return out;
}

}  // namespace leakhound
