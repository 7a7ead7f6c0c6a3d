// The one file that calls libxml2.
#include "cli/formats/markup_parser.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

void InitLibxml() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
}

std::string_view View(const xmlChar* s) {
  return s == nullptr ? std::string_view()
                      : std::string_view(reinterpret_cast<const char*>(s));
}

std::string Trimmed(const char* message) {
  std::string why = message != nullptr ? message : "unknown error";
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) {
    why.pop_back();
  }
  return why;
}

// Walks an HTML tree depth first without recursion (nesting depth is the
// input's to choose).
absl::Status WalkHtml(const xmlNode* root, MarkupHandler& handler) {
  MarkupAttributes attributes;
  std::vector<std::string> values;  // the attributes' values' storage
  std::vector<std::pair<const xmlNode*, bool>> stack;  // (node, leaving)
  stack.emplace_back(root, false);
  std::string name;
  while (!stack.empty()) {
    auto [node, leaving] = stack.back();
    stack.pop_back();
    if (node->type == XML_ELEMENT_NODE) {
      name = View(node->name);
      for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    if (leaving) {
      if (auto s = handler.EndElement(name); !s.ok()) return s;
      continue;
    }
    absl::Status s;
    switch (node->type) {
      case XML_TEXT_NODE:
      case XML_CDATA_SECTION_NODE:
        s = handler.Text(View(node->content));
        break;
      case XML_COMMENT_NODE:
        s = handler.Comment(View(node->content));
        break;
      case XML_ELEMENT_NODE:
      case XML_DOCUMENT_NODE:
      case XML_HTML_DOCUMENT_NODE: {
        if (node->type == XML_ELEMENT_NODE) {
          attributes.clear();
          values.clear();
          for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
            xmlChar* value = xmlNodeListGetString(node->doc, a->children, 1);
            values.emplace_back(value == nullptr ? "" : View(value));
            xmlFree(value);
          }
          size_t i = 0;
          for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
            attributes.emplace_back(View(a->name), values[i++]);
          }
          s = handler.StartElement(name, attributes);
          stack.emplace_back(node, true);
        }
        size_t first = stack.size();
        for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
          stack.emplace_back(c, false);
        }
        std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first),
                     stack.end());
        break;
      }
      default:
        break;
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

struct ReaderError {
  std::string message;
};

void OnReaderError(void* arg, xmlErrorPtr error) {
  auto* out = static_cast<ReaderError*>(arg);
  if (error == nullptr || error->level < XML_ERR_ERROR) return;
  if (out->message.empty()) out->message = Trimmed(error->message);
}

}  // namespace

absl::Status ParseHtml(std::string_view utf8, MarkupHandler& handler) {
  InitLibxml();
  if (utf8.size() > INT_MAX) {
    return absl::ResourceExhaustedError("HTML larger than 2 GB");
  }
  std::unique_ptr<htmlParserCtxt, decltype(&htmlFreeParserCtxt)> parser(
      htmlNewParserCtxt(), &htmlFreeParserCtxt);
  if (parser == nullptr) return absl::InternalError("libxml2: out of memory");
  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc(
      htmlCtxtReadMemory(parser.get(), utf8.data(),
                         static_cast<int>(utf8.size()), nullptr, "UTF-8",
                         HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                             HTML_PARSE_NOWARNING | HTML_PARSE_NONET),
      &xmlFreeDoc);
  // Broken markup is recovered from, but an internal error (nesting past
  // libxml2's depth limit) stops the parser and would silently lose the
  // rest of the text: refuse the input rather than under-report it.
  if (parser->lastError.code == XML_ERR_INTERNAL_ERROR) {
    return absl::InvalidArgumentError(
        absl::StrCat("HTML not fully parsed (libxml2: ",
                     Trimmed(parser->lastError.message), ")"));
  }
  if (doc == nullptr) {
    if (utf8.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("libxml2 could not parse the HTML");
  }
  return WalkHtml(reinterpret_cast<const xmlNode*>(doc.get()), handler);
}

absl::Status ParseXml(std::string_view bytes, MarkupHandler& handler) {
  InitLibxml();
  if (bytes.size() > INT_MAX) {
    return absl::ResourceExhaustedError("XML larger than 2 GB");
  }
  std::unique_ptr<xmlTextReader, decltype(&xmlFreeTextReader)> reader(
      xmlReaderForMemory(bytes.data(), static_cast<int>(bytes.size()), nullptr,
                         nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                      XML_PARSE_NOWARNING),
      &xmlFreeTextReader);
  if (reader == nullptr) return absl::InternalError("libxml2: out of memory");
  ReaderError error;
  xmlTextReaderSetStructuredErrorHandler(reader.get(), &OnReaderError, &error);
  MarkupAttributes attributes;
  int rc;
  while ((rc = xmlTextReaderRead(reader.get())) == 1) {
    xmlTextReaderPtr r = reader.get();
    absl::Status s;
    switch (xmlTextReaderNodeType(r)) {
      case XML_READER_TYPE_ELEMENT: {
        const std::string_view name = View(xmlTextReaderConstLocalName(r));
        const bool empty = xmlTextReaderIsEmptyElement(r) == 1;
        // The name's storage is the reader's dictionary: it stays valid
        // while we move over the attributes.
        attributes.clear();
        while (xmlTextReaderMoveToNextAttribute(r) == 1) {
          attributes.emplace_back(View(xmlTextReaderConstLocalName(r)),
                                  View(xmlTextReaderConstValue(r)));
        }
        s = handler.StartElement(name, attributes);
        if (s.ok() && empty) s = handler.EndElement(name);
        break;
      }
      case XML_READER_TYPE_END_ELEMENT:
        s = handler.EndElement(View(xmlTextReaderConstLocalName(r)));
        break;
      case XML_READER_TYPE_TEXT:
      case XML_READER_TYPE_CDATA:
      case XML_READER_TYPE_WHITESPACE:
      case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
        s = handler.Text(View(xmlTextReaderConstValue(r)));
        break;
      case XML_READER_TYPE_COMMENT:
        s = handler.Comment(View(xmlTextReaderConstValue(r)));
        break;
      default:
        break;
    }
    if (!s.ok()) return s;
  }
  if (rc != 0 || !error.message.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed XML (libxml2: ",
        error.message.empty() ? "parse error" : error.message, ")"));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
