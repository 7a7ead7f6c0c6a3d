// IncidentStore: the incident desk's database (docs/storage_format.md, "The
// incident store"): incidents with their matches, the review and mail
// actions taken on them, the console's users, the audit trail of every
// review action and the SIEM outbox. Two engines behind one interface
// (sql_connection.h), with one schema and one set of migrations:
//  - SQLite, the embedded default: one file in WAL mode, created
//    owner-only (0600), versioned with PRAGMA user_version. Several
//    processes may open one file at once: SQLite's locks order them, and a
//    writer waits up to the busy timeout, then gets Unavailable.
//  - PostgreSQL, the shared desk of a fleet (docs/fleet.md): a libpq URI;
//    the version is kept in the table leakhound_schema, and migrations are
//    serialised by an advisory lock.
//
// Thread-safety: not thread-safe; one IncidentStore per thread, or a
// mutex around it. Errors map to Status: busy, locked or the server
// unreachable -> Unavailable, disk full -> ResourceExhausted, a damaged
// file -> DataLoss, a store from a newer leakhound -> FailedPrecondition.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_STORE_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_STORE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/incidents/discover_records.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/outbox_event.h"
#include "cli/incidents/store_target.h"

namespace leakhound {

class SqlConnection;  // sql_connection.h
class SqlStatement;

// PERSISTED (PRAGMA user_version): the schema version this build writes.
inline constexpr int kIncidentSchemaVersion = 9;

struct IncidentFilter {
  int64_t since_ms = std::numeric_limits<int64_t>::min();  // time >= since
  int64_t until_ms = std::numeric_limits<int64_t>::max();  // time < until
  std::string status;                                      // "" any
  std::string action;
  std::string source;
  std::string kind;
  std::string sender;    // exact, without case
  std::string recipient; // one of the recipients, exact, without case
  std::string document;  // external id matched
  std::string severity;  // exact: info, low, medium, high
  std::string rule;      // a rule that matched, by name
  std::string reference;
  std::string workflow;              // new, in-review, escalated, resolved
  std::optional<std::string> owner;  // set: exactly ("": unowned)
  size_t limit = 50;     // newest first
  size_t offset = 0;
};

// A console user. Role, PERSISTED: "viewer", "reviewer" or "admin".
struct ConsoleUser {
  std::string name;
  std::string role;
  std::string password_hash;  // crypto_pwhash_str's encoded string
  int64_t created_ms = 0;
};

struct AuditEntry {
  int64_t id = 0;
  int64_t time_ms = 0;
  std::string user;
  std::string action;
  int64_t incident_id = 0;  // 0: none
  std::string detail;
};

// A comment on an incident's case.
struct CaseComment {
  int64_t id = 0;
  int64_t time_ms = 0;
  std::string user;
  std::string text;
};

// An override used in a period (OverridesUsed), with its incident's
// reference, source and sender.
struct UsedOverride {
  int64_t incident_id = 0;
  std::string reference;
  std::string source;
  std::string sender;
  IncidentOverride override_used;
};

struct DayCount {
  int64_t day = 0;  // Unix day (ms / 86,400,000)
  std::string action;
  int64_t count = 0;
};

struct NamedCount {
  std::string name;
  int64_t count = 0;
};

// A destination of the outbox (docs/siem.md) as the store keeps it. The
// counters are totals since it was registered; queued = delivered +
// skipped + failed + dropped + pending.
struct OutboxDestinationState {
  std::string name;
  int64_t cursor = 0;     // the last event it is done with
  int64_t delivered = 0;  // sent and accepted
  int64_t skipped = 0;    // not for it (its severities, channels, events)
  int64_t failed = 0;     // refused for good (a webhook's 4xx)
  int64_t dropped = 0;    // pruned before it was sent (age or size bound)
  int64_t retried = 0;    // attempts that failed and were tried again
  int64_t pending = 0;    // waiting now
  int64_t oldest_pending_ms = 0;  // 0: none
  int64_t last_delivery_ms = 0;
  std::string last_error;
  int64_t last_error_ms = 0;
  std::string lease_owner;  // the sender delivering it ("" none)
  int64_t lease_until_ms = 0;
  // The last error while it still stands: none once a delivery followed it
  // (an outage's error is not shown after thousands of later deliveries).
  std::string current_error() const {
    return last_error_ms > last_delivery_ms ? last_error : "";
  }
  int64_t queued() const {
    return delivered + skipped + failed + dropped + pending;
  }
};

// A permanent failure of one event at one destination.
struct OutboxFailure {
  std::string destination;
  int64_t seq = 0;
  std::string event_id;
  int64_t time_ms = 0;
  std::string error;
};

// What a sender did with the events up to a cursor.
struct OutboxProgress {
  int64_t cursor = 0;  // REQUIRES: after the destination's cursor
  int64_t delivered = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  std::string error;  // a failure's reason (recorded with `failed`)
  std::string failed_event_id;
};

// A gateway as the desk sees it (docs/fleet.md): what it last reported.
struct NodeState {
  std::string name;     // unique in the fleet (--node-name; the host name)
  std::string role;     // PERSISTED: "milter", "icap", "scan", "writer"
  std::string version;  // leakhound's
  std::string host;
  int64_t pid = 0;
  int64_t started_ms = 0;
  int64_t heartbeat_ms = 0;  // the node's clock
  int64_t index_generation = 0;
  int64_t index_documents = 0;
  // When it first reported this generation (its heartbeat's time; kept by
  // Heartbeat while the generation stays).
  int64_t generation_ms = 0;
  std::string policy_digest;   // SHA-256 of the policy text in force
  int64_t policy_version = 0;  // the desk's version it runs (0: a file)
  int64_t spool_depth = 0;     // incidents waiting in its local spool
  int64_t spool_oldest_ms = 0;
};

// A policy as published to the desk: PublishPolicy's number, rising.
struct PolicyVersion {
  int64_t version = 0;
  int64_t time_ms = 0;
  std::string author;
  std::string digest;  // SHA-256 of body, hex
  std::string comment;
  std::string body;  // the TOML text (empty in PolicyVersions' list)
};

// A release or delete of held mail asked from the desk, for the node
// whose queue holds it. State, PERSISTED: "pending" (waiting for the
// node), "running" (taken by it), "done", "failed".
struct MailRequest {
  int64_t id = 0;
  int64_t time_ms = 0;
  std::string node;
  int64_t incident_id = 0;
  std::string queue_id;
  std::string action;  // PERSISTED: "release", "delete"
  std::string requested_by;
  std::string state;
  std::string detail;  // the node's result, or why it failed
  int64_t done_ms = 0;
};

class IncidentStore {
 public:
  struct Options {
    // A missing file is created (else NotFound).
    bool create = true;
    // How long a statement waits for another process's lock (PostgreSQL:
    // lock_timeout).
    int busy_timeout_ms = 5000;
  };

  // Opens (or creates) the store at `path`, migrating an older schema:
  // a SQLite file, or a PostgreSQL database named by a libpq URI
  // (postgresql://... or postgres://...; IsDatabaseUri), whose tables are
  // created in it (Options::create does not apply: the database exists).
  static absl::StatusOr<std::unique_ptr<IncidentStore>> Open(
      const std::string& path, const Options& options);
  static absl::StatusOr<std::unique_ptr<IncidentStore>> Open(
      const std::string& path) {
    return Open(path, Options());
  }
  ~IncidentStore();

  IncidentStore(const IncidentStore&) = delete;
  IncidentStore& operator=(const IncidentStore&) = delete;

  // The file or URI it was opened with; display RedactedTarget(path()).
  const std::string& path() const { return path_; }

  // Makes the statement running now on this store's connection fail
  // (SqlConnection::Interrupt); the one method another thread may call
  // while a call runs.
  void Interrupt();

  // Writes `incidents` in one transaction and sets their ids; all or none.
  // An incident whose uid is stored already is not written again (nor
  // queued for the outbox): it gets the stored one's id.
  absl::Status Insert(std::span<Incident> incidents);

  // Incidents matching `filter`, newest first, with their rules and facts
  // but without their matches (documents is filled). At most filter.limit.
  absl::StatusOr<std::vector<Incident>> List(const IncidentFilter& filter);
  // How many incidents match `filter` (limit and offset ignored).
  absl::StatusOr<int64_t> Count(const IncidentFilter& filter);

  // Every incident matching `filter` (limit ignored), newest first, with
  // its rules and facts, and its matches (kDecision: only for an incident
  // without facts, from before they were kept); stops at the first error
  // `fn` returns.
  enum class Load { kAll, kDecision };
  absl::Status ForEach(const IncidentFilter& filter,
                       const std::function<absl::Status(const Incident&)>& fn,
                       Load load = Load::kAll);

  // One incident with its matches, rules and facts; NotFound.
  absl::StatusOr<Incident> Get(int64_t id);

  // Sets the review: status "confirmed", "false-positive", "authorised"
  // (the case is then resolved) or "open" (back to in review, or new
  // without an owner); InvalidArgument otherwise; note and reviewer;
  // audited and queued as a review "resolved". NotFound.
  absl::Status Resolve(int64_t id, const std::string& status,
                       const std::string& note, const std::string& user);

  // Cases (incident_store_cases.cc). Each change is audited and queued for
  // the SIEM as a review event; NotFound for an unknown incident.
  //
  // Gives the case to `owner` ("": nobody): a new case goes in review, an
  // unowned one in review goes back to new. Review "assigned".
  absl::Status Assign(int64_t id, const std::string& owner,
                      const std::string& user);
  // Adds `text` (not empty: InvalidArgument) to the case's comments.
  // Review "commented".
  absl::Status AddComment(int64_t id, const std::string& text,
                          const std::string& user);
  absl::StatusOr<std::vector<CaseComment>> Comments(int64_t id);
  // Escalates the case to `to` (a group or addresses, as told) with
  // `reason`: workflow "escalated". FailedPrecondition for a resolved
  // one. Review "escalated".
  absl::Status Escalate(int64_t id, const std::string& to,
                        const std::string& reason, const std::string& user);

  // Records what was done with the held mail (mail_state) and audits it
  // with `detail`. NotFound.
  absl::Status SetMailState(int64_t id, const std::string& state,
                            const std::string& user, const std::string& detail);

  // Deletes incidents older than `before_ms` with their matches; audited.
  // Returns how many.
  absl::StatusOr<int64_t> Purge(int64_t before_ms, const std::string& user);

  // An admin's change of the configuration outside incidents (a
  // document's labels, from the console): audited as `action` with
  // `detail`, and queued for the SIEM destinations as a review event
  // `review` ("labelled") in the same transaction.
  absl::Status AuditChange(const std::string& user, const std::string& action,
                           const std::string& review,
                           const std::string& detail);

  // Appends to the audit table.
  absl::Status Audit(const std::string& user, const std::string& action,
                     int64_t incident_id, const std::string& detail);
  absl::StatusOr<std::vector<AuditEntry>> AuditTrail(int64_t incident_id,
                                                     size_t limit);

  // Users. PutUser creates or replaces; RemoveUser: NotFound. GetUser and
  // RemoveUser find a name in any case (ASCII): `ada` and `ADA` are one
  // user, under the name it was added with.
  absl::Status PutUser(const ConsoleUser& user);
  absl::Status RemoveUser(const std::string& name);
  absl::StatusOr<std::optional<ConsoleUser>> GetUser(const std::string& name);
  absl::StatusOr<std::vector<ConsoleUser>> ListUsers();

  // The dashboard's figures since `since_ms`.
  absl::StatusOr<std::vector<DayCount>> PerDay(int64_t since_ms);
  absl::StatusOr<std::vector<NamedCount>> TopDocuments(int64_t since_ms,
                                                       size_t n);
  absl::StatusOr<std::vector<NamedCount>> TopSenders(int64_t since_ms,
                                                     size_t n);

  // Incidents since `since_ms` per severity (those a rule matched), and
  // per rule that matched (the n most frequent).
  absl::StatusOr<std::vector<NamedCount>> PerSeverity(int64_t since_ms);
  absl::StatusOr<std::vector<NamedCount>> PerRule(int64_t since_ms, size_t n);

  // The outbox (docs/siem.md). Insert, Resolve, SetMailState and Purge
  // queue their events in their own transaction when a destination is
  // registered (none registered: nothing is queued). A destination reads
  // the events after its cursor in order; one sender at a time holds its
  // lease.
  //
  // Registers `name` (idempotent); a new one starts after the newest event.
  absl::Status RegisterDestination(const std::string& name);
  // Forgets `name` and its counters; NotFound.
  absl::Status ForgetDestination(const std::string& name);
  // Takes or renews the lease of `name` for `owner` until `until_ms` when
  // it is free, expired (before `now_ms`), `owner`'s already, or held by
  // `stale_owner` (non-empty: a sender known dead). Returns who holds it
  // after the attempt (`owner` when taken). NotFound.
  absl::StatusOr<std::string> TakeLease(const std::string& name,
                                        const std::string& owner,
                                        int64_t now_ms, int64_t until_ms,
                                        const std::string& stale_owner);
  // Gives the lease of `name` up if `owner` holds it.
  absl::Status ReleaseLease(const std::string& name, const std::string& owner);
  // At most `limit` events after `name`'s cursor, in order.
  absl::StatusOr<std::vector<OutboxEvent>> PendingEvents(
      const std::string& name, size_t limit);
  // Moves `name`'s cursor and counters by `progress` (a failure is also
  // kept in the failures list, the newest 1,000). FailedPrecondition when
  // `owner` no longer holds the lease (nothing changes).
  absl::Status Advance(const std::string& name, const std::string& owner,
                       const OutboxProgress& progress);
  // Counts a failed attempt that will be retried, with its reason.
  absl::Status NoteRetry(const std::string& name, const std::string& owner,
                         const std::string& error);
  // Deletes the events every destination is done with, those queued
  // before `before_ms`, and the oldest beyond `max_events`; the ones a
  // destination had not sent count as its drops. Returns the drops.
  absl::StatusOr<int64_t> PruneOutbox(int64_t before_ms, int64_t max_events);
  // Every registered destination, by name.
  absl::StatusOr<std::vector<OutboxDestinationState>> OutboxStates();
  // The newest permanent failures, newest first.
  absl::StatusOr<std::vector<OutboxFailure>> OutboxFailures(size_t limit);
  // Events in the outbox now (for tests and the dashboard).
  absl::StatusOr<int64_t> OutboxSize();

  // The fleet (docs/fleet.md; incident_store_fleet.cc).
  //
  // Records what `node` reports (by name: created or replaced).
  absl::Status Heartbeat(const NodeState& node);
  // Every node, by name.
  absl::StatusOr<std::vector<NodeState>> Nodes();
  // Stores `body` as the newest published policy and audits it; returns
  // its version. REQUIRES: the caller has checked it.
  absl::StatusOr<int64_t> PublishPolicy(const std::string& body,
                                        const std::string& digest,
                                        const std::string& author,
                                        const std::string& comment);
  // The newest `limit` published versions, newest first, without bodies.
  absl::StatusOr<std::vector<PolicyVersion>> PolicyVersions(size_t limit);
  // Version `version` with its body (0: the newest); NotFound.
  absl::StatusOr<PolicyVersion> GetPolicyVersion(int64_t version);
  // Asks the node that holds incident `incident_id`'s mail to `action`
  // ("release", "delete") it; audited. FailedPrecondition when the mail is
  // not held, no node is recorded for it, or a request is open. NotFound.
  // Returns the request's id.
  absl::StatusOr<int64_t> RequestMail(int64_t incident_id,
                                      const std::string& action,
                                      const std::string& user);
  // Takes up to `limit` of `node`'s pending requests, oldest first: they
  // become "running" in the same transaction, so no two takers run one.
  absl::StatusOr<std::vector<MailRequest>> TakeMailRequests(
      const std::string& node, size_t limit);
  // Records a running request's result: "done" (the incident's mail_state
  // becomes released or deleted) or "failed", with `detail`; audited as
  // `node`'s. FailedPrecondition when it is not running.
  absl::Status FinishMailRequest(int64_t id, bool done,
                                 const std::string& detail,
                                 const std::string& node);
  // The requests of incident `incident_id` (0: of every incident), newest
  // first.
  absl::StatusOr<std::vector<MailRequest>> MailRequests(int64_t incident_id,
                                                        size_t limit);

  // Overrides (docs/overrides.md; incident_store_overrides.cc).
  //
  // Uses incident `id`'s override: FailedPrecondition when none was
  // offered, it was used or revoked, it expired (before `use.time_ms`),
  // the justification has fewer characters than the offer asks (a
  // "justify" offer), or the sender used per_day overrides in the 24 hours
  // before. Else it becomes "used" with `use`'s who, text, address and
  // time, audited and queued for the SIEM as a review "overridden", all in
  // one transaction. NotFound.
  absl::Status UseOverride(int64_t id, const IncidentOverride& use);
  // Revokes incident `id`'s pending override for `user` (a reviewer):
  // audited, and queued as a review "override-revoked".
  // FailedPrecondition when none is pending. NotFound.
  absl::Status RevokeOverride(int64_t id, const std::string& user);
  // The grant of a blocked upload's override (docs/overrides.md) for
  // `user`'s retry of the same body (`digest`, SHA-256 hex) to `host`:
  // granted (the override used), not retried yet, and its retry window
  // open at `now_ms`. Taken in one transaction (at most one retry per
  // grant), audited as "override retried". nullopt when there is none.
  absl::StatusOr<std::optional<WebGrant>> TakeWebGrant(
      const std::string& user, const std::string& host,
      const std::string& digest, int64_t now_ms);
  // The overrides used (state "used") from `since_ms` to before
  // `until_ms`, oldest first, at most `limit`.
  absl::StatusOr<std::vector<UsedOverride>> OverridesUsed(int64_t since_ms,
                                                          int64_t until_ms,
                                                          size_t limit);
  // The drip ledger (docs/policy.md, "Cumulative"). AddDripSpans stores
  // `spans` in one transaction (a span the sender sent before, the same
  // range of the same target, is moved to this message rather than
  // stored twice); DripSpans reads those of sender `key` (or,
  // `by_domain`, of the domain `key`) on `targets` from `since_ms` to
  // `until_ms` inclusive, oldest first; ExpireDripSpans deletes those
  // older than `before_ms` (Purge does too) and says how many.
  absl::Status AddDripSpans(const std::vector<DripSpan>& spans);
  absl::StatusOr<std::vector<DripSpan>> DripSpans(
      bool by_domain, const std::string& key,
      const std::vector<std::string>& targets, int64_t since_ms,
      int64_t until_ms);
  absl::StatusOr<int64_t> ExpireDripSpans(int64_t before_ms);

  // Discovery (incident_store_discover.cc, docs/discover.md).
  // The catalogue of `target`, by path.
  absl::StatusOr<std::vector<CatalogueEntry>> Catalogue(
      const std::string& target);
  // Writes (inserts or replaces) `entries` and deletes the (target, path)
  // of `gone`, in one transaction.
  absl::Status PutCatalogue(const std::vector<CatalogueEntry>& entries,
                            const std::vector<CatalogueEntry>& gone);
  // A new finding: its incident (id set), the finding (incident_id set)
  // and the file's catalogue entry, in one transaction: a run killed
  // before it commits reads the file again, never records it twice.
  absl::Status InsertFinding(Incident& incident, DiscoverFinding& finding,
                             const CatalogueEntry& entry);
  // Many at once, in one transaction (ids set, all or none); each with a
  // `review` is audited as it by `user` (not queued: the incident's own
  // event tells the SIEM).
  struct NewFinding {
    Incident incident;
    DiscoverFinding finding;
    CatalogueEntry entry;
    std::string review;  // "": not audited
  };
  absl::Status InsertFindings(std::vector<NewFinding>& batch,
                              const std::string& user);
  // Findings of `target` ("": all) in `states` (empty: any), by path.
  absl::StatusOr<std::vector<DiscoverFinding>> Findings(
      const std::string& target, const std::vector<std::string>& states);
  // The finding of incident reference `reference`, or of incident id
  // `reference` given as digits; NotFound.
  absl::StatusOr<DiscoverFinding> Finding(const std::string& reference);
  // Stores `finding`'s state, paths and detail; when `review` is not
  // empty, audits it as `review` by `user` and queues it for the SIEM, in
  // the same transaction; with `resolve`, the incident's case is
  // resolved (its review status kept) with `detail` as its note.
  absl::Status UpdateFinding(const DiscoverFinding& finding,
                             const std::string& review, const std::string& user,
                             bool resolve = false);
  // Files handed out to workers (`discover run --plan`, then `--claim`):
  // marks each of `entries` pending, inserting those not catalogued yet
  // (verdict "new"). ClaimCatalogue takes up to `limit` pending files of
  // `target` for `worker`, atomically: two workers never get one file.
  // PutCatalogue clears a file's claim (it is judged).
  absl::Status PendCatalogue(const std::vector<CatalogueEntry>& entries);
  absl::StatusOr<std::vector<CatalogueEntry>> ClaimCatalogue(
      const std::string& target, const std::string& worker, size_t limit);
  // Writes or updates the run (target, started_ms) as it goes.
  absl::Status PutDiscoverRun(const DiscoverRun& run);
  // The latest run of each target, newest first.
  absl::StatusOr<std::vector<DiscoverRun>> LatestDiscoverRuns();

  // When the scheduled report `name` was last sent (0: never), and
  // noting that it was sent at `sent_ms`.
  absl::StatusOr<int64_t> ReportSent(const std::string& name);
  absl::Status NoteReportSent(const std::string& name, int64_t sent_ms);
  // Records that the one-time link `nonce` of incident `id` was opened:
  // false when it was before (a link opens once).
  absl::StatusOr<bool> ConsumeOverrideLink(const std::string& nonce,
                                           int64_t id);

  // "ok" or the findings: SQLite's PRAGMA integrity_check; on PostgreSQL,
  // that every table reads (the server checks its own pages).
  absl::StatusOr<std::string> IntegrityCheck();
  int schema_version() const { return schema_version_; }

 private:
  IncidentStore(std::string path, std::unique_ptr<SqlConnection> db);
  absl::Status Migrate();
  absl::Status Exec(const char* sql);
  absl::Status Error(int code, const char* what) const;
  // Reads the incident's matches, rules and facts; its matches; its rules
  // and facts.
  absl::Status LoadMatches(Incident& incident);
  absl::Status LoadPassages(Incident& incident);
  absl::Status LoadDecision(Incident& incident);
  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back on error.
  absl::Status InTransaction(const std::function<absl::Status()>& body);
  absl::Status InsertAll(std::span<Incident> incidents);
  // The matches of `incident` (its id set).
  // `match`: the batch's prepared insert into matches.
  absl::Status InsertPassages(const Incident& incident, SqlStatement& match);
  // The rules and facts of `incident` (its id set).
  absl::Status InsertDecision(const Incident& incident);
  // The override offered with `incident` (its id set), if any.
  absl::Status InsertOverride(const Incident& incident);
  absl::Status LoadOverride(Incident& incident);
  // InsertFinding's work. REQUIRES: inside a transaction.
  absl::Status InsertFindingLocked(Incident& incident, DiscoverFinding& finding,
                                   const CatalogueEntry& entry);
  // PutCatalogue's work. REQUIRES: inside a transaction.
  absl::Status WriteCatalogue(const std::vector<CatalogueEntry>& entries,
                              const std::vector<CatalogueEntry>& gone);
  // SetMailState's work. REQUIRES: inside a transaction.
  absl::Status SetMailStateLocked(int64_t id, const std::string& state,
                                  const std::string& user,
                                  const std::string& detail);
  // Steps an UPDATE of incident `id`: NotFound when it changed no row.
  absl::Status UpdatedOne(SqlStatement& update, int64_t id);
  // When a destination is registered, queues the events `make` returns (it
  // is not called otherwise: a store without destinations does no work).
  // REQUIRES: inside a transaction.
  using EventMaker = std::function<absl::StatusOr<std::vector<OutboxEvent>>()>;
  absl::Status Enqueue(const EventMaker& make);
  // Queues the review `review` of incident `id` as it is now.
  absl::Status EnqueueReview(int64_t id, std::string_view review,
                             const std::string& user, const std::string& note);
  // Counts `added` (stored now) into incident_counts. REQUIRES: inside a
  // transaction.
  absl::Status CountIncidents(const std::vector<const Incident*>& added);
  // Counts the days up to `before_ms`'s again from the incidents left.
  // REQUIRES: inside a transaction.
  absl::Status RecountBefore(int64_t before_ms);
  // The `n` names of count `kind` with the most incidents since `since_ms`
  // (a day's start).
  absl::StatusOr<std::vector<NamedCount>> NamedCounts(const std::string& kind,
                                                      int64_t since_ms,
                                                      size_t n);

  const std::string path_;
  const std::unique_ptr<SqlConnection> db_;
  int schema_version_ = 0;
};

// The SQLite and libpq library versions (for `leakhound --version`).
std::string SqliteVersion();
std::string LibpqVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_STORE_H_
