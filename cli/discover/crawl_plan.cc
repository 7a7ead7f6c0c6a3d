#include "cli/discover/crawl_plan.h"

#include <unordered_map>
#include <utility>

namespace leakhound {
namespace {

bool SameIdentity(const FileFacts& f, const CatalogueEntry& e) {
  return f.device == e.device && f.inode == e.inode && f.size == e.size &&
         f.mtime_ns == e.mtime_ns && f.ctime_ns == e.ctime_ns;
}

ReadReason ReasonFor(const SeenFile& file, const CatalogueEntry* last,
                     const std::string& basis) {
  // "new": handed out to workers (`--plan`), not judged yet.
  if (last == nullptr || last->verdict == "new") return ReadReason::kNew;
  if (!file.problem.ok()) return ReadReason::kRetry;
  if (!SameIdentity(file.facts, *last)) return ReadReason::kChanged;
  if (last->verdict == "error") return ReadReason::kRetry;
  if (last->basis != basis) return ReadReason::kBasis;
  return ReadReason::kUnchanged;
}

}  // namespace

const char* ReadReasonName(ReadReason r) {
  switch (r) {
    case ReadReason::kUnchanged:
      return "unchanged";
    case ReadReason::kNew:
      return "new";
    case ReadReason::kChanged:
      return "changed";
    case ReadReason::kBasis:
      return "protected set or policy changed";
    case ReadReason::kRetry:
      return "not judged last time";
  }
  return "new";
}

CrawlPlan PlanCrawl(std::vector<SeenFile> seen,
                    std::vector<CatalogueEntry> catalogue,
                    const std::string& basis) {
  std::unordered_map<std::string, CatalogueEntry> by_path;
  by_path.reserve(catalogue.size());
  for (CatalogueEntry& e : catalogue) {
    std::string path = e.path;
    by_path.emplace(std::move(path), std::move(e));
  }
  CrawlPlan plan;
  plan.files.reserve(seen.size());
  for (SeenFile& file : seen) {
    PlannedFile p;
    auto it = by_path.find(file.path);
    if (it != by_path.end()) {
      p.last = std::move(it->second);
      by_path.erase(it);
    }
    p.reason = ReasonFor(file, p.last ? &*p.last : nullptr, basis);
    if (p.reason != ReadReason::kUnchanged) ++plan.to_read;
    if (p.reason == ReadReason::kBasis) ++plan.basis_changed;
    p.file = std::move(file);
    plan.files.push_back(std::move(p));
  }
  for (auto& [path, e] : by_path) plan.gone.push_back(std::move(e));
  return plan;
}

CatalogueEntry EntryOf(const std::string& target, const SeenFile& file,
                       const std::string& digest, const std::string& basis,
                       const std::string& verdict,
                       const std::string& reference) {
  const FileFacts& f = file.facts;
  return {target,     file.path, f.device, f.inode, f.size,   f.mtime_ns,
          f.ctime_ns, digest,    basis,    verdict, reference};
}

}  // namespace leakhound
