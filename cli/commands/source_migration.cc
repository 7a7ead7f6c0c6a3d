#include "cli/commands/source_migration.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/source_files.h"

namespace leakhound {
namespace {

// The folder a document was added from, by its id ("A/rest") and source
// ("/x/A/rest"): "/x/A"; empty when the two do not fit (a file added by
// itself, an id chosen with --id).
std::string AddedFolder(const DocumentRecord& d) {
  const size_t slash = d.external_id.find('/');
  if (slash == std::string::npos || slash == 0) return "";
  const std::string rest = d.external_id.substr(slash);  // "/rest"
  if (!d.source.ends_with(rest) || d.source.size() == rest.size()) return "";
  const std::string root = d.source.substr(0, d.source.size() - rest.size());
  if (std::filesystem::path(root).filename().string() !=
      d.external_id.substr(0, slash)) {
    return "";
  }
  return root;
}

// A valid source name from a folder's name, not among `taken`.
std::string FreeName(const std::string& root, std::set<std::string>& taken) {
  std::string base = std::filesystem::path(root).filename().string();
  for (char& c : base) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-') {
      c = '_';
    }
  }
  if (base.empty() || base[0] == '.' || base[0] == '-') base = "src" + base;
  if (base.size() > 56) base.resize(56);
  std::string name = base;
  for (int n = 2; taken.contains(name); ++n) name = absl::StrCat(base, "-", n);
  taken.insert(name);
  return name;
}

class Migration {
 public:
  Migration(ProtectedIndex& index, bool dry)
      : index_(index), dry_(dry), prefix_(dry ? "would " : "") {}

  int Run() {
    auto sources = index_.ListSources();
    if (!sources.ok()) return ReportError("sources", sources.status());
    sources_ = std::move(*sources);
    absl::Status s = index_.ForEachDocument([this](uint32_t, const DocumentRecord& d) {
      docs_.push_back(d);
      return absl::OkStatus();
    });
    if (!s.ok()) return ReportError("sources", s);
    if (!Register()) return exit_;
    Attribute();
    std::printf(
        "%s%zu sources registered, %zu renamed, %zu older copies removed, "
        "%zu documents not in a source, %zu failed\n",
        dry_ ? "dry run: " : "", registered_, renamed_, removed_,
        unattributed_, failed_);
    return exit_;
  }

 private:
  // Registers a source for each folder documents were added from (nested
  // ones too, so every id stays as it was), with the labels all of its
  // documents share.
  bool Register() {
    std::set<std::string> roots;
    for (const DocumentRecord& d : docs_) {
      if (std::string root = AddedFolder(d); !root.empty()) roots.insert(root);
    }
    std::set<std::string> taken;
    for (const ProtectedSource& s : sources_) {
      taken.insert(s.name);
      roots.erase(s.record.root);
    }
    const size_t registered = sources_.size();
    for (const std::string& root : roots) {
      ProtectedSource source{FreeName(root, taken), SourceRecord{}};
      source.record.root = root;
      sources_.push_back(std::move(source));
    }
    for (size_t i = registered; i < sources_.size(); ++i) {
      ProtectedSource& source = sources_[i];
      source.record.labels = SharedLabels(source);
      if (!dry_) {
        absl::Status s = index_.PutSource(source.name, source.record);
        if (!s.ok()) {
          exit_ = ReportError("sources", s, source.record.root);
          return false;
        }
      }
      std::printf("%sregister source %s: %s (labels %s)\n", prefix_,
                  source.name.c_str(), source.record.root.c_str(),
                  source.record.labels.empty()
                      ? "none"
                      : absl::StrJoin(source.record.labels, ", ").c_str());
      ++registered_;
    }
    for (size_t i = registered; i < sources_.size(); ++i) {
      ReportMissingLabels(sources_[i]);
    }
    return true;
  }

  // The documents whose file is `source`'s (its deepest source).
  std::vector<const DocumentRecord*> DocumentsOf(
      const ProtectedSource& source) const {
    std::vector<const DocumentRecord*> out;
    for (const DocumentRecord& d : docs_) {
      if (SourceHolding(sources_, d.source) == &source) out.push_back(&d);
    }
    return out;
  }

  std::vector<std::string> SharedLabels(const ProtectedSource& source) const {
    std::optional<std::vector<std::string>> shared;
    for (const DocumentRecord* d : DocumentsOf(source)) {
      std::vector<std::string> labels = d->labels;
      std::sort(labels.begin(), labels.end());
      if (!shared) {
        shared = labels;
        continue;
      }
      std::vector<std::string> both;
      std::set_intersection(shared->begin(), shared->end(), labels.begin(),
                            labels.end(), std::back_inserter(both));
      shared = std::move(both);
    }
    return shared.value_or(std::vector<std::string>{});
  }

  // Labels most of a new source's documents have but some lack (an older
  // sync dropped them): named, with the command that puts them back.
  void ReportMissingLabels(const ProtectedSource& source) const {
    const std::vector<const DocumentRecord*> docs = DocumentsOf(source);
    std::map<std::string, size_t> holders;
    for (const DocumentRecord* d : docs) {
      for (const std::string& l :
           std::set<std::string>(d->labels.begin(), d->labels.end())) {
        ++holders[l];
      }
    }
    for (const auto& [label, count] : holders) {
      if (count == docs.size() || 2 * count <= docs.size()) continue;
      for (const DocumentRecord* d : docs) {
        if (std::find(d->labels.begin(), d->labels.end(), label) !=
            d->labels.end()) {
          continue;
        }
        const std::string id = PlaceInSources(sources_, d->source)->id;
        std::printf(
            "%s lacks label %s, which %zu of the %zu documents of %s have "
            "(put it back: leakhound label add %s %s; or declare it for "
            "every file: leakhound sources set %s --label %s)\n",
            Printable(id).c_str(), label.c_str(), count, docs.size(),
            source.name.c_str(), Printable(id).c_str(), label.c_str(),
            source.name.c_str(), label.c_str());
      }
    }
  }

  // Gives every document under a source its source's id; of documents
  // from one file, keeps the newest (with all their labels).
  void Attribute() {
    std::map<std::string, std::vector<const DocumentRecord*>> by_file;
    for (const DocumentRecord& d : docs_) {
      if (PlaceInSources(sources_, d.source)) {
        by_file[d.source].push_back(&d);
      } else {
        std::printf("not in a source, kept as is: %s (%s)\n",
                    Printable(d.external_id).c_str(),
                    Printable(d.source).c_str());
        ++unattributed_;
      }
    }
    for (auto& [file, docs] : by_file) {
      std::sort(docs.begin(), docs.end(), [](auto* a, auto* b) {
        return a->added_unix_ms > b->added_unix_ms;
      });
      const std::string id = PlaceInSources(sources_, file)->id;
      std::vector<std::string> labels = docs.front()->labels;
      for (size_t i = 1; i < docs.size(); ++i) {
        labels = UnionOfLabels(labels, docs[i]->labels);
        const std::string old = docs[i]->external_id;
        Act([&] { return index_.Remove(old).status(); },
            absl::StrCat("remove ", docs[i]->external_id,
                         " (an older copy of ", file, ")"),
            &removed_);
      }
      if (docs.front()->external_id != id) {
        const std::string old = docs.front()->external_id;
        Act([&] { return index_.Rename(old, id); },
            absl::StrCat("rename ", docs.front()->external_id, " -> ", id),
            &renamed_);
      }
      if (labels.size() != docs.front()->labels.size()) {
        size_t ignored = 0;
        Act([&] { return index_.SetLabels(id, labels).status(); },
            absl::StrCat("label ", id, " (", absl::StrJoin(labels, ", "), ")"),
            &ignored);
      }
    }
  }

  // Makes the change (unless dry) and prints `what`, counting it; or
  // reports its failure.
  void Act(const std::function<absl::Status()>& change,
           const std::string& what, size_t* count) {
    if (absl::Status s = dry_ ? absl::OkStatus() : change(); !s.ok()) {
      exit_ = ReportError("sources", s, what);
      ++failed_;
      return;
    }
    std::printf("%s%s\n", prefix_, Printable(what).c_str());
    ++*count;
  }

  ProtectedIndex& index_;
  const bool dry_;
  const char* prefix_;
  std::vector<ProtectedSource> sources_;
  std::vector<DocumentRecord> docs_;
  int exit_ = kExitOk;
  size_t registered_ = 0, renamed_ = 0, removed_ = 0, unattributed_ = 0,
         failed_ = 0;
};

}  // namespace

int MigrateToSources(ProtectedIndex& index, bool dry) {
  return Migration(index, dry).Run();
}

}  // namespace leakhound
