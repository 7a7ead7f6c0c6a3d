// CrawlPlan: which files of a discovery target a run reads (docs/
// discover.md, "Incremental"). A file is read when it is new, when its
// identity changed (device, inode, size, mtime or ctime), when the verdict
// it has was reached on another basis (the protected set, the tables or
// the policy changed since), or when it could not be judged last time; an
// unchanged file keeps its verdict unread. Files of the catalogue no
// longer found are gone.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_DISCOVER_CRAWL_PLAN_H_
#define LEAKHOUND_CLI_DISCOVER_CRAWL_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/discover/file_facts.h"
#include "cli/incidents/discover_records.h"

namespace leakhound {

// A file the walk found: its facts, or why it could not be examined (an
// unreadable folder or file: an error of the run, never a clean file).
struct SeenFile {
  std::string path;
  FileFacts facts;
  absl::Status problem;
};

// Why a file is read. PERSISTED in `discover run --json` output.
enum class ReadReason { kUnchanged, kNew, kChanged, kBasis, kRetry };
const char* ReadReasonName(ReadReason r);

struct PlannedFile {
  SeenFile file;
  std::optional<CatalogueEntry> last;  // its catalogue entry, if any
  ReadReason reason = ReadReason::kNew;
};

struct CrawlPlan {
  std::vector<PlannedFile> files;    // in walk order
  std::vector<CatalogueEntry> gone;  // catalogued, not found now
  size_t to_read = 0;                // files whose reason is not kUnchanged
  size_t basis_changed = 0;          // files read for kBasis alone
};

// The plan for `seen` against the target's `catalogue` (any order) when
// verdicts are now reached on `basis`.
CrawlPlan PlanCrawl(std::vector<SeenFile> seen,
                    std::vector<CatalogueEntry> catalogue,
                    const std::string& basis);

// The catalogue entry of a file judged now.
CatalogueEntry EntryOf(const std::string& target, const SeenFile& file,
                       const std::string& digest, const std::string& basis,
                       const std::string& verdict,
                       const std::string& reference);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_CRAWL_PLAN_H_
