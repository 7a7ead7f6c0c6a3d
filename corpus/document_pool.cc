#include "corpus/document_pool.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::InternalError(absl::StrCat("cannot read ", path.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return RepairUtf8(bytes.str());
}

absl::StatusOr<std::vector<fs::path>> ListFiles(const fs::path& dir,
                                                const std::string& ext) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.find(ext) != std::string::npos) {
      files.push_back(entry.path());
    }
  }
  if (error || files.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ", ext, " files in ", dir.string(),
        "; run bash corpus/prepare_corpora.sh ", dir.parent_path().string()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Info files: nodes are separated by the 0x1F byte; each node's first line
// names it. Tag tables and indirect tables are not text.
std::vector<std::string> InfoNodes(const std::string& info) {
  std::vector<std::string> nodes;
  size_t start = 0;
  while (start <= info.size()) {
    size_t end = info.find('\x1f', start);
    if (end == std::string::npos) end = info.size();
    std::string node = info.substr(start, end - start);
    // Index entries are marked "\0\b[index\0\b]": markup, not text.
    std::erase_if(node, [](char c) { return c == '\0' || c == '\b'; });
    if (node.find("Tag Table:") == std::string::npos &&
        node.find("Indirect:") == std::string::npos) {
      nodes.push_back(std::move(node));
    }
    start = end + 1;
  }
  return nodes;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// True when `line` underlines (or overlines) `title` in reStructuredText:
// one punctuation character repeated, at least as long as the title.
bool Underlines(std::string_view line, std::string_view title) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
    line.remove_suffix(1);
  }
  while (!title.empty() && (title.back() == '\r' || title.back() == ' ')) {
    title.remove_suffix(1);
  }
  if (line.size() < 3 || line.size() < title.size() || IsBlank(title)) {
    return false;
  }
  const char c = line[0];
  if (std::string_view("=-~^*#\"'+`:.").find(c) == std::string_view::npos) {
    return false;
  }
  return line.find_first_not_of(c) == std::string_view::npos;
}

}  // namespace

std::vector<std::string> SplitSections(const std::string& text,
                                       SectionHeadings headings,
                                       size_t min_bytes) {
  // The lines without their '\n', and where each starts.
  std::vector<std::string_view> lines;
  std::vector<size_t> line_starts;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(text.data() + at, end - at);
    line_starts.push_back(at);
    at = end + 1;
  }
  std::vector<size_t> starts = {0};  // where each section starts
  for (size_t i = 0; i < lines.size(); ++i) {
    bool heading = false;
    if (headings == SectionHeadings::kRestructuredText) {
      // The title line, or the overline above it.
      heading = i + 1 < lines.size() && Underlines(lines[i + 1], lines[i]) &&
                !Underlines(lines[i], "x");
      if (!heading && i + 2 < lines.size() && Underlines(lines[i], "x") &&
          Underlines(lines[i + 2], lines[i + 1])) {
        heading = true;
      }
      if (heading && i > 0 && Underlines(lines[i - 1], lines[i])) {
        heading = false;  // the title under its overline
      }
    } else {
      heading = i > 0 && IsBlank(lines[i - 1]) && !IsBlank(lines[i]) &&
                lines[i][0] != ' ' && lines[i][0] != '\t';
    }
    if (heading && line_starts[i] - starts.back() >= min_bytes) {
      starts.push_back(line_starts[i]);
    }
  }
  // A short tail joins the section before it.
  if (starts.size() > 1 && text.size() - starts.back() < min_bytes) {
    starts.pop_back();
  }
  std::vector<std::string> sections;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
    sections.push_back(text.substr(starts[i], end - starts[i]));
  }
  return sections;
}

namespace {

// "character TAB variant" lines (prepare_corpora.sh); pairs outside the
// three-byte range are skipped.
absl::StatusOr<HanVariants> ReadVariants(const fs::path& path) {
  auto text = ReadWhole(path);
  if (!text.ok()) return text.status();
  HanVariants map;
  for (absl::string_view l : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    const std::string_view line(l.data(), l.size());
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      return absl::DataLossError(
          absl::StrCat("no tab in a line of ", path.string()));
    }
    const char32_t from = ThreeByteCodePoint(line.substr(0, tab));
    const char32_t to = ThreeByteCodePoint(line.substr(tab + 1));
    if (from != 0 && to != 0 && tab == 3 && line.size() == 7) map[from] = to;
  }
  if (map.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no variants in ", path.string(),
                     "; run bash corpus/prepare_corpora.sh"));
  }
  return map;
}

// Appends the seeded shuffle of `docs` split into the three roles by the
// given shares (protected, held out; the rest are hosts).
void Split(std::vector<PoolDocument> docs, double protected_share,
           double held_out_share, uint64_t seed, const PoolLimits& limits,
           DocumentPool& pool) {
  std::mt19937_64 rng(seed);
  std::shuffle(docs.begin(), docs.end(), rng);
  const size_t n = docs.size();
  const auto n_protected = static_cast<size_t>(n * protected_share);
  const auto n_held_out = static_cast<size_t>(n * held_out_share);
  auto take = [&](size_t begin, size_t end, std::vector<PoolDocument>& to) {
    if (limits.per_collection_role != 0) {
      end = std::min(end, begin + limits.per_collection_role);
    }
    for (size_t i = begin; i < end; ++i) to.push_back(std::move(docs[i]));
  };
  take(0, n_protected, pool.protected_docs);
  take(n_protected, n_protected + n_held_out, pool.held_out);
  take(n_protected + n_held_out, n, pool.hosts);
}

}  // namespace

absl::StatusOr<DocumentPool> LoadDocumentPool(const std::string& dir,
                                              uint64_t seed,
                                              const PoolLimits& limits) {
  struct Collection {
    const char* name;
    bool chinese;
    std::optional<SectionHeadings> sections;  // whole files when empty
  };
  static constexpr Collection kCollections[] = {
      {"python", false, SectionHeadings::kRestructuredText},
      {"zh", true, std::nullopt},
      {"zh_tw", true, std::nullopt},
      {"kernel", false, SectionHeadings::kRestructuredText},
      {"pg", false, std::nullopt},
      {"perl", false, SectionHeadings::kIndented},
      {"man", false, SectionHeadings::kIndented},
  };
  DocumentPool pool;
  // Identical texts (a page installed under two names) would be one
  // protected document under two ids: only the first is kept.
  absl::flat_hash_set<std::string> texts;
  for (const Collection& collection : kCollections) {
    auto files = ListFiles(fs::path(dir) / collection.name, ".txt");
    if (!files.ok()) return files.status();
    // Chinese text holds about three times the information per byte.
    const size_t min_bytes =
        collection.chinese ? limits.min_bytes / 3 : limits.min_bytes;
    std::vector<PoolDocument> docs;
    for (const fs::path& file : *files) {
      auto text = ReadWhole(file);
      if (!text.ok()) return text.status();
      const std::string id =
          absl::StrCat(collection.name, "/", file.stem().string());
      std::vector<std::string> parts;
      if (collection.sections.has_value()) {
        parts =
            SplitSections(*text, *collection.sections, limits.section_bytes);
      } else {
        parts.push_back(std::move(*text));
      }
      for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].size() < min_bytes || !texts.insert(parts[i]).second) {
          continue;
        }
        docs.push_back(PoolDocument{
            parts.size() == 1 ? id : absl::StrCat(id, "#", i), collection.name,
            collection.chinese, std::move(parts[i])});
      }
    }
    Split(std::move(docs), 0.75, 0.125, seed, limits, pool);
  }
  auto files = ListFiles(fs::path(dir) / "gnu", ".info");
  if (!files.ok()) return files.status();
  std::vector<PoolDocument> nodes;
  for (const fs::path& file : *files) {
    auto text = ReadWhole(file);
    if (!text.ok()) return text.status();
    std::vector<std::string> parts = InfoNodes(*text);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].size() < limits.min_bytes ||
          !texts.insert(parts[i]).second) {
        continue;
      }
      nodes.push_back(PoolDocument{
          absl::StrCat("gnu/", file.filename().string(), "#", i), "gnu", false,
          std::move(parts[i])});
    }
  }
  Split(std::move(nodes), 0, 0, seed, limits, pool);
  for (auto [name, map] : {std::pair{"to_traditional", &pool.to_traditional},
                           std::pair{"to_simplified", &pool.to_simplified}}) {
    auto read =
        ReadVariants(fs::path(dir) / "han" / absl::StrCat(name, ".tsv"));
    if (!read.ok()) return read.status();
    *map = std::move(*read);
  }
  return pool;
}

}  // namespace leakhound
