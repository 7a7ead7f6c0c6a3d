// The console's Discovery page (docs/discover.md, docs/console.md): the
// latest run of each target, the findings of protected content at rest
// filtered by target, folder, owner and state, a folder tree and the
// owners with their counts, each finding's exposure and remediation, and
// for an admin a Restore button on what can be undone. Every value from
// outside (paths, names) is escaped.
//
// Thread-safety: pure functions of their arguments.
#ifndef LEAKHOUND_CLI_CONSOLE_DISCOVERY_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_DISCOVERY_PAGES_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cli/console/page_layout.h"
#include "cli/incidents/discover_records.h"

namespace leakhound {

struct DiscoveryFilter {
  std::string target;  // "": any
  std::string folder;  // a path prefix, "": any
  std::string owner;
  std::string state;
};

struct DiscoveryView {
  std::vector<DiscoverRun> runs;          // the latest of each target
  std::vector<DiscoverFinding> findings;  // of the filter's target
  DiscoveryFilter filter;
  std::string done;  // a line saying what was just done ("" none)
};

// Whether `f` passes `filter` (folder: the path is under it).
bool InFilter(const DiscoverFinding& f, const DiscoveryFilter& filter);

// Every folder holding a finding of `findings`, with the findings under
// it (itself and below), by path.
std::vector<std::pair<std::string, size_t>> FolderCounts(
    const std::vector<DiscoverFinding>& findings);

std::string DiscoveryPage(const PageContext& ctx, const DiscoveryView& view);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_DISCOVERY_PAGES_H_
