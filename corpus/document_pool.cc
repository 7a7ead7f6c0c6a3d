#include "corpus/document_pool.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path.string()));
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
  DocumentPool pool;
  // Identical texts (a page installed under two names) would be one
  // protected document under two ids: only the first is kept.
  absl::flat_hash_set<std::string> texts;
  for (const char* collection : {"python", "zh"}) {
    auto files = ListFiles(fs::path(dir) / collection, ".txt");
    if (!files.ok()) return files.status();
    std::vector<PoolDocument> docs;
    for (const fs::path& file : *files) {
      auto text = ReadWhole(file);
      if (!text.ok()) return text.status();
      const bool chinese = std::string(collection) == "zh";
      // Chinese text holds about three times the information per byte.
      if (text->size() < (chinese ? limits.min_bytes / 3 : limits.min_bytes) ||
          !texts.insert(*text).second) {
        continue;
      }
      docs.push_back(PoolDocument{
          absl::StrCat(collection, "/", file.stem().string()), collection,
          chinese, std::move(*text)});
    }
    Split(std::move(docs), 0.5, 0.25, seed, limits, pool);
  }
  auto files = ListFiles(fs::path(dir) / "gnu", ".info");
  if (!files.ok()) return files.status();
  std::vector<PoolDocument> nodes;
  for (const fs::path& file : *files) {
    auto text = ReadWhole(file);
    if (!text.ok()) return text.status();
    std::vector<std::string> parts = InfoNodes(*text);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].size() < limits.min_bytes || !texts.insert(parts[i]).second) {
        continue;
      }
      nodes.push_back(PoolDocument{
          absl::StrCat("gnu/", file.filename().string(), "#", i), "gnu", false,
          std::move(parts[i])});
    }
  }
  Split(std::move(nodes), 0, 0, seed, limits, pool);
  return pool;
}

}  // namespace leakhound
