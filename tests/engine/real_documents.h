// Real documents for the protected index's tests: the sample corpus's
// protected documents whole and the paragraphs of the project's own docs,
// and small helpers that build an index of them.
//
// Thread-safety: RealDocuments is initialized once, thread-safely.
#ifndef LEAKHOUND_TESTS_ENGINE_REAL_DOCUMENTS_H_
#define LEAKHOUND_TESTS_ENGINE_REAL_DOCUMENTS_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/protected_index.h"
#include "tests/test_paths.h"

namespace leakhound {

struct TextDoc {
  std::string id;
  std::string text;
};

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Real text: the sample corpus's protected documents whole, and the
// paragraphs (of at least 9 words) of the project's own docs, so there are
// many documents of paper-like, very unequal lengths.
inline const std::vector<TextDoc>& RealDocuments() {
  static const std::vector<TextDoc> docs = [] {
    std::vector<TextDoc> out;
    const std::filesystem::path root(test_paths::kSourceDir);
    std::vector<std::filesystem::path> protected_files;
    for (const auto& e : std::filesystem::directory_iterator(
             root / "corpus/sample/protected")) {
      protected_files.push_back(e.path());
    }
    std::sort(protected_files.begin(), protected_files.end());
    for (const auto& p : protected_files) {
      out.push_back({p.filename().string(), ReadAll(p)});
    }
    for (const char* name : {"README.md", "docs/architecture.md", "docs/cli.md",
                             "docs/engine.md", "docs/shingler.md"}) {
      std::istringstream in(ReadAll(root / name));
      std::string line, para;
      int n = 0;
      auto flush = [&] {
        if (std::count(para.begin(), para.end(), ' ') >= 8) {
          out.push_back({std::string(name) + "#" + std::to_string(n++), para});
        }
        para.clear();
      };
      while (std::getline(in, line)) {
        if (line.empty()) {
          flush();
        } else {
          para += line + "\n";
        }
      }
      flush();
    }
    return out;
  }();
  return docs;
}

// Small rows, so that documents share rows and long ones span several.
inline IndexOptions SmallRows() {
  IndexOptions o;
  o.filter = {1e-3, 96, 1.0};
  return o;
}

inline absl::StatusOr<AddResult> AddDoc(ProtectedIndex& index,
                                        const TextDoc& d) {
  return index.Add(DocumentInput{d.id, "test/" + d.id, {}, d.text});
}

// A new index in `dir` holding the first `count` real documents.
inline absl::StatusOr<std::unique_ptr<ProtectedIndex>> CreateWith(
    const std::string& dir, size_t count) {
  auto index = ProtectedIndex::Create(dir, SmallRows());
  if (!index.ok()) return index.status();
  const auto& docs = RealDocuments();
  for (size_t i = 0; i < std::min(count, docs.size()); ++i) {
    auto added = AddDoc(**index, docs[i]);
    if (!added.ok()) return added.status();
  }
  return index;
}

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_ENGINE_REAL_DOCUMENTS_H_
