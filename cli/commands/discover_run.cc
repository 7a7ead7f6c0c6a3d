#include "cli/commands/discover_run.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/file_scan.h"
#include "cli/commands/input_files.h"
#include "cli/commands/ordered_work.h"
#include "cli/commands/progress_bar.h"
#include "cli/discover/crawl_plan.h"
#include "cli/discover/file_facts.h"
#include "cli/discover/remediation.h"
#include "cli/discover/share_walk.h"
#include "cli/gateway/data_facts.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/printable.h"
#include "cli/gateway/sendmail.h"
#include "cli/records/data_scanner.h"
#include "engine/content_digest.h"

namespace leakhound {
namespace {

// Files read ahead of the one being judged, per thread, at most.
constexpr size_t kAheadPerThread = 4;
// Catalogue entries written per transaction.
constexpr size_t kCatalogueBatch = 500;
// Logged findings written per transaction.
constexpr size_t kFindingBatch = 100;
// Files a worker claims at a time (`--claim`).
constexpr size_t kClaimBatch = 100;

bool Excluded(const DiscoverTarget& target, const std::string& path) {
  if (IsTombstone(path)) return true;
  const size_t slash = path.rfind('/');
  const std::string name =
      slash == std::string::npos ? path : path.substr(slash + 1);
  for (const std::string& glob : target.exclude) {
    if (::fnmatch(glob.c_str(), name.c_str(), 0) == 0 ||
        ::fnmatch(glob.c_str(), path.c_str(), FNM_PATHNAME) == 0) {
      return true;
    }
  }
  return false;
}

bool Under(const std::string& path, const std::string& folder) {
  return !folder.empty() && absl::StartsWith(path, folder + "/");
}

// The target's files (excluded ones, tombstones and the quarantine left
// out), each lstat'ed once; the folders that could not be listed come back
// in *unlisted.
std::vector<SeenFile> Walk(const DiscoverTarget& target,
                           const std::string& quarantine_dir,
                           std::vector<SeenFile>* unlisted) {
  ShareWalk walk = WalkShare(
      target.paths,
      [&target](const std::string& path) { return Excluded(target, path); },
      [&quarantine_dir](const std::string& path) {
        return !quarantine_dir.empty() &&
               (path == quarantine_dir || Under(path, quarantine_dir));
      });
  *unlisted = std::move(walk.unlisted);
  return std::move(walk.files);
}

// The notice an owner gets for a finding (notify-owner).
std::string OwnerNotice(const DiscoverFinding& f, const std::string& from,
                        const std::string& to) {
  return absl::StrCat(
      "From: leakhound <", from, ">\nTo: <", to,
      ">\nSubject: leakhound: a file of yours holds protected content\n"
      "Auto-Submitted: auto-generated\nContent-Type: text/plain; "
      "charset=utf-8\nMIME-Version: 1.0\n\nYour file\n\n  ",
      f.path, "\n\nquotes content the organisation protects and is ",
      f.exposure,
      ".\nPlease move it somewhere only the people who need it can read, "
      "or delete it.\nIncident: ",
      f.reference, "\n");
}

// One target's run: its state between the walk and the summary.
class TargetCrawl {
 public:
  TargetCrawl(const DiscoverTarget& target, const DiscoverRunOptions& o,
              const ProtectedIndex& index, IncidentStore& store)
      : target_(target), o_(o), index_(index), store_(store) {
    summary_.run.target = target.name;
    summary_.run.started_ms = NowUnixMs();
    run_id_ =
        absl::StrCat("discover-", target.name, "-", summary_.run.started_ms);
  }

  absl::StatusOr<TargetSummary> Run();

 private:
  // kClaim: reads what a plan handed out, a batch at a time.
  absl::StatusOr<TargetSummary> Claim();
  absl::Status PrepareScanners();
  absl::Status Recover();
  absl::Status ReadChanged(const CrawlPlan& plan);
  absl::Status Judge(const PlannedFile& p, FileOutcome& o);
  absl::Status NewFinding(const PlannedFile& p, FileOutcome& o,
                          const Judgement& j, const VerdictFacts& facts);
  absl::Status Remediate(DiscoverFinding& f, Remediation r,
                         const PolicyRule* rule);
  absl::Status Close(const std::string& reference, const std::string& why);
  absl::Status Catalogue(CatalogueEntry e);
  // Writes the logged findings waiting (logged_), then the catalogue.
  absl::Status FlushFindings();
  absl::Status FlushCatalogue();
  absl::Status Forget(const CrawlPlan& plan,
                      const std::vector<SeenFile>& unlisted);
  void Error(const std::string& path, const absl::Status& s) {
    ++summary_.run.errors;
    ReportError("discover", s, path);
  }
  void Say(const std::string& line) {
    if (!o_.quiet) std::printf("%s\n", line.c_str());
  }

  const DiscoverTarget& target_;
  const DiscoverRunOptions& o_;
  const ProtectedIndex& index_;
  IncidentStore& store_;
  std::string run_id_;
  TargetSummary summary_;
  std::vector<CatalogueEntry> pending_;  // not written yet
  std::vector<std::string> gone_;        // paths to drop, not dropped yet
  std::vector<IncidentStore::NewFinding> logged_;  // not written yet
  // One per reading thread, made once (PrepareScanners).
  std::vector<std::unique_ptr<LeakScanner>> scanners_;
  std::unique_ptr<DataScanner> data_;
  std::vector<std::unique_ptr<DataScanner::Session>> sessions_;
};

absl::StatusOr<TargetSummary> TargetCrawl::Run() {
  if (o_.mode == DiscoverRunOptions::Mode::kClaim) return Claim();
  if (absl::Status s = Recover(); !s.ok()) return s;
  std::vector<SeenFile> unlisted;
  std::vector<SeenFile> seen =
      Walk(target_, o_.policy->discover.quarantine_dir, &unlisted);
  for (const SeenFile& u : unlisted) Error(u.path, u.problem);
  auto catalogue = store_.Catalogue(target_.name);
  if (!catalogue.ok()) return catalogue.status();
  const CrawlPlan plan =
      PlanCrawl(std::move(seen), *std::move(catalogue), o_.basis);
  summary_.run.seen = static_cast<int64_t>(plan.files.size());
  summary_.run.to_read = static_cast<int64_t>(plan.to_read);
  summary_.unchanged = plan.files.size() - plan.to_read;
  summary_.basis_changed = plan.basis_changed;
  if (o_.mode == DiscoverRunOptions::Mode::kPlan) {
    // What workers read (Claim); the finishing run records the run.
    if (absl::Status s = Forget(plan, unlisted); !s.ok()) return s;
    if (absl::Status s = FlushCatalogue(); !s.ok()) return s;
    std::vector<CatalogueEntry> out;
    for (const PlannedFile& p : plan.files) {
      if (p.reason == ReadReason::kUnchanged) continue;
      out.push_back(p.last ? *p.last
                           : EntryOf(target_.name, p.file, "", "", "new", ""));
    }
    if (absl::Status s = store_.PendCatalogue(out); !s.ok()) return s;
    return summary_;
  }
  // Written as it goes (each catalogue batch), for the console.
  if (absl::Status s = store_.PutDiscoverRun(summary_.run); !s.ok()) return s;
  if (absl::Status s = ReadChanged(plan); !s.ok()) return s;
  if (absl::Status s = Forget(plan, unlisted); !s.ok()) return s;
  if (absl::Status s = FlushCatalogue(); !s.ok()) return s;
  summary_.run.finished_ms = NowUnixMs();
  if (absl::Status s = store_.PutDiscoverRun(summary_.run); !s.ok()) return s;
  return summary_;
}

absl::StatusOr<TargetSummary> TargetCrawl::Claim() {
  for (;;) {
    auto batch = store_.ClaimCatalogue(target_.name, o_.worker, kClaimBatch);
    if (!batch.ok()) return batch.status();
    if (batch->empty()) break;
    CrawlPlan plan;
    for (CatalogueEntry& e : *batch) {
      auto facts = StatFile(e.path);
      // Gone since the plan: the finishing run drops it.
      if (absl::IsNotFound(facts.status())) continue;
      PlannedFile p;
      p.file.path = e.path;
      if (facts.ok()) {
        p.file.facts = *std::move(facts);
      } else {
        p.file.problem = facts.status();
      }
      p.reason = ReadReason::kChanged;
      if (e.verdict != "new") p.last = std::move(e);
      plan.files.push_back(std::move(p));
    }
    summary_.run.to_read += static_cast<int64_t>(plan.files.size());
    if (absl::Status s = ReadChanged(plan); !s.ok()) return s;
    if (absl::Status s = FlushCatalogue(); !s.ok()) return s;
  }
  summary_.run.finished_ms = NowUnixMs();
  return summary_;
}

// Quarantines a kill interrupted: finished (the file in quarantine, its
// tombstone written) or, when the file never left, moved again.
absl::Status TargetCrawl::Recover() {
  auto moving = store_.Findings(target_.name, {"quarantining"});
  if (!moving.ok()) return moving.status();
  for (DiscoverFinding& f : *moving) {
    const std::string text = TombstoneText(f, "", "(interrupted run)");
    auto done = CompleteQuarantine(f, text);
    if (done.ok() && !*done) {
      absl::Status s = MoveToQuarantine(f, text);
      done = s.ok() ? absl::StatusOr<bool>(true) : s;
    }
    if (!done.ok()) {
      Error(f.path, done.status());
      continue;
    }
    f.state = "quarantined";
    f.detail = "an interrupted quarantine was finished";
    if (absl::Status s = store_.UpdateFinding(f, "quarantined", o_.user);
        !s.ok()) {
      return s;
    }
    ++summary_.recovered;
    Say(absl::StrCat("finding ", f.reference, " ", Printable(f.path),
                     ": an interrupted quarantine finished"));
  }
  return absl::OkStatus();
}

absl::Status TargetCrawl::ReadChanged(const CrawlPlan& plan) {
  std::vector<const PlannedFile*> reads;
  uint64_t bytes = 0;
  for (const PlannedFile& p : plan.files) {
    if (p.reason == ReadReason::kUnchanged) continue;
    reads.push_back(&p);
    bytes += p.file.facts.size;
  }
  if (absl::Status s = PrepareScanners(); !s.ok()) return s;
  const size_t workers =
      std::max<size_t>(1, std::min(scanners_.size(), reads.size()));
  std::optional<ProgressBar> bar;
  if (o_.progress) bar.emplace(reads.size(), bytes);
  absl::Status failed;
  uint64_t done_bytes = 0;
  RunInOrder<FileOutcome>(
      reads.size(), workers, workers * kAheadPerThread,
      [&](size_t i, size_t w) {
        const PlannedFile& p = *reads[i];
        InputFile file{p.file.path, p.file.path};
        file.walked = true;
        file.problem = p.file.problem;
        return ScanOne(file, scanners_[w].get(), *data_, *sessions_[w],
                       o_.limits,
                       /*keep_text=*/true, nullptr, UnreadablePolicy::kSkip,
                       FileRecord::kFastHash);
      },
      [&](size_t i, FileOutcome o) {
        if (bar) bar->Clear();
        if (failed.ok()) failed = Judge(*reads[i], o);
        ++summary_.run.read;
        done_bytes += reads[i]->file.facts.size;
        if (bar) bar->Update(i + 1, done_bytes);
      });
  if (bar) bar->Clear();
  return failed;
}

absl::Status TargetCrawl::PrepareScanners() {
  if (data_ != nullptr) return absl::OkStatus();
  for (size_t i = 0; i < std::max<size_t>(1, o_.threads); ++i) {
    auto scanner = LeakScanner::Create(index_, o_.match);
    if (!scanner.ok()) return scanner.status();
    scanners_.push_back(std::move(*scanner));
  }
  auto identifiers = PolicyIdentifiers(o_.policy);
  if (!identifiers.ok()) return identifiers.status();
  auto data =
      DataScanner::Create(*std::move(identifiers), index_.record_tables(),
                          &index_.store(), index_.store().key());
  if (!data.ok()) return data.status();
  data_ = *std::move(data);
  for (size_t i = 0; i < scanners_.size(); ++i) {
    auto session = data_->NewSession();
    if (!session.ok()) return session.status();
    sessions_.push_back(std::move(*session));
  }
  return absl::OkStatus();
}

// The verdict of file `p` read now: catalogued, and a finding recorded
// and remediated, or an earlier one closed.
absl::Status TargetCrawl::Judge(const PlannedFile& p, FileOutcome& o) {
  const std::string had = p.last ? p.last->reference : "";
  if (!o.error.ok()) {
    Error(p.file.path, o.error);
    return Catalogue(EntryOf(target_.name, p.file, "", o_.basis, "error", had));
  }
  VerdictFacts facts = OutcomeFacts(index_, o);
  facts.channel = "discover";
  const Judgement j = JudgeFacts(*o_.policy, facts, OutcomeKind(facts),
                                 DefaultsFor(facts.channel));
  const bool finding = OutcomeKind(facts) == MessageVerdict::Kind::kLeak ||
                       !j.decision.matches.empty();
  if (finding && !had.empty()) {
    // Still quoting: the open finding stands for it.
    return Catalogue(
        EntryOf(target_.name, p.file, o.digest, o_.basis, "leak", had));
  }
  if (finding) return NewFinding(p, o, j, facts);
  if (!had.empty()) {
    if (absl::Status s =
            Close(had, "the file no longer quotes protected content");
        !s.ok()) {
      return s;
    }
  }
  return Catalogue(EntryOf(target_.name, p.file, o.digest, o_.basis,
                           o.skipped.empty() ? "clean" : "unread", ""));
}

absl::Status TargetCrawl::NewFinding(const PlannedFile& p, FileOutcome& o,
                                     const Judgement& j,
                                     const VerdictFacts& facts) {
  const Remediation r = RemediationOf(j.decision);
  Incident incident = ScanIncident(o, index_, run_id_, o_.snippets);
  incident.source = "discover";
  incident.action = RemediationName(r);
  incident.policy = o_.policy->path;
  DecisionRecord record = RecordOf(j.decision, facts.documents);
  incident.severity = std::move(record.severity);
  incident.rules = std::move(record.rules);
  // A discovery rule's action is its remediation, not a mail disposition.
  for (IncidentRule& recorded : incident.rules) {
    for (const RuleMatch& m : j.decision.matches) {
      if (m.rule->name == recorded.rule &&
          m.rule->remediation != Remediation::kNone) {
        recorded.action = RemediationName(m.rule->remediation);
      }
    }
  }
  incident.would_action = std::move(record.would_action);
  incident.facts = FactsRecord(facts);
  // The incident names the file by its SHA-256, read again for a finding
  // alone (the catalogue's hash is a fast one).
  if (auto bytes = ReadFileBounded(p.file.path, o_.limits.max_input_bytes);
      bytes.ok()) {
    incident.sha256 = absl::BytesToHexString(ContentDigest(*bytes));
  }
  FileFacts ff = p.file.facts;
  NameOwner(&ff);
  DiscoverFinding f;
  f.target = target_.name;
  f.path = p.file.path;
  f.owner = ff.owner;
  f.group = ff.group;
  f.uid = ff.uid;
  f.gid = ff.gid;
  f.mode = ff.mode;
  f.mtime_ms = ff.mtime_ns / 1'000'000;
  f.size = ff.size;
  f.exposure = ExposureOf(p.file.path, ff);
  f.remediation = RemediationName(r);
  f.state = "open";
  f.updated_ms = NowUnixMs();
  incident.detail = absl::StrCat("owner ", f.owner, ":", f.group, ", mode ",
                                 ModeText(f.mode), ", ", f.exposure);
  const CatalogueEntry entry =
      EntryOf(target_.name, p.file, o.digest, o_.basis, "leak", "");
  ++summary_.run.findings;
  if (r == Remediation::kLog || r == Remediation::kNone) {
    // Nothing done to the file: recorded with others in one transaction.
    ++summary_.logged;
    Say(absl::StrCat("finding ", incident.reference, " ", Printable(f.path),
                     ": logged; ", f.exposure));
    logged_.push_back({std::move(incident), std::move(f), entry, "logged"});
    return logged_.size() >= kFindingBatch ? FlushFindings() : absl::OkStatus();
  }
  if (absl::Status s = store_.InsertFinding(incident, f, entry); !s.ok()) {
    return s;
  }
  const PolicyRule* rule = j.decision.deciding;
  for (const RuleMatch& m : j.decision.matches) {
    if (!m.rule->monitor && m.rule->remediation == r) rule = m.rule;
  }
  return Remediate(f, r, rule);
}

absl::Status TargetCrawl::Remediate(DiscoverFinding& f, Remediation r,
                                    const PolicyRule* rule) {
  const DiscoverSettings& d = o_.policy->discover;
  std::string review = "logged";
  if (r == Remediation::kQuarantine && d.quarantine_dir.empty()) {
    f.detail = "not quarantined: [discover] sets no quarantine_dir";
  } else if (r == Remediation::kQuarantine) {
    f.quarantine_path =
        QuarantinePathFor(d.quarantine_dir, f.reference, f.path);
    f.state = "quarantining";
    if (absl::Status s = store_.UpdateFinding(f, "", o_.user); !s.ok()) {
      return s;
    }
    absl::Status moved =
        MoveToQuarantine(f, TombstoneText(f, rule ? rule->tombstone : "",
                                          rule ? rule->name : "(none)"));
    if (!moved.ok()) {
      // Finished or rolled back by the next run (Recover).
      Error(f.path, moved);
      return absl::OkStatus();
    }
    f.state = "quarantined";
    review = "quarantined";
    ++summary_.quarantined;
    gone_.push_back(f.path);  // gone from its place
  } else if (r == Remediation::kRestrict) {
    absl::Status s = RestrictFile(f);
    if (!s.ok()) {
      Error(f.path, s);
      f.detail = absl::StrCat("not restricted: ", s.message());
    } else {
      f.state = "restricted";
      review = "restricted";
      ++summary_.restricted;
      // Its ctime moved: catalogued as it is now, it is not read again.
      if (auto now = StatFile(f.path); now.ok()) {
        CatalogueEntry e = EntryOf(target_.name, SeenFile{f.path, *now, {}}, "",
                                   o_.basis, "leak", f.reference);
        pending_.push_back(std::move(e));
      }
    }
  } else if (r == Remediation::kNotifyOwner) {
    const std::string to = absl::StrReplaceAll(d.owner_mail, {{"%u", f.owner}});
    absl::Status s =
        d.owner_mail.empty()
            ? absl::FailedPreconditionError("[discover] sets no owner_mail")
        : o_.sendmail.empty()
            ? absl::FailedPreconditionError("no --sendmail")
            : SendMail(o_.sendmail, to, OwnerNotice(f, d.from, to));
    f.detail = s.ok() ? absl::StrCat("owner told at ", to)
                      : absl::StrCat("owner not told: ", s.message());
    review = "owner-notified";
    if (s.ok()) ++summary_.notified;
  }
  Say(absl::StrCat("finding ", f.reference, " ", Printable(f.path), ": ",
                   review, f.detail.empty() ? "" : " (" + f.detail + ")", "; ",
                   f.exposure));
  return store_.UpdateFinding(f, review, o_.user);
}

absl::Status TargetCrawl::Close(const std::string& reference,
                                const std::string& why) {
  auto f = store_.Finding(reference);
  if (absl::IsNotFound(f.status())) return absl::OkStatus();
  if (!f.ok()) return f.status();
  if (f->state != "open" && f->state != "restricted") return absl::OkStatus();
  f->state = "closed";
  f->detail = why;
  ++summary_.run.closed;
  Say(absl::StrCat("finding ", f->reference, " ", Printable(f->path),
                   ": closed, ", why));
  return store_.UpdateFinding(*f, "closed", o_.user, /*resolve=*/true);
}

absl::Status TargetCrawl::Catalogue(CatalogueEntry e) {
  pending_.push_back(std::move(e));
  return pending_.size() >= kCatalogueBatch ? FlushCatalogue()
                                            : absl::OkStatus();
}

absl::Status TargetCrawl::FlushFindings() {
  absl::Status s = store_.InsertFindings(logged_, o_.user);
  logged_.clear();
  return s;
}

absl::Status TargetCrawl::FlushCatalogue() {
  if (absl::Status s = FlushFindings(); !s.ok()) return s;
  std::vector<CatalogueEntry> gone;
  for (std::string& path : gone_) {
    CatalogueEntry e;
    e.target = target_.name;
    e.path = std::move(path);
    gone.push_back(std::move(e));
  }
  gone_.clear();
  absl::Status s = store_.PutCatalogue(pending_, gone);
  pending_.clear();
  if (s.ok() && o_.mode == DiscoverRunOptions::Mode::kWhole) {
    s = store_.PutDiscoverRun(summary_.run);  // progress, for the console
  }
  return s;
}

// The catalogue's files not found now: their open findings are closed
// (a quarantined file is gone by design), their entries dropped. Entries
// under a folder that could not be listed are kept as they were.
absl::Status TargetCrawl::Forget(const CrawlPlan& plan,
                                 const std::vector<SeenFile>& unlisted) {
  for (const CatalogueEntry& e : plan.gone) {
    if (std::any_of(unlisted.begin(), unlisted.end(),
                    [&](const SeenFile& u) { return Under(e.path, u.path); })) {
      continue;
    }
    if (!e.reference.empty()) {
      if (absl::Status s = Close(e.reference, "the file is gone"); !s.ok()) {
        return s;
      }
    }
    gone_.push_back(e.path);
  }
  return absl::OkStatus();
}

}  // namespace

std::string DiscoverBasis(const ProtectedIndex& index,
                          std::string_view policy_bytes) {
  return absl::BytesToHexString(ContentDigest(absl::StrCat(
      "leakhound discover basis 1\n", index.generation(), "\n",
      ContentDigest(index.store().key()), ContentDigest(policy_bytes))));
}

absl::StatusOr<TargetSummary> RunDiscoverTarget(const DiscoverTarget& target,
                                                const DiscoverRunOptions& o,
                                                const ProtectedIndex& index,
                                                IncidentStore& store) {
  return TargetCrawl(target, o, index, store).Run();
}

}  // namespace leakhound
