// IncidentStore: discovery's catalogue, findings and runs (incident_store.h,
// docs/discover.md).
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/sql_connection.h"

namespace leakhound {
namespace {

constexpr char kFindingColumns[] =
    "reference, incident_id, target, path, owner, owner_group, uid, gid, "
    "mode, mtime_ms, size, exposure, remediation, state, quarantine_path, "
    "detail, updated_ms";

DiscoverFinding FindingAt(const SqlStatement& s) {
  DiscoverFinding f;
  f.reference = s.Text(0);
  f.incident_id = s.Int(1);
  f.target = s.Text(2);
  f.path = s.Text(3);
  f.owner = s.Text(4);
  f.group = s.Text(5);
  f.uid = static_cast<uint32_t>(s.Int(6));
  f.gid = static_cast<uint32_t>(s.Int(7));
  f.mode = static_cast<uint32_t>(s.Int(8));
  f.mtime_ms = s.Int(9);
  f.size = static_cast<uint64_t>(s.Int(10));
  f.exposure = s.Text(11);
  f.remediation = s.Text(12);
  f.state = s.Text(13);
  f.quarantine_path = s.Text(14);
  f.detail = s.Text(15);
  f.updated_ms = s.Int(16);
  return f;
}

}  // namespace

absl::StatusOr<std::vector<CatalogueEntry>> IncidentStore::Catalogue(
    const std::string& target) {
  SqlStatement s(*db_,
                 "SELECT target, path, device, inode, size, mtime_ns, "
                 "ctime_ns, digest, basis, verdict, reference FROM "
                 "discover_files WHERE target = ? ORDER BY path");
  s.Bind(target);
  std::vector<CatalogueEntry> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Text(0), s.Text(1), static_cast<uint64_t>(s.Int(2)),
                   static_cast<uint64_t>(s.Int(3)),
                   static_cast<uint64_t>(s.Int(4)), s.Int(5), s.Int(6),
                   s.Text(7), s.Text(8), s.Text(9), s.Text(10)});
  }
  if (code != kSqlDone) return Error(code, "cannot read the catalogue");
  return out;
}

absl::Status IncidentStore::PutCatalogue(
    const std::vector<CatalogueEntry>& entries,
    const std::vector<CatalogueEntry>& gone) {
  if (entries.empty() && gone.empty()) return absl::OkStatus();
  return InTransaction([&] { return WriteCatalogue(entries, gone); });
}

absl::Status IncidentStore::WriteCatalogue(
    const std::vector<CatalogueEntry>& entries,
    const std::vector<CatalogueEntry>& gone) {
  SqlStatement put(
      *db_,
      "INSERT INTO discover_files (target, path, device, inode, size, "
      "mtime_ns, ctime_ns, digest, basis, verdict, reference) VALUES "
      "(?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (target, path) DO UPDATE SET "
      "device = excluded.device, inode = excluded.inode, size = "
      "excluded.size, mtime_ns = excluded.mtime_ns, ctime_ns = "
      "excluded.ctime_ns, digest = excluded.digest, basis = "
      "excluded.basis, verdict = excluded.verdict, reference = "
      "excluded.reference, claim = ''");
  for (const CatalogueEntry& e : entries) {
    put.Reset();
    put.Bind(e.target).Bind(e.path).Bind(static_cast<int64_t>(e.device));
    put.Bind(static_cast<int64_t>(e.inode));
    put.Bind(static_cast<int64_t>(e.size)).Bind(e.mtime_ns).Bind(e.ctime_ns);
    put.Bind(e.digest).Bind(e.basis).Bind(e.verdict).Bind(e.reference);
    if (const int code = put.Step(); code != kSqlDone) {
      return Error(code, "cannot write the catalogue");
    }
  }
  SqlStatement drop(*db_,
                    "DELETE FROM discover_files WHERE target = ? AND "
                    "path = ?");
  for (const CatalogueEntry& e : gone) {
    drop.Reset();
    drop.Bind(e.target).Bind(e.path);
    if (const int code = drop.Step(); code != kSqlDone) {
      return Error(code, "cannot write the catalogue");
    }
  }
  return absl::OkStatus();
}

absl::Status IncidentStore::InsertFinding(Incident& incident,
                                          DiscoverFinding& finding,
                                          const CatalogueEntry& entry) {
  std::vector<NewFinding> one(1);
  one[0].incident = std::move(incident);
  one[0].finding = std::move(finding);
  one[0].entry = entry;
  absl::Status s = InsertFindings(one, "");
  incident = std::move(one[0].incident);
  finding = std::move(one[0].finding);
  return s;
}

absl::Status IncidentStore::InsertFindings(std::vector<NewFinding>& batch,
                                           const std::string& user) {
  if (batch.empty()) return absl::OkStatus();
  absl::Status s = InTransaction([&]() -> absl::Status {
    for (NewFinding& n : batch) {
      if (absl::Status st = InsertFindingLocked(n.incident, n.finding, n.entry);
          !st.ok()) {
        return st;
      }
      if (n.review.empty()) continue;
      if (absl::Status st =
              Audit(user, n.review, n.incident.id,
                    absl::StrCat(n.finding.path, ": ", n.finding.state));
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  });
  if (!s.ok()) {
    for (NewFinding& n : batch) n.incident.id = 0;
  }
  return s;
}

absl::Status IncidentStore::InsertFindingLocked(Incident& incident,
                                                DiscoverFinding& finding,
                                                const CatalogueEntry& entry) {
  if (absl::Status st = InsertAll(std::span<Incident>(&incident, 1));
      !st.ok()) {
    return st;
  }
  finding.incident_id = incident.id;
  finding.reference = incident.reference;
  SqlStatement add(
      *db_, absl::StrCat("INSERT INTO discover_findings (", kFindingColumns,
                         ") VALUES "
                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  add.Bind(finding.reference).Bind(finding.incident_id).Bind(finding.target);
  add.Bind(finding.path).Bind(finding.owner).Bind(finding.group);
  add.Bind(int64_t{finding.uid}).Bind(int64_t{finding.gid});
  add.Bind(int64_t{finding.mode}).Bind(finding.mtime_ms);
  add.Bind(static_cast<int64_t>(finding.size)).Bind(finding.exposure);
  add.Bind(finding.remediation).Bind(finding.state);
  add.Bind(finding.quarantine_path).Bind(finding.detail);
  add.Bind(finding.updated_ms);
  if (const int code = add.Step(); code != kSqlDone) {
    return Error(code, "cannot record a finding");
  }
  CatalogueEntry e = entry;
  e.reference = incident.reference;
  return WriteCatalogue({e}, {});
}

absl::StatusOr<std::vector<DiscoverFinding>> IncidentStore::Findings(
    const std::string& target, const std::vector<std::string>& states) {
  std::string sql =
      absl::StrCat("SELECT ", kFindingColumns,
                   " FROM discover_findings WHERE (? = '' OR target = ?)");
  if (!states.empty()) {
    std::vector<std::string> marks(states.size(), "?");
    absl::StrAppend(&sql, " AND state IN (", absl::StrJoin(marks, ","), ")");
  }
  absl::StrAppend(&sql, " ORDER BY path, updated_ms");
  SqlStatement s(*db_, sql);
  s.Bind(target).Bind(target);
  for (const std::string& state : states) s.Bind(state);
  std::vector<DiscoverFinding> out;
  int code;
  while ((code = s.Step()) == kSqlRow) out.push_back(FindingAt(s));
  if (code != kSqlDone) return Error(code, "cannot read the findings");
  return out;
}

absl::StatusOr<DiscoverFinding> IncidentStore::Finding(
    const std::string& reference) {
  int64_t id = 0;
  const bool by_id = absl::SimpleAtoi(reference, &id);
  SqlStatement s(
      *db_,
      absl::StrCat("SELECT ", kFindingColumns, " FROM discover_findings WHERE ",
                   by_id ? "incident_id = ?" : "reference = ?"));
  if (by_id) {
    s.Bind(id);
  } else {
    s.Bind(absl::AsciiStrToUpper(reference));
  }
  const int code = s.Step();
  if (code == kSqlRow) return FindingAt(s);
  if (code != kSqlDone) return Error(code, "cannot read a finding");
  return absl::NotFoundError(absl::StrCat("no discovery finding ", reference));
}

absl::Status IncidentStore::UpdateFinding(const DiscoverFinding& finding,
                                          const std::string& review,
                                          const std::string& user,
                                          bool resolve) {
  return InTransaction([&]() -> absl::Status {
    SqlStatement s(*db_,
                   "UPDATE discover_findings SET state = ?, "
                   "quarantine_path = ?, detail = ?, mode = ?, "
                   "remediation = ?, updated_ms = ? WHERE reference = ?");
    s.Bind(finding.state).Bind(finding.quarantine_path).Bind(finding.detail);
    s.Bind(int64_t{finding.mode}).Bind(finding.remediation).Bind(NowUnixMs());
    s.Bind(finding.reference);
    if (const int code = s.Step(); code != kSqlDone) {
      return Error(code, "cannot record a finding's state");
    }
    if (db_->Changes() == 0) {
      return absl::NotFoundError(
          absl::StrCat("no discovery finding ", finding.reference));
    }
    if (resolve) {
      SqlStatement r(*db_,
                     "UPDATE incidents SET note = ?, reviewed_by = ?, "
                     "reviewed_ms = ?, workflow = 'resolved' WHERE id = ?");
      r.Bind(finding.detail).Bind(user).Bind(NowUnixMs());
      r.Bind(finding.incident_id);
      if (const int code = r.Step(); code != kSqlDone) {
        return Error(code, "cannot resolve a finding's incident");
      }
    }
    if (review.empty()) return absl::OkStatus();
    const std::string detail = absl::StrCat(
        finding.path, ": ", finding.state, finding.detail.empty() ? "" : " (",
        finding.detail, finding.detail.empty() ? "" : ")");
    if (absl::Status st =
            EnqueueReview(finding.incident_id, review, user, detail);
        !st.ok()) {
      return st;
    }
    return Audit(user, review, finding.incident_id, detail);
  });
}

absl::Status IncidentStore::PutDiscoverRun(const DiscoverRun& run) {
  SqlStatement s(*db_,
                 "INSERT INTO discover_runs (target, started_ms, finished_ms, "
                 "files_seen, files_to_read, files_read, findings, closed, "
                 "errors) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (target, "
                 "started_ms) DO UPDATE SET finished_ms = "
                 "excluded.finished_ms, files_seen = excluded.files_seen, "
                 "files_to_read = excluded.files_to_read, files_read = "
                 "excluded.files_read, findings = excluded.findings, closed = "
                 "excluded.closed, errors = excluded.errors");
  s.Bind(run.target).Bind(run.started_ms).Bind(run.finished_ms);
  s.Bind(run.seen).Bind(run.to_read).Bind(run.read).Bind(run.findings);
  s.Bind(run.closed).Bind(run.errors);
  if (const int code = s.Step(); code != kSqlDone) {
    return Error(code, "cannot record a discovery run");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DiscoverRun>> IncidentStore::LatestDiscoverRuns() {
  SqlStatement s(*db_,
                 "SELECT r.target, r.started_ms, r.finished_ms, r.files_seen, "
                 "r.files_to_read, r.files_read, r.findings, r.closed, "
                 "r.errors FROM "
                 "discover_runs r WHERE r.started_ms = (SELECT "
                 "max(started_ms) FROM discover_runs l WHERE l.target = "
                 "r.target) ORDER BY r.started_ms DESC");
  std::vector<DiscoverRun> out;
  int code;
  while ((code = s.Step()) == kSqlRow) {
    out.push_back({s.Text(0), s.Int(1), s.Int(2), s.Int(3), s.Int(4), s.Int(5),
                   s.Int(6), s.Int(7)});
  }
  if (code != kSqlDone) return Error(code, "cannot read discovery runs");
  return out;
}

absl::Status IncidentStore::PendCatalogue(
    const std::vector<CatalogueEntry>& entries) {
  if (entries.empty()) return absl::OkStatus();
  return InTransaction([&]() -> absl::Status {
    SqlStatement pend(
        *db_,
        "INSERT INTO discover_files (target, path, device, inode, size, "
        "mtime_ns, ctime_ns, digest, basis, verdict, reference, claim) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,'pending') ON CONFLICT (target, "
        "path) DO UPDATE SET claim = 'pending'");
    for (const CatalogueEntry& e : entries) {
      pend.Reset();
      pend.Bind(e.target).Bind(e.path).Bind(static_cast<int64_t>(e.device));
      pend.Bind(static_cast<int64_t>(e.inode));
      pend.Bind(static_cast<int64_t>(e.size)).Bind(e.mtime_ns);
      pend.Bind(e.ctime_ns).Bind(e.digest).Bind(e.basis).Bind(e.verdict);
      pend.Bind(e.reference);
      if (const int code = pend.Step(); code != kSqlDone) {
        return Error(code, "cannot hand files out");
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<CatalogueEntry>> IncidentStore::ClaimCatalogue(
    const std::string& target, const std::string& worker, size_t limit) {
  std::vector<CatalogueEntry> claimed;
  absl::Status s = InTransaction([&]() -> absl::Status {
    SqlStatement pick(*db_,
                      "SELECT target, path, device, inode, size, mtime_ns, "
                      "ctime_ns, digest, basis, verdict, reference FROM "
                      "discover_files WHERE target = ? AND claim = "
                      "'pending' ORDER BY path LIMIT ?");
    pick.Bind(target).Bind(static_cast<int64_t>(limit));
    std::vector<CatalogueEntry> picked;
    int code;
    while ((code = pick.Step()) == kSqlRow) {
      picked.push_back(
          {pick.Text(0), pick.Text(1), static_cast<uint64_t>(pick.Int(2)),
           static_cast<uint64_t>(pick.Int(3)),
           static_cast<uint64_t>(pick.Int(4)), pick.Int(5), pick.Int(6),
           pick.Text(7), pick.Text(8), pick.Text(9), pick.Text(10)});
    }
    if (code != kSqlDone) return Error(code, "cannot hand files out");
    // Another worker may have taken one since (PostgreSQL's rows are
    // locked only by the update): a row is ours if our update changed it.
    SqlStatement take(*db_,
                      "UPDATE discover_files SET claim = ? WHERE target = ? "
                      "AND path = ? AND claim = 'pending'");
    for (CatalogueEntry& e : picked) {
      take.Reset();
      take.Bind(worker).Bind(e.target).Bind(e.path);
      if (const int c = take.Step(); c != kSqlDone) {
        return Error(c, "cannot hand files out");
      }
      if (db_->Changes() == 1) claimed.push_back(std::move(e));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return claimed;
}

}  // namespace leakhound
