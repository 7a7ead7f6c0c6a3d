#include "cli/formats/epub_extractor.h"

#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cli/formats/html_extractor.h"
#include "cli/formats/markup_parser.h"
#include "cli/formats/zip_package.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

constexpr char kContainer[] = "META-INF/container.xml";

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed EPUB: ", std::string(what)));
}

// container.xml: the first rootfile's full-path.
class ContainerHandler : public MarkupHandler {
 public:
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name != "rootfile" || !path.empty()) return absl::OkStatus();
    for (const auto& [key, value] : attributes) {
      if (key == "full-path") path = std::string(value);
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view) override {
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view) override { return absl::OkStatus(); }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

  std::string path;
};

// The OPF: manifest ids to hrefs, the spine's order, and the title and
// description.
class PackageHandler : public MarkupHandler {
 public:
  absl::Status StartElement(std::string_view name,
                            const MarkupAttributes& attributes) override {
    if (name == "item") {
      std::string id, href;
      for (const auto& [key, value] : attributes) {
        if (key == "id") id = std::string(value);
        if (key == "href") href = std::string(value);
      }
      manifest[id] = href;
    } else if (name == "itemref") {
      for (const auto& [key, value] : attributes) {
        if (key == "idref") spine.emplace_back(value);
      }
    } else if (name == "title" || name == "description" || name == "subject") {
      in_metadata_text_ = true;
    }
    return absl::OkStatus();
  }
  absl::Status EndElement(std::string_view name) override {
    if (in_metadata_text_ && (name == "title" || name == "description" ||
                              name == "subject")) {
      in_metadata_text_ = false;
      metadata += '\n';
    }
    return absl::OkStatus();
  }
  absl::Status Text(std::string_view utf8) override {
    if (in_metadata_text_ && metadata.size() < 65536) metadata.append(utf8);
    return absl::OkStatus();
  }
  absl::Status Comment(std::string_view) override { return absl::OkStatus(); }

  absl::flat_hash_map<std::string, std::string> manifest;
  std::vector<std::string> spine;
  std::string metadata;

 private:
  bool in_metadata_text_ = false;
};

// `href` (percent-encoded, relative to the OPF's folder `base`) as an
// entry name: "." and ".." resolved.
std::string Resolve(std::string_view base, std::string_view href) {
  href = href.substr(0, href.find('#'));
  std::string decoded;
  for (size_t i = 0; i < href.size(); ++i) {
    if (href[i] == '%' && i + 2 < href.size()) {
      auto hex = [](char c) {
        return c >= '0' && c <= '9' ? c - '0'
               : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                      : -1;
      };
      const int hi = hex(href[i + 1]), lo = hex(href[i + 2]);
      if (hi >= 0 && lo >= 0) {
        decoded.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    decoded.push_back(href[i]);
  }
  std::vector<std::string> parts;
  auto push = [&parts](std::string_view path) {
    size_t start = 0;
    while (start <= path.size()) {
      const size_t slash = std::min(path.find('/', start), path.size());
      const std::string_view piece = path.substr(start, slash - start);
      if (piece == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!piece.empty() && piece != ".") {
        parts.emplace_back(piece);
      }
      start = slash + 1;
    }
  };
  if (!decoded.starts_with("/")) push(base);
  push(decoded);
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

bool PackageMachinery(std::string_view name) {
  for (std::string_view suffix : {".css", ".ncx", ".opf", ".otf", ".ttf",
                                  ".woff", ".woff2", ".xpgt"}) {
    if (name.ends_with(suffix)) return true;
  }
  return name == "mimetype" || name.starts_with("META-INF/") ||
         name.ends_with("/");
}

}  // namespace

absl::Status EpubExtractor::Extract(std::string_view bytes,
                                    ExtractionSink& sink) const {
  auto package = ReadZipPackage(bytes, sink,
                                [](std::string_view) { return true; });
  if (!package.ok()) return package.status();
  ContainerHandler container;
  if (auto s = ParseXml(package->Get(kContainer), container); !s.ok()) {
    return Malformed(
        absl::StrCat("META-INF/container.xml: ", std::string(s.message())));
  }
  if (container.path.empty()) return Malformed("no rootfile in container.xml");
  const std::string_view opf_bytes = package->Get(container.path);
  if (opf_bytes.empty()) return Malformed("the package document is missing");
  PackageHandler opf;
  if (auto s = ParseXml(opf_bytes, opf); !s.ok()) {
    return Malformed(
        absl::StrCat(container.path, ": ", std::string(s.message())));
  }
  const size_t slash = container.path.rfind('/');
  const std::string base =
      slash == std::string::npos ? "" : container.path.substr(0, slash);
  const size_t max_bytes = sink.limits().max_output_bytes;
  std::string text = opf.metadata;
  std::set<std::string> read;
  for (const std::string& idref : opf.spine) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    auto item = opf.manifest.find(idref);
    if (item == opf.manifest.end()) continue;
    const std::string name = Resolve(base, item->second);
    if (!read.insert(name).second) continue;
    const std::string_view xhtml = package->Get(name);
    if (xhtml.empty()) continue;
    auto decoded = DecodeText(std::string(xhtml));
    if (!decoded.ok()) return decoded.status();
    auto chapter = HtmlToText(decoded->utf8, max_bytes);
    if (!chapter.ok()) return chapter.status();
    if (!text.empty()) text += '\n';
    if (auto s = AppendWithin(*chapter, max_bytes, &text); !s.ok()) return s;
  }
  if (auto s = sink.AppendText(text); !s.ok()) return s;
  read.insert(container.path);
  for (auto& [name, data] : package->entries) {
    if (read.contains(name) || PackageMachinery(name) || data.empty()) continue;
    // fuzz_epub: a zip entry may have an empty name; a member needs one.
    const std::string member = name.empty() ? "unnamed-entry" : name;
    if (auto s = sink.AddMember(member, std::move(data)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace leakhound
