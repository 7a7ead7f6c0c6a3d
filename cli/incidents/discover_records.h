// What discovery (docs/discover.md) keeps in the incident store: each
// target's catalogue of files as last seen and judged, the findings with
// what was done to each file, and the runs. PERSISTED (schema 9, docs/
// storage_format.md): paths, stat fields, digests, names; never text.
//
// Thread-safety: plain values.
#ifndef LEAKHOUND_CLI_INCIDENTS_DISCOVER_RECORDS_H_
#define LEAKHOUND_CLI_INCIDENTS_DISCOVER_RECORDS_H_

#include <cstdint>
#include <string>

namespace leakhound {

// A file of a target as the last run saw it (discover_files). verdict,
// PERSISTED: "clean", "leak", "unread", "error", or "new" for a file a
// plan handed out (`discover run --plan`) not judged yet. basis: what it was
// judged against (the protected set's generation, the tables, the policy):
// another basis means the verdict may be stale. reference: the open
// finding's incident, "" for none.
struct CatalogueEntry {
  std::string target;
  std::string path;
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  std::string digest;  // SHA-256 (hex) of the content; "" if not read
  std::string basis;
  std::string verdict;
  std::string reference;
  bool operator==(const CatalogueEntry&) const = default;
};

// A finding and its remediation (discover_findings). state, PERSISTED:
// "open" (left in place: logged, owner notified), "quarantining" (the
// move was begun: a run that finds it so completes or rolls it back),
// "quarantined", "restricted", "restored" (undone), "closed" (the file
// changed or went: `detail` says why). remediation: a RemediationName.
struct DiscoverFinding {
  std::string reference;  // its incident's
  int64_t incident_id = 0;
  std::string target;
  std::string path;
  std::string owner;  // user name (or the uid as digits)
  std::string group;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t mode = 0;  // st_mode's permission bits when found
  int64_t mtime_ms = 0;
  uint64_t size = 0;
  std::string exposure;  // "world-readable", "group-readable", ACL entries
  std::string remediation;
  std::string state;
  std::string quarantine_path;  // where the file is while quarantined
  std::string detail;
  int64_t updated_ms = 0;
  bool operator==(const DiscoverFinding&) const = default;
};

// One run over one target (discover_runs), for the console and `--due`;
// written as it goes (finished_ms 0: still running, or killed).
struct DiscoverRun {
  std::string target;
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  int64_t seen = 0;      // files found
  int64_t to_read = 0;   // of them, files to read
  int64_t read = 0;      // files read so far
  int64_t findings = 0;  // new findings
  int64_t closed = 0;    // findings closed
  int64_t errors = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_DISCOVER_RECORDS_H_
