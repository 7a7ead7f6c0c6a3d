// IncidentStore on both engines: real SQLite files in a temp dir, and a
// fresh database per test in a real PostgreSQL 15 (the test run's private
// cluster). The suite runs once per engine; what only a file has (its
// mode, its format) is tested on SQLite alone.
#include "cli/incidents/incident_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <set>
#include <string>
#include <thread>

#include "tests/postgres_test_database.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

Incident MailLeak(int64_t time_ms, const std::string& sender,
                  const std::string& document) {
  Incident i;
  i.time_ms = time_ms;
  i.source = "milter";
  i.kind = "leak";
  i.action = "quarantine";
  i.queue_id = "4ABC123";
  i.sender = sender;
  i.recipients = {"bob@example.test", "carol@example.test"};
  i.subject = "Q3 <numbers>";
  i.mail_state = "held";
  IncidentMatch m;
  m.document = document;
  m.source = "/protected/" + document;
  m.labels = {"finance", "board"};
  m.byte_begin = 10;
  m.byte_end = 40;
  m.words = 25;
  m.coverage = 0.25;
  m.snippet = "before THE PASSAGE after";
  m.snippet_begin = 7;
  m.snippet_end = 18;
  i.matches = {m};
  return i;
}

OutboxProgress Delivered(int64_t cursor, int64_t n) {
  OutboxProgress p;
  p.cursor = cursor;
  p.delivered = n;
  return p;
}

OutboxProgress Failed(int64_t cursor, const std::string& error,
                      const std::string& event) {
  OutboxProgress p;
  p.cursor = cursor;
  p.failed = 1;
  p.error = error;
  p.failed_event_id = event;
  return p;
}

enum class Engine { kSqlite, kPostgres };

// The engine's name in test names and messages.
void PrintTo(Engine engine, std::ostream* os) {
  *os << (engine == Engine::kSqlite ? "SQLite" : "PostgreSQL");
}

class IncidentStoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    if (GetParam() == Engine::kPostgres) {
      database_ = std::make_unique<PostgresTestDatabase>();
      path_ = database_->uri();
    }
    auto s = IncidentStore::Open(path_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }
  void TearDown() override {
    ReleaseWriteLock();
    store_.reset();
  }
  // Another session takes the write lock and holds it until released:
  // SQLite's BEGIN `mode`, PostgreSQL's exclusive lock on the tables.
  void HoldWriteLock(const char* mode) {
    if (GetParam() == Engine::kPostgres) {
      pg_ = PQconnectdb(path_.c_str());
      PGresult* r = PQexec(
          pg_, "BEGIN; LOCK TABLE incidents, outbox IN ACCESS EXCLUSIVE MODE");
      ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(pg_);
      PQclear(r);
      return;
    }
    ASSERT_EQ(sqlite3_open(path_.c_str(), &sqlite_), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(sqlite_, (std::string("BEGIN ") + mode).c_str(),
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  void ReleaseWriteLock() {
    if (pg_ != nullptr) PQfinish(pg_);  // rolls back
    pg_ = nullptr;
    if (sqlite_ != nullptr) {
      sqlite3_exec(sqlite_, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(sqlite_);
    }
    sqlite_ = nullptr;
  }
  TempDir dir_;
  std::unique_ptr<PostgresTestDatabase> database_;
  std::string path_ = dir_.Sub("incidents");  // or the database's URI
  std::unique_ptr<IncidentStore> store_;
  PGconn* pg_ = nullptr;
  sqlite3* sqlite_ = nullptr;
};

INSTANTIATE_TEST_SUITE_P(Engines, IncidentStoreTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& engine) {
                           return engine.param == Engine::kSqlite
                                      ? "SQLite"
                                      : "PostgreSQL";
                         });

TEST_P(IncidentStoreTest, AnIncidentReadsBackWithEveryFieldAndMatch) {
  std::vector<Incident> batch = {MailLeak(1000, "alice@corp.test", "memo")};
  batch[0].message_id = "<m1@corp.test>";
  batch[0].client = "192.0.2.7";
  ASSERT_TRUE(store_->Insert(batch).ok());
  ASSERT_GT(batch[0].id, 0);
  auto got = store_->Get(batch[0].id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->sender, "alice@corp.test");
  EXPECT_EQ(got->recipients, batch[0].recipients);
  EXPECT_EQ(got->subject, "Q3 <numbers>");
  EXPECT_EQ(got->message_id, "<m1@corp.test>");
  EXPECT_EQ(got->client, "192.0.2.7");
  EXPECT_EQ(got->status, "open");
  EXPECT_EQ(got->mail_state, "held");
  EXPECT_EQ(got->documents, std::vector<std::string>{"memo"});
  ASSERT_EQ(got->matches.size(), 1u);
  const IncidentMatch& m = got->matches[0];
  EXPECT_EQ(m.labels, (std::vector<std::string>{"finance", "board"}));
  EXPECT_EQ(m.source, "/protected/memo");
  EXPECT_EQ(m.words, 25u);
  EXPECT_DOUBLE_EQ(m.coverage, 0.25);
  EXPECT_EQ(m.snippet.substr(m.snippet_begin, m.snippet_end - m.snippet_begin),
            "THE PASSAGE");
}

TEST_P(IncidentStoreTest,
       ThePolicyDecisionReadsBackAndFiltersByRuleSeverityAndReference) {
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo"),
                                 MailLeak(2000, "b@corp.test", "plan")};
  batch[0].reference = "LH-ABCDEFGHJK";
  batch[0].severity = "high";
  batch[0].policy = "/etc/leakhound/policy.toml";
  batch[0].would_action = "reject";
  batch[0].rules = {{"outside", "high", "quarantine", false},
                    {"trial", "medium", "reject", true}};
  batch[0].facts = {{"memo", {"confidential", "board"}, 120, 0.5}};
  batch[1].severity = "low";
  batch[1].rules = {{"inside", "low", "log", false}};
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto got = store_->Get(batch[0].id);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->reference, "LH-ABCDEFGHJK");
  EXPECT_EQ(got->severity, "high");
  EXPECT_EQ(got->policy, "/etc/leakhound/policy.toml");
  EXPECT_EQ(got->would_action, "reject");
  ASSERT_EQ(got->rules.size(), 2u);
  EXPECT_EQ(got->rules[1].rule, "trial");
  EXPECT_EQ(got->rules[1].action, "reject");
  EXPECT_TRUE(got->rules[1].monitor);
  EXPECT_FALSE(got->rules[0].monitor);
  ASSERT_EQ(got->facts.size(), 1u);
  EXPECT_EQ(got->facts[0].labels,
            (std::vector<std::string>{"confidential", "board"}));
  EXPECT_EQ(got->facts[0].words, 120u);
  EXPECT_DOUBLE_EQ(got->facts[0].share, 0.5);
  IncidentFilter f;
  f.rule = "trial";
  EXPECT_EQ(*store_->Count(f), 1);
  f = {};
  f.severity = "low";
  auto low = store_->List(f);
  ASSERT_TRUE(low.ok());
  ASSERT_EQ(low->size(), 1u);
  EXPECT_EQ((*low)[0].id, batch[1].id);
  f = {};
  f.reference = "LH-ABCDEFGHJK";
  EXPECT_EQ(*store_->Count(f), 1);
  // Purged with their incident.
  ASSERT_TRUE(store_->Purge(5000, "cli:root").ok());
  f = {};
  f.rule = "trial";
  EXPECT_EQ(*store_->Count(f), 0);
  EXPECT_EQ(*store_->IntegrityCheck(), "ok");
}

TEST(IncidentStoreFileTest, TheFileIsOwnerOnly) {
  TempDir dir;
  ASSERT_TRUE(IncidentStore::Open(dir.Sub("incidents")).ok());
  struct stat st {};
  ASSERT_EQ(::stat(dir.Sub("incidents").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_P(IncidentStoreTest, ListFiltersAndPagesNewestFirst) {
  std::vector<Incident> batch;
  for (int i = 0; i < 30; ++i) {
    batch.push_back(MailLeak(1000 + i,
                             i % 3 == 0 ? "eve@corp.test" : "alice@corp.test",
                             i % 2 == 0 ? "memo" : "pricing"));
  }
  ASSERT_TRUE(store_->Insert(batch).ok());
  IncidentFilter f;
  f.limit = 5;
  auto first = store_->List(f);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 5u);
  EXPECT_EQ((*first)[0].time_ms, 1029);
  EXPECT_TRUE((*first)[0].matches.empty());  // a list has documents only
  EXPECT_EQ((*first)[0].documents, std::vector<std::string>{"pricing"});
  f.offset = 25;
  auto last = store_->List(f);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->back().time_ms, 1000);

  IncidentFilter by;
  by.sender = "EVE@corp.test";  // without case
  by.document = "memo";
  by.since_ms = 1006;
  by.limit = 100;
  auto some = store_->List(by);
  ASSERT_TRUE(some.ok());
  // i % 3 == 0 and i % 2 == 0 and i >= 6: 6, 12, 18, 24.
  ASSERT_EQ(some->size(), 4u);
  EXPECT_EQ(*store_->Count(by), 4);
}

TEST_P(IncidentStoreTest, ResolveRecordsTheReviewAndAuditsIt) {
  std::vector<Incident> batch = {MailLeak(1, "a@b.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  const int64_t id = batch[0].id;
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Resolve(id, "maybe", "", "u")));
  EXPECT_TRUE(absl::IsNotFound(store_->Resolve(id + 1, "confirmed", "", "u")));
  ASSERT_TRUE(
      store_->Resolve(id, "false-positive", "test data", "console:rita").ok());
  auto got = store_->Get(id);
  EXPECT_EQ(got->status, "false-positive");
  EXPECT_EQ(got->note, "test data");
  EXPECT_EQ(got->reviewed_by, "console:rita");
  EXPECT_GT(got->reviewed_ms, 0);
  auto audit = store_->AuditTrail(id, 10);
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ((*audit)[0].action, "resolve");
  EXPECT_EQ((*audit)[0].user, "console:rita");
  EXPECT_EQ((*audit)[0].detail, "false-positive: test data");
}

TEST_P(IncidentStoreTest, PurgeDeletesOnlyOlderIncidentsWithTheirMatches) {
  std::vector<Incident> batch = {MailLeak(100, "a@b.test", "old"),
                                 MailLeak(200, "a@b.test", "new")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto n = store_->Purge(150, "cli:root");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  EXPECT_TRUE(absl::IsNotFound(store_->Get(batch[0].id).status()));
  EXPECT_TRUE(store_->Get(batch[1].id).ok());
  IncidentFilter old;
  old.document = "old";
  EXPECT_EQ(*store_->Count(old), 0);
  auto top = store_->TopDocuments(0, 10);
  ASSERT_TRUE(top.ok());
  ASSERT_EQ(top->size(), 1u);  // the old match went with its incident
  EXPECT_EQ((*top)[0].name, "new");
  EXPECT_EQ(*store_->IntegrityCheck(), "ok");
}

TEST_P(IncidentStoreTest, UsersAreStoredReplacedAndRemoved) {
  ASSERT_TRUE(store_->PutUser({"rita", "reviewer", "$argon2id$x", 5}).ok());
  ASSERT_TRUE(store_->PutUser({"rita", "admin", "$argon2id$y", 5}).ok());
  auto got = store_->GetUser("rita");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->role, "admin");
  EXPECT_EQ((*got)->password_hash, "$argon2id$y");
  EXPECT_TRUE(store_->RemoveUser("rita").ok());
  EXPECT_TRUE(absl::IsNotFound(store_->RemoveUser("rita")));
  EXPECT_FALSE(store_->GetUser("rita")->has_value());
}

TEST_P(IncidentStoreTest, DashboardCountsPerDayActionAndSender) {
  std::vector<Incident> batch = {
      MailLeak(86'400'000 * 3 + 5, "a@b.test", "memo"),
      MailLeak(86'400'000 * 3 + 9, "a@b.test", "memo"),
      MailLeak(86'400'000 * 4, "c@d.test", "plan")};
  batch[2].action = "reject";
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto days = store_->PerDay(0);
  ASSERT_TRUE(days.ok());
  ASSERT_EQ(days->size(), 2u);
  EXPECT_EQ((*days)[0].day, 3);
  EXPECT_EQ((*days)[0].action, "quarantine");
  EXPECT_EQ((*days)[0].count, 2);
  EXPECT_EQ((*days)[1].action, "reject");
  auto senders = store_->TopSenders(0, 1);
  ASSERT_EQ(senders->size(), 1u);
  EXPECT_EQ((*senders)[0].name, "a@b.test");
  EXPECT_EQ((*senders)[0].count, 2);
}

TEST_P(IncidentStoreTest,
       ALockedStoreIsUnavailableAndTheBatchIsNotHalfWritten) {
  HoldWriteLock("EXCLUSIVE");
  IncidentStore::Options quick;
  quick.busy_timeout_ms = 50;
  auto second = IncidentStore::Open(path_, quick);
  ASSERT_TRUE(second.ok()) << second.status();
  std::vector<Incident> batch = {MailLeak(1, "a@b.test", "memo"),
                                 MailLeak(2, "a@b.test", "memo")};
  const absl::Status s = (*second)->Insert(batch);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(batch[0].id, 0);
  ReleaseWriteLock();
  EXPECT_EQ(*store_->Count(IncidentFilter{}), 0);
  EXPECT_TRUE((*second)->Insert(batch).ok());
  EXPECT_EQ(*store_->Count(IncidentFilter{}), 2);
}

TEST(IncidentStoreFormatTest,
     AVersionOneFileWrittenWithoutLeakhoundIsMigratedAndReads) {
  // Pins the persisted schema (docs/storage_format.md): a file made by
  // plain SQL with the documented version-1 tables is read as is.
  TempDir dir;
  const std::string path = dir.Sub("v1");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* sql =
      "CREATE TABLE incidents (id INTEGER PRIMARY KEY, time_ms INTEGER NOT "
      "NULL, source TEXT NOT NULL, kind TEXT NOT NULL, action TEXT NOT NULL, "
      "queue_id TEXT NOT NULL DEFAULT '', message_id TEXT NOT NULL DEFAULT '', "
      "sender TEXT NOT NULL DEFAULT '' COLLATE NOCASE, recipients TEXT NOT "
      "NULL DEFAULT '', subject TEXT NOT NULL DEFAULT '', client TEXT NOT NULL "
      "DEFAULT '', run_id TEXT NOT NULL DEFAULT '', file_path TEXT NOT NULL "
      "DEFAULT '', file_size INTEGER NOT NULL DEFAULT 0, sha256 TEXT NOT NULL "
      "DEFAULT '', detail TEXT NOT NULL DEFAULT '', documents TEXT NOT NULL "
      "DEFAULT '', status TEXT NOT NULL DEFAULT 'open', note TEXT NOT NULL "
      "DEFAULT '', reviewed_by TEXT NOT NULL DEFAULT '', reviewed_ms INTEGER "
      "NOT NULL DEFAULT 0, mail_state TEXT NOT NULL DEFAULT '');"
      "CREATE TABLE matches (incident_id INTEGER NOT NULL, ordinal INTEGER "
      "NOT NULL, document TEXT NOT NULL, source TEXT NOT NULL, labels TEXT NOT "
      "NULL, part TEXT NOT NULL, byte_begin INTEGER NOT NULL, byte_end INTEGER "
      "NOT NULL, words INTEGER NOT NULL, coverage REAL NOT NULL, snippet TEXT "
      "NOT NULL, snippet_begin INTEGER NOT NULL, snippet_end INTEGER NOT NULL, "
      "PRIMARY KEY (incident_id, ordinal)) WITHOUT ROWID;"
      "CREATE TABLE users (name TEXT PRIMARY KEY, role TEXT NOT NULL, "
      "password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL);"
      "CREATE TABLE audit (id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, "
      "user TEXT NOT NULL, action TEXT NOT NULL, incident_id INTEGER NOT NULL, "
      "detail TEXT NOT NULL);"
      "INSERT INTO incidents (id, time_ms, source, kind, action, recipients, "
      "documents, mail_state) VALUES (7, 1795564800000, 'milter', 'leak', "
      "'quarantine', 'bob@x.test' || char(10) || 'carol@x.test', 'memo', "
      "'held');"
      "INSERT INTO matches VALUES (7, 0, 'memo', '/p/memo', 'a' || char(10) "
      "|| 'b', 'report.docx', 5, 9, 22, 0.5, 'xxTEXTyy', 2, 6);"
      "PRAGMA user_version = 1;";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = IncidentStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  // Migrated to the newest version: the policy's and the web's columns are
  // there, empty, and the outbox's tables, with no destination.
  EXPECT_EQ((*store)->schema_version(), kIncidentSchemaVersion);
  auto destinations = (*store)->OutboxStates();
  ASSERT_TRUE(destinations.ok()) << destinations.status();
  EXPECT_TRUE(destinations->empty());
  auto i = (*store)->Get(7);
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->recipients,
            (std::vector<std::string>{"bob@x.test", "carol@x.test"}));
  ASSERT_EQ(i->matches.size(), 1u);
  EXPECT_EQ(i->matches[0].labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(i->matches[0].part, "report.docx");
  EXPECT_EQ(i->matches[0].snippet.substr(2, 4), "TEXT");
  EXPECT_EQ(i->severity, "");
  EXPECT_TRUE(i->rules.empty());
  EXPECT_TRUE(i->facts.empty());
  EXPECT_EQ(i->method, "");
  EXPECT_EQ(i->url, "");
  // The migration to 6 counted it for the dashboard.
  auto documents = (*store)->TopDocuments(0, 5);
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u);
  EXPECT_EQ((*documents)[0].name, "memo");
  EXPECT_EQ((*store)->PerDay(0)->size(), 1u);
}

TEST(IncidentStoreFormatTest, AFileFromANewerLeakhoundIsRefused) {
  TempDir dir;
  const std::string path = dir.Sub("newer");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string newer =
      "PRAGMA user_version = " + std::to_string(kIncidentSchemaVersion + 1);
  ASSERT_EQ(sqlite3_exec(db, newer.c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = IncidentStore::Open(path);
  EXPECT_TRUE(absl::IsFailedPrecondition(store.status())) << store.status();
}

TEST(IncidentStoreFormatTest, ANonDatabaseFileIsDataLossNotACrash) {
  TempDir dir;
  const std::string path = dir.Sub("junk");
  FILE* f = std::fopen(path.c_str(), "wb");
  for (int i = 0; i < 4096; ++i) std::fputc(i * 7 % 251, f);
  std::fclose(f);
  auto store = IncidentStore::Open(path);
  EXPECT_TRUE(absl::IsDataLoss(store.status())) << store.status();
}

TEST(IncidentStoreFormatTest, AMissingFileIsNotFoundWithoutCreate) {
  TempDir dir;
  IncidentStore::Options o;
  o.create = false;
  EXPECT_TRUE(
      absl::IsNotFound(IncidentStore::Open(dir.Sub("none"), o).status()));
}

TEST_P(IncidentStoreTest, NothingIsQueuedWhileNoDestinationIsRegistered) {
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  ASSERT_TRUE(store_->Resolve(batch[0].id, "confirmed", "", "ada").ok());
  EXPECT_EQ(*store_->OutboxSize(), 0);
}

// A console label edit is audited and reaches the SIEM as a review event
// "labelled", in one transaction.
TEST_P(IncidentStoreTest, AConfigurationChangeIsAuditedAndQueued) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  ASSERT_TRUE(store_->AuditChange("console:ada", "label document", "labelled",
                                  "memo: public -> secret")
                  .ok());
  auto events = store_->PendingEvents("soc", 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].type, "review");
  EXPECT_EQ((*events)[0].review, "labelled");
  EXPECT_EQ((*events)[0].user, "console:ada");
  EXPECT_EQ((*events)[0].note, "memo: public -> secret");
  auto trail = store_->AuditTrail(0, 10);
  ASSERT_TRUE(trail.ok());
  ASSERT_FALSE(trail->empty());
  EXPECT_EQ(trail->back().action, "label document");
}

TEST_P(IncidentStoreTest,
       IncidentsAndReviewsAreQueuedInOrderForARegisteredDestination) {
  std::vector<Incident> before = {MailLeak(500, "old@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(before).ok());
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());  // idempotent
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo"),
                                 MailLeak(2000, "b@corp.test", "plan")};
  batch[1].severity = "high";
  batch[1].rules = {{"external", "high", "reject", false}};
  ASSERT_TRUE(store_->Insert(batch).ok());
  ASSERT_TRUE(
      store_->Resolve(batch[1].id, "false-positive", "a quote", "ada").ok());
  ASSERT_TRUE(store_->SetMailState(batch[0].id, "released", "bob", "ok").ok());
  auto events = store_->PendingEvents("soc", 10);
  ASSERT_TRUE(events.ok()) << events.status();
  // The incident from before the registration is not queued for it.
  ASSERT_EQ(events->size(), 4u);
  for (size_t i = 1; i < events->size(); ++i) {
    EXPECT_LT((*events)[i - 1].seq, (*events)[i].seq);
    EXPECT_NE((*events)[i - 1].id, (*events)[i].id);
    EXPECT_EQ((*events)[i].id.size(), 32u);
  }
  const OutboxEvent& first = (*events)[0];
  EXPECT_EQ(first.type, "incident");
  EXPECT_EQ(first.incident_id, batch[0].id);
  EXPECT_EQ(first.sender, "a@corp.test");
  EXPECT_EQ(first.channel, "mail");
  EXPECT_EQ(first.words, 25u);
  EXPECT_TRUE(first.snippets.empty());  // no outbound text in the outbox
  const OutboxEvent& review = (*events)[2];
  EXPECT_EQ(review.type, "review");
  EXPECT_EQ(review.review, "resolved");
  EXPECT_EQ(review.status, "false-positive");
  EXPECT_EQ(review.note, "a quote");
  EXPECT_EQ(review.user, "ada");
  EXPECT_EQ(review.severity, "high");
  ASSERT_EQ(review.rules.size(), 1u);
  EXPECT_EQ(review.rules[0].rule, "external");
  EXPECT_EQ((*events)[3].review, "released");
}

TEST_P(IncidentStoreTest, AFailedInsertQueuesNothing) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  // A second writer holds the lock: the insert fails as a whole.
  IncidentStore::Options quick;
  quick.busy_timeout_ms = 10;
  auto other = IncidentStore::Open(path_, quick);
  ASSERT_TRUE(other.ok());
  HoldWriteLock("IMMEDIATE");
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo")};
  EXPECT_FALSE((*other)->Insert(batch).ok());
  ReleaseWriteLock();
  EXPECT_EQ(*store_->OutboxSize(), 0);
  EXPECT_EQ(*store_->Count(IncidentFilter()), 0);
}

TEST_P(IncidentStoreTest, OneOwnerHoldsTheLeaseUntilItLapsesOrIsReleased) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  EXPECT_EQ(*store_->TakeLease("soc", "a", 1000, 2000, ""), "a");
  EXPECT_EQ(*store_->TakeLease("soc", "a", 1500, 2500, ""), "a");  // renewed
  EXPECT_EQ(*store_->TakeLease("soc", "b", 2000, 3000, ""), "a");
  EXPECT_EQ(*store_->TakeLease("soc", "b", 2000, 3000, "a"), "b");  // a dead
  EXPECT_EQ(*store_->TakeLease("soc", "a", 2999, 4000, ""), "b");
  EXPECT_EQ(*store_->TakeLease("soc", "a", 3001, 4000, ""), "a");  // lapsed
  ASSERT_TRUE(store_->ReleaseLease("soc", "a").ok());
  EXPECT_EQ(*store_->TakeLease("soc", "b", 3002, 5000, ""), "b");
  EXPECT_TRUE(
      absl::IsNotFound(store_->TakeLease("none", "b", 0, 1, "").status()));
}

TEST_P(IncidentStoreTest, AdvanceMovesTheCursorOnlyForTheLeaseHolder) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo"),
                                 MailLeak(2000, "b@corp.test", "memo"),
                                 MailLeak(3000, "c@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto events = *store_->PendingEvents("soc", 10);
  ASSERT_EQ(events.size(), 3u);
  ASSERT_EQ(
      *store_->TakeLease("soc", "a", NowUnixMs(), NowUnixMs() + 60000, ""),
      "a");
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->Advance("soc", "b", Delivered(events[0].seq, 1))));
  ASSERT_TRUE(store_->Advance("soc", "a", Delivered(events[0].seq, 1)).ok());
  ASSERT_TRUE(store_->NoteRetry("soc", "a", "connection refused").ok());
  ASSERT_TRUE(
      store_
          ->Advance("soc", "a",
                    Failed(events[1].seq, "HTTP status 400", events[1].id))
          .ok());
  auto pending = *store_->PendingEvents("soc", 10);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].sender, "c@corp.test");
  auto states = *store_->OutboxStates();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].delivered, 1);
  EXPECT_EQ(states[0].failed, 1);
  EXPECT_EQ(states[0].retried, 1);
  EXPECT_EQ(states[0].pending, 1);
  EXPECT_EQ(states[0].queued(), 3);
  EXPECT_EQ(states[0].last_error, "HTTP status 400");
  EXPECT_GT(states[0].oldest_pending_ms, 0);
  auto failures = *store_->OutboxFailures(10);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].event_id, events[1].id);
}

TEST_P(IncidentStoreTest,
       PruningDropsWhatIsPastTheBoundsAndCountsItPerDestination) {
  ASSERT_TRUE(store_->RegisterDestination("fast").ok());
  ASSERT_TRUE(store_->RegisterDestination("slow").ok());
  std::vector<Incident> batch;
  for (int k = 0; k < 10; ++k) {
    batch.push_back(MailLeak(1000 + k, "a@corp.test", "memo"));
  }
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto events = *store_->PendingEvents("fast", 10);
  ASSERT_EQ(*store_->TakeLease("fast", "f", 0, NowUnixMs() + 60000, ""), "f");
  ASSERT_TRUE(store_->Advance("fast", "f", Delivered(events[9].seq, 10)).ok());
  // At most 4 events: the 6 oldest go; "fast" had them all, "slow" none.
  auto dropped = store_->PruneOutbox(0, 4);
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(*dropped, 6);
  auto states = *store_->OutboxStates();
  EXPECT_EQ(states[0].name, "fast");
  EXPECT_EQ(states[0].dropped, 0);
  EXPECT_EQ(states[1].dropped, 6);
  EXPECT_EQ(states[1].pending, 4);
  EXPECT_EQ(states[1].queued(), 10);
  // Past the age bound: everything left goes, counted for "slow".
  EXPECT_EQ(*store_->PruneOutbox(NowUnixMs() + 1, 1000), 4);
  EXPECT_EQ(*store_->OutboxSize(), 0);
  states = *store_->OutboxStates();
  EXPECT_EQ(states[1].dropped, 10);
  EXPECT_EQ(states[1].pending, 0);
  // What every destination is done with is deleted without a drop.
  std::vector<Incident> more = {MailLeak(5000, "z@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(more).ok());
  ASSERT_TRUE(store_->ForgetDestination("slow").ok());
  auto last = *store_->PendingEvents("fast", 10);
  ASSERT_TRUE(store_->Advance("fast", "f", Delivered(last[0].seq, 1)).ok());
  EXPECT_EQ(*store_->PruneOutbox(0, 1000), 0);
  EXPECT_EQ(*store_->OutboxSize(), 0);
}

TEST_P(IncidentStoreTest, APurgeIsQueuedAsOneEventWithItsCount) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo"),
                                 MailLeak(2000, "b@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  ASSERT_EQ(*store_->Purge(5000, "ada"), 2);
  auto events = *store_->PendingEvents("soc", 10);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].review, "purged");
  EXPECT_EQ(events[2].purged, 2);
  EXPECT_EQ(events[2].user, "ada");
}

TEST_P(IncidentStoreTest, DiscoveryKeepsTheCatalogueFindingsAndRuns) {
  CatalogueEntry a{"share", "/srv/a.txt", 2049,     11,      100, 5,
                   6,       "d1",         "basis1", "clean", ""};
  CatalogueEntry b{"share", "/srv/b.txt", 2049,     12,       200, 7,
                   8,       "d2",         "basis1", "unread", ""};
  CatalogueEntry other{"other", "/x", 1, 2, 3, 4, 5, "", "b", "error", ""};
  ASSERT_TRUE(store_->PutCatalogue({a, b, other}, {}).ok());
  // A changed file replaces its row; a gone one is deleted.
  a.size = 101;
  a.verdict = "leak";
  ASSERT_TRUE(store_->PutCatalogue({a}, {b}).ok());
  auto share = store_->Catalogue("share");
  ASSERT_TRUE(share.ok()) << share.status();
  EXPECT_EQ(*share, std::vector<CatalogueEntry>{a});

  Incident incident;
  incident.time_ms = 1000;
  incident.source = "discover";
  incident.kind = "leak";
  incident.action = "quarantine";
  incident.reference = "LH-DISCOVER1";
  incident.file_path = "/srv/c.docx";
  DiscoverFinding f;
  f.target = "share";
  f.path = "/srv/c.docx";
  f.owner = "alice";
  f.group = "staff";
  f.uid = 1000;
  f.gid = 50;
  f.mode = 0644;
  f.mtime_ms = 77;
  f.size = 4096;
  f.exposure = "world-readable, acl user:bob:r--";
  f.remediation = "quarantine";
  f.state = "open";
  f.updated_ms = 1000;
  CatalogueEntry c{"share", "/srv/c.docx", 2049,     13,     4096, 9,
                   10,      "d3",          "basis1", "leak", ""};
  ASSERT_TRUE(store_->InsertFinding(incident, f, c).ok());
  EXPECT_GT(incident.id, 0);
  EXPECT_EQ(f.incident_id, incident.id);
  auto catalogued = store_->Catalogue("share");
  ASSERT_TRUE(catalogued.ok());
  ASSERT_EQ(catalogued->size(), 2u);
  EXPECT_EQ((*catalogued)[1].reference, "LH-DISCOVER1");

  f.state = "quarantined";
  f.quarantine_path = "/q/LH-DISCOVER1/c.docx";
  ASSERT_TRUE(store_->UpdateFinding(f, "quarantined", "discover").ok());
  auto by_ref = store_->Finding("lh-discover1");
  ASSERT_TRUE(by_ref.ok()) << by_ref.status();
  f.updated_ms = by_ref->updated_ms;
  EXPECT_EQ(*by_ref, f);
  auto by_id = store_->Finding(std::to_string(incident.id));
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(by_id->reference, "LH-DISCOVER1");
  EXPECT_TRUE(absl::IsNotFound(store_->Finding("LH-NONE").status()));
  auto quarantined = store_->Findings("share", {"quarantined"});
  ASSERT_TRUE(quarantined.ok());
  EXPECT_EQ(quarantined->size(), 1u);
  auto open = store_->Findings("", {"open"});
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->empty());
  auto trail = store_->AuditTrail(incident.id, 10);
  ASSERT_TRUE(trail.ok());
  ASSERT_EQ(trail->size(), 1u);
  EXPECT_EQ((*trail)[0].action, "quarantined");

  // Closing resolves the incident with the reason.
  f.state = "closed";
  f.detail = "the file is gone";
  ASSERT_TRUE(store_->UpdateFinding(f, "closed", "discover", true).ok());
  auto resolved = store_->Get(incident.id);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->workflow, "resolved");
  EXPECT_EQ(resolved->note, "the file is gone");

  ASSERT_TRUE(store_->PutDiscoverRun({"share", 10, 20, 3, 2, 2, 1, 0, 0}).ok());
  // A run is written as it goes: its row is updated, not added again.
  ASSERT_TRUE(store_->PutDiscoverRun({"share", 30, 0, 3, 3, 1, 0, 0, 0}).ok());
  ASSERT_TRUE(store_->PutDiscoverRun({"share", 30, 40, 3, 3, 3, 0, 1, 0}).ok());
  ASSERT_TRUE(store_->PutDiscoverRun({"other", 15, 16, 1, 1, 1, 0, 0, 1}).ok());
  auto runs = store_->LatestDiscoverRuns();
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].target, "share");
  EXPECT_EQ((*runs)[0].started_ms, 30);
  EXPECT_EQ((*runs)[0].finished_ms, 40);
  EXPECT_EQ((*runs)[0].read, 3);
  EXPECT_EQ((*runs)[1].target, "other");
}

TEST_P(IncidentStoreTest, TwoWorkersNeverClaimOneFile) {
  std::vector<CatalogueEntry> files;
  for (int i = 0; i < 25; ++i) {
    files.push_back({"share", "/srv/f" + std::to_string(100 + i), 1,
                     static_cast<uint64_t>(i), 10, 1, 1, "", "", "new", ""});
  }
  ASSERT_TRUE(store_->PendCatalogue(files).ok());
  auto second = IncidentStore::Open(store_->path());
  ASSERT_TRUE(second.ok()) << second.status();
  std::set<std::string> seen;
  size_t taken = 0;
  for (int round = 0; round < 10; ++round) {
    auto a = store_->ClaimCatalogue("share", "worker-a", 4);
    auto b = (*second)->ClaimCatalogue("share", "worker-b", 3);
    ASSERT_TRUE(a.ok() && b.ok());
    for (const auto* batch : {&*a, &*b}) {
      for (const CatalogueEntry& e : *batch) {
        EXPECT_TRUE(seen.insert(e.path).second) << e.path << " twice";
        ++taken;
      }
    }
  }
  EXPECT_EQ(taken, 25u);
  // A judged file is no longer claimed; pending again when handed out.
  CatalogueEntry judged = files[0];
  judged.verdict = "clean";
  judged.basis = "b";
  ASSERT_TRUE(store_->PutCatalogue({judged}, {}).ok());
  ASSERT_TRUE(store_->PendCatalogue({judged}).ok());
  auto again = store_->ClaimCatalogue("share", "worker-a", 10);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0], judged);  // its verdict kept while pending
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

TEST_P(IncidentStoreTest,
       ConcurrentWritersQueueEveryEventOnceAndNoneBehindTheCursor) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  constexpr int kWriters = 4;
  constexpr int kEach = 40;
  std::atomic<bool> done{false};
  std::vector<std::string> seen;
  // A sender reads while the writers commit: an event numbered before one
  // it has passed, but committed after, would never be read.
  std::thread reader([&] {
    auto store = IncidentStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_EQ(*(*store)->TakeLease("soc", "r", 0, INT64_MAX, ""), "r");
    for (bool last = false; !last;) {
      last = done.load();
      auto events = (*store)->PendingEvents("soc", 1000);
      ASSERT_TRUE(events.ok()) << events.status();
      if (events->empty()) continue;
      for (const OutboxEvent& e : *events) seen.push_back(e.id);
      ASSERT_TRUE((*store)
                      ->Advance("soc", "r",
                                Delivered(events->back().seq,
                                          static_cast<int64_t>(events->size())))
                      .ok());
      if (last) last = false;  // read until a round finds nothing
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto store = IncidentStore::Open(path_);
      ASSERT_TRUE(store.ok()) << store.status();
      for (int i = 0; i < kEach; ++i) {
        std::vector<Incident> one = {
            MailLeak(1000 * w + i, "w@corp.test", "memo")};
        ASSERT_TRUE((*store)->Insert(one).ok());
      }
    });
  }
  for (std::thread& t : writers) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(*store_->Count(IncidentFilter()), kWriters * kEach);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  EXPECT_EQ(seen.size(), static_cast<size_t>(kWriters * kEach));
}

TEST_P(IncidentStoreTest, TextThatIsNotUtf8IsKeptOrRepairedNeverRefused) {
  std::vector<Incident> batch = {MailLeak(5, "a@b.test", "memo")};
  batch[0].subject = std::string("caf\xE9 \0end", 9);
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto back = store_->Get(batch[0].id);
  ASSERT_TRUE(back.ok()) << back.status();
  // PostgreSQL's text holds neither: both become U+FFFD there.
  EXPECT_EQ(back->subject, GetParam() == Engine::kSqlite
                               ? batch[0].subject
                               : std::string("caf\xEF\xBF\xBD \xEF\xBF\xBD"
                                             "end"));
}

TEST_P(IncidentStoreTest,
       AnIncidentWhoseUidIsStoredIsNeitherStoredNorQueuedAgain) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  std::vector<Incident> first = {MailLeak(5, "a@b.test", "memo"),
                                 MailLeak(6, "a@b.test", "memo")};
  first[0].uid = "u1";
  first[1].uid = "u2";
  ASSERT_TRUE(store_->Insert(first).ok());
  std::vector<Incident> replay = {MailLeak(5, "a@b.test", "memo"),
                                  MailLeak(7, "a@b.test", "memo")};
  replay[0].uid = "u1";  // sent again after a crash
  replay[1].uid = "u3";
  ASSERT_TRUE(store_->Insert(replay).ok());
  EXPECT_EQ(replay[0].id, first[0].id);
  EXPECT_EQ(*store_->Count(IncidentFilter()), 3);
  EXPECT_EQ(*store_->OutboxSize(), 3);
  auto back = store_->Get(first[0].id);
  EXPECT_EQ(back->matches.size(), 1u);  // its matches not doubled
  EXPECT_EQ(back->uid, "u1");
  // Incidents without a uid (a scan's) are never taken for one another.
  std::vector<Incident> plain = {MailLeak(8, "a@b.test", "memo"),
                                 MailLeak(8, "a@b.test", "memo")};
  ASSERT_TRUE(store_->Insert(plain).ok());
  EXPECT_EQ(*store_->Count(IncidentFilter()), 5);
}

TEST_P(IncidentStoreTest, TheDashboardsCountsFollowInsertsAndPurges) {
  constexpr int64_t kDay = 86'400'000;
  std::vector<Incident> batch = {MailLeak(kDay * 10 + 5, "a@b.test", "memo"),
                                 MailLeak(kDay * 10 + 9, "A@B.test", "plan"),
                                 MailLeak(kDay * 11, "c@d.test", "memo"),
                                 MailLeak(kDay * 12, "c@d.test", "memo")};
  batch[1].severity = "high";
  batch[1].rules = {{"r1", "high", "quarantine", false, {}},
                    {"r1", "high", "quarantine", true, {}}};
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto docs = store_->TopDocuments(kDay * 10, 5);
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].name, "memo");
  EXPECT_EQ((*docs)[0].count, 3);
  auto senders = store_->TopSenders(kDay * 10, 5);
  ASSERT_EQ(senders->size(), 2u);
  EXPECT_EQ((*senders)[0].name, "a@b.test");  // one sender in any case
  EXPECT_EQ((*senders)[0].count, 2);
  EXPECT_EQ((*store_->PerRule(0, 5))[0].count, 1);  // the incident, once
  EXPECT_EQ((*store_->PerSeverity(0))[0].name, "high");
  EXPECT_EQ(store_->PerDay(kDay * 11)->size(), 2u);  // days 11 and 12
  // A purge in the middle of day 10 recounts that day from what is left.
  ASSERT_EQ(*store_->Purge(kDay * 10 + 7, "ada"), 1);
  auto days = store_->PerDay(0);
  ASSERT_EQ(days->size(), 3u);
  EXPECT_EQ((*days)[0].day, 10);
  EXPECT_EQ((*days)[0].count, 1);
  EXPECT_EQ((*store_->TopDocuments(0, 5))[0].count, 2);
  // Reopening (no migration to run) changes nothing.
  store_.reset();
  auto again = IncidentStore::Open(path_);
  EXPECT_EQ((*(*again)->TopSenders(0, 5))[0].count, 2);
}

TEST_P(IncidentStoreTest, SenderAndUserNamesMatchInAnyCase) {
  std::vector<Incident> batch = {MailLeak(5, "Ada@Corp.test", "memo"),
                                 MailLeak(6, "ada@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  IncidentFilter f;
  f.sender = "ADA@corp.TEST";
  EXPECT_EQ(*store_->Count(f), 2);
  auto senders = store_->TopSenders(0, 5);
  ASSERT_EQ(senders->size(), 1u);
  EXPECT_EQ((*senders)[0].count, 2);
  ASSERT_TRUE(store_->PutUser({"Grace", "admin", "hash", 1}).ok());
  auto user = store_->GetUser("gRACE");
  ASSERT_TRUE(user.ok() && user->has_value());
  EXPECT_EQ((*user)->name, "Grace");
  EXPECT_TRUE(store_->RemoveUser("GRACE").ok());
}

TEST_P(IncidentStoreTest, ANodesHeartbeatReplacesItsLastOne) {
  NodeState n;
  n.name = "mx1";
  n.role = "milter";
  n.version = "0.68";
  n.heartbeat_ms = 1000;
  n.index_generation = 7;
  n.policy_digest = "ab";
  ASSERT_TRUE(store_->Heartbeat(n).ok());
  n.heartbeat_ms = 2000;
  n.spool_depth = 12;
  ASSERT_TRUE(store_->Heartbeat(n).ok());
  n.name = "icap1";
  n.role = "icap";
  ASSERT_TRUE(store_->Heartbeat(n).ok());
  auto nodes = store_->Nodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].name, "mx1");
  EXPECT_EQ((*nodes)[1].heartbeat_ms, 2000);
  EXPECT_EQ((*nodes)[1].spool_depth, 12);
  EXPECT_EQ((*nodes)[1].index_generation, 7);
}

TEST_P(IncidentStoreTest, PublishedPoliciesAreNumberedReadBackAndAudited) {
  EXPECT_TRUE(absl::IsNotFound(store_->GetPolicyVersion(0).status()));
  auto one = store_->PublishPolicy("[a]\n", "d1", "ada", "first");
  auto two = store_->PublishPolicy("[b]\n", "d2", "ada", "");
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_LT(*one, *two);
  auto latest = store_->GetPolicyVersion(0);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(latest->version, *two);
  EXPECT_EQ(latest->body, "[b]\n");
  EXPECT_EQ(store_->GetPolicyVersion(*one)->comment, "first");
  auto list = store_->PolicyVersions(10);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].digest, "d2");
  EXPECT_TRUE((*list)[0].body.empty());
  auto trail = store_->AuditTrail(0, 10);
  ASSERT_FALSE(trail->empty());
  EXPECT_EQ((*trail)[0].action, "policy publish");
}

TEST_P(IncidentStoreTest, AMailRequestGoesToItsNodeOnceAndItsResultIsKept) {
  std::vector<Incident> batch = {MailLeak(5, "a@b.test", "memo"),
                                 MailLeak(6, "a@b.test", "memo")};
  batch[0].node = "mx2";
  batch[1].node = "";  // recorded before nodes were
  ASSERT_TRUE(store_->Insert(batch).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->RequestMail(batch[1].id, "release", "ada").status()));
  auto id = store_->RequestMail(batch[0].id, "release", "ada");
  ASSERT_TRUE(id.ok()) << id.status();
  // One open request per mail.
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->RequestMail(batch[0].id, "delete", "ada").status()));
  EXPECT_TRUE(store_->TakeMailRequests("mx1", 10)->empty());
  auto taken = store_->TakeMailRequests("mx2", 10);
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].queue_id, "4ABC123");
  EXPECT_EQ((*taken)[0].action, "release");
  EXPECT_TRUE(store_->TakeMailRequests("mx2", 10)->empty());  // taken once
  ASSERT_TRUE(
      store_->FinishMailRequest(*id, true, "postsuper -H: ok", "mx2").ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->FinishMailRequest(*id, false, "again", "mx2")));
  EXPECT_EQ(store_->Get(batch[0].id)->mail_state, "released");
  auto requests = store_->MailRequests(batch[0].id, 10);
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ((*requests)[0].state, "done");
  EXPECT_EQ((*requests)[0].detail, "postsuper -H: ok");
  // Released: nothing more to ask.
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->RequestMail(batch[0].id, "delete", "ada").status()));
}

TEST_P(IncidentStoreTest,
       AFailedMailRequestLeavesTheMailHeldAndCanBeAskedAgain) {
  std::vector<Incident> batch = {MailLeak(5, "a@b.test", "memo")};
  batch[0].node = "mx2";
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto id = store_->RequestMail(batch[0].id, "delete", "ada");
  ASSERT_EQ(store_->TakeMailRequests("mx2", 10)->size(), 1u);
  ASSERT_TRUE(
      store_->FinishMailRequest(*id, false, "no such queue id", "mx2").ok());
  EXPECT_EQ(store_->Get(batch[0].id)->mail_state, "held");
  EXPECT_TRUE(store_->RequestMail(batch[0].id, "delete", "ada").ok());
}

// An incident held under an override rule (docs/overrides.md), offered
// until `until_ms`.
Incident Offered(int64_t time_ms, const std::string& sender, int64_t until_ms,
                 uint32_t per_day) {
  Incident i = MailLeak(time_ms, sender, "memo");
  i.override_offer.kind = "justify";
  i.override_offer.rule = "confidential outside";
  i.override_offer.until_ms = until_ms;
  i.override_offer.min_chars = 10;
  i.override_offer.per_day = per_day;
  return i;
}

IncidentOverride Use(const std::string& by, const std::string& text,
                     int64_t time_ms) {
  IncidentOverride u;
  u.used_by = by;
  u.text = text;
  u.address = "192.0.2.7";
  u.time_ms = time_ms;
  return u;
}

TEST_P(IncidentStoreTest, AnOverrideIsUsedOnceAuditedAndSentToTheSiem) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  const int64_t now = NowUnixMs();
  std::vector<Incident> batch = {
      Offered(now, "Sam@Corp.test", now + 3'600'000, 0),
      MailLeak(now, "sam@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  auto offered = store_->Get(batch[0].id);
  ASSERT_TRUE(offered.ok());
  EXPECT_EQ(offered->override_offer.kind, "justify");
  EXPECT_EQ(offered->override_offer.state, "offered");
  EXPECT_EQ(offered->override_offer.rule, "confidential outside");
  EXPECT_TRUE(store_->Get(batch[1].id)->override_offer.kind.empty());

  ASSERT_TRUE(
      store_
          ->UseOverride(batch[0].id,
                        Use("sam@corp.test", "Signed NDA with the buyer", now))
          .ok());
  const IncidentOverride used = store_->Get(batch[0].id)->override_offer;
  EXPECT_EQ(used.state, "used");
  EXPECT_EQ(used.used_by, "sam@corp.test");
  EXPECT_EQ(used.text, "Signed NDA with the buyer");
  EXPECT_EQ(used.address, "192.0.2.7");
  EXPECT_EQ(used.time_ms, now);
  const absl::Status again = store_->UseOverride(
      batch[0].id, Use("sam@corp.test", "Signed NDA with the buyer", now));
  EXPECT_TRUE(absl::IsFailedPrecondition(again)) << again;
  EXPECT_NE(again.message().find("used already"), std::string::npos);
  // No offer, no override.
  EXPECT_TRUE(absl::IsFailedPrecondition(store_->UseOverride(
      batch[1].id, Use("sam@corp.test", "Signed NDA with the buyer", now))));
  EXPECT_TRUE(absl::IsNotFound(
      store_->UseOverride(9999, Use("x@y.test", "0123456789", now))));

  auto events = *store_->PendingEvents("soc", 10);
  ASSERT_EQ(events.size(), 3u);  // two incidents, one override
  EXPECT_EQ(events[2].review, "overridden");
  EXPECT_EQ(events[2].user, "sam@corp.test");
  EXPECT_EQ(events[2].note, "Signed NDA with the buyer");
  auto audit = *store_->AuditTrail(batch[0].id, 10);
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].action, "override");
}

TEST_P(IncidentStoreTest,
       AnOverrideIsRefusedExpiredTooShortOrPastItsDailyLimit) {
  const int64_t now = NowUnixMs();
  std::vector<Incident> batch = {
      Offered(now, "sam@corp.test", now + 1000, 2),
      Offered(now, "sam@corp.test", now + 1000, 2),
      Offered(now, "sam@corp.test", now + 1000, 2),
      Offered(now, "paula@corp.test", now + 1000, 2)};
  ASSERT_TRUE(store_->Insert(batch).ok());
  // Expired: at or after until_ms.
  EXPECT_TRUE(absl::IsFailedPrecondition(store_->UseOverride(
      batch[0].id, Use("sam@corp.test", "long enough text", now + 1000))));
  // Ten characters, not bytes: "ééééé" is 10 bytes, 5 characters.
  const absl::Status short_text =
      store_->UseOverride(batch[0].id, Use("sam@corp.test", "ééééé", now));
  EXPECT_TRUE(absl::IsFailedPrecondition(short_text));
  EXPECT_NE(short_text.message().find("at least 10 characters"),
            std::string::npos);
  EXPECT_TRUE(
      store_->UseOverride(batch[0].id, Use("sam@corp.test", "éééééééééé", now))
          .ok());
  EXPECT_TRUE(store_
                  ->UseOverride(batch[1].id,
                                Use("sam@corp.test", "second one here", now))
                  .ok());
  // Two per sender in 24 hours: the third is refused; another sender's is
  // not counted against sam.
  const absl::Status third = store_->UseOverride(
      batch[2].id, Use("sam@corp.test", "third one here", now));
  EXPECT_TRUE(absl::IsFailedPrecondition(third));
  EXPECT_NE(third.message().find("2 overrides per sender"), std::string::npos);
  EXPECT_EQ(store_->Get(batch[2].id)->override_offer.state, "offered");
  EXPECT_TRUE(store_
                  ->UseOverride(batch[3].id,
                                Use("paula@corp.test", "paula's reason", now))
                  .ok());
}

TEST_P(IncidentStoreTest, ARevokedOverrideCannotBeUsed) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  const int64_t now = NowUnixMs();
  std::vector<Incident> batch = {Offered(now, "sam@corp.test", now + 60'000, 0),
                                 MailLeak(now, "sam@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  ASSERT_TRUE(store_->RevokeOverride(batch[0].id, "console:rita").ok());
  const IncidentOverride o = store_->Get(batch[0].id)->override_offer;
  EXPECT_EQ(o.state, "revoked");
  EXPECT_EQ(o.revoked_by, "console:rita");
  const absl::Status use = store_->UseOverride(
      batch[0].id, Use("sam@corp.test", "please let it go", now));
  EXPECT_TRUE(absl::IsFailedPrecondition(use));
  EXPECT_NE(use.message().find("revoked"), std::string::npos);
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->RevokeOverride(batch[0].id, "console:rita")));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->RevokeOverride(batch[1].id, "console:rita")));
  EXPECT_TRUE(absl::IsNotFound(store_->RevokeOverride(9999, "console:rita")));
  auto events = *store_->PendingEvents("soc", 10);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].review, "override-revoked");
}

TEST_P(IncidentStoreTest, AnOverrideLinkOpensOnceAndPurgeForgetsOverrides) {
  const int64_t now = NowUnixMs();
  std::vector<Incident> batch = {Offered(1000, "sam@corp.test", now, 0)};
  ASSERT_TRUE(store_->Insert(batch).ok());
  EXPECT_TRUE(*store_->ConsumeOverrideLink("ab12", batch[0].id));
  EXPECT_FALSE(*store_->ConsumeOverrideLink("ab12", batch[0].id));
  EXPECT_TRUE(*store_->ConsumeOverrideLink("cd34", batch[0].id));
  ASSERT_EQ(*store_->Purge(5000, "ada"), 1);
  // Gone with its incident: the same id stored again starts without them.
  std::vector<Incident> again = {Offered(6000, "sam@corp.test", now, 0)};
  ASSERT_TRUE(store_->Insert(again).ok());
  EXPECT_EQ(store_->Get(again[0].id)->override_offer.state, "offered");
  EXPECT_TRUE(*store_->ConsumeOverrideLink("ab12", again[0].id));
}

// A blocked upload with its coaching offer (web).
Incident BlockedUpload(int64_t time_ms, const std::string& user,
                       const std::string& digest) {
  Incident i = MailLeak(time_ms, user, "memo");
  i.source = "web";
  i.action = "reject";
  i.mail_state = "";
  i.recipients = {"chat.example.net"};
  i.override_offer.kind = "justify";
  i.override_offer.rule = "coached";
  i.override_offer.until_ms = time_ms + 5 * 60'000;
  i.override_offer.min_chars = 10;
  i.override_offer.host = "chat.example.net";
  i.override_offer.digest = digest;
  i.override_offer.token_hash = std::string(64, 'f');
  return i;
}

TEST_P(IncidentStoreTest, AWebGrantLetsOneRetryOfThatBodyByThatUserThrough) {
  const int64_t now = NowUnixMs();
  std::vector<Incident> batch = {BlockedUpload(now, "Alice", "d1"),
                                 BlockedUpload(now, "alice", "d2")};
  batch[0].reference = "LH-AAAAAAAAAA";
  ASSERT_TRUE(store_->Insert(batch).ok());
  // Not granted yet: nothing to take.
  EXPECT_FALSE(store_->TakeWebGrant("alice", "chat.example.net", "d1", now)
                   ->has_value());
  ASSERT_TRUE(store_
                  ->UseOverride(batch[0].id,
                                Use("Alice", "for the auditors", now + 60'000))
                  .ok());
  const IncidentOverride granted = store_->Get(batch[0].id)->override_offer;
  // The retry window: the rule's minutes, from the grant.
  EXPECT_EQ(granted.retry_until_ms, now + 60'000 + 5 * 60'000);
  // Another body, another host, another user: nothing.
  EXPECT_FALSE(store_->TakeWebGrant("alice", "chat.example.net", "d2", now)
                   ->has_value());
  EXPECT_FALSE(
      store_->TakeWebGrant("alice", "other.example", "d1", now)->has_value());
  EXPECT_FALSE(
      store_->TakeWebGrant("bob", "chat.example.net", "d1", now)->has_value());
  // Past the window: nothing.
  EXPECT_FALSE(store_
                   ->TakeWebGrant("alice", "chat.example.net", "d1",
                                  granted.retry_until_ms)
                   ->has_value());
  auto taken =
      store_->TakeWebGrant("ALICE", "chat.example.net", "d1", now + 120'000);
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_TRUE(taken->has_value());
  EXPECT_EQ((*taken)->incident_id, batch[0].id);
  EXPECT_EQ((*taken)->reference, "LH-AAAAAAAAAA");
  EXPECT_EQ((*taken)->grant.text, "for the auditors");
  // Once.
  EXPECT_FALSE(
      store_->TakeWebGrant("alice", "chat.example.net", "d1", now + 130'000)
          ->has_value());
  EXPECT_EQ(store_->Get(batch[0].id)->override_offer.retried_ms, now + 120'000);
}

TEST_P(IncidentStoreTest, ACaseMovesThroughItsWorkflowAndEveryStepIsAnEvent) {
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  std::vector<Incident> batch = {MailLeak(1000, "a@corp.test", "memo"),
                                 MailLeak(2000, "b@corp.test", "memo")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  const int64_t id = batch[0].id;
  EXPECT_EQ(store_->Get(id)->workflow, "new");
  ASSERT_TRUE(store_->Assign(id, "rita", "console:rita").ok());
  EXPECT_EQ(store_->Get(id)->workflow, "in-review");
  EXPECT_EQ(store_->Get(id)->owner, "rita");
  ASSERT_TRUE(store_->AddComment(id, "asked the sender", "console:rita").ok());
  ASSERT_TRUE(store_->AddComment(id, "no answer", "console:ada").ok());
  EXPECT_TRUE(absl::IsInvalidArgument(store_->AddComment(id, "", "x")));
  EXPECT_TRUE(absl::IsNotFound(store_->AddComment(9999, "x", "x")));
  auto comments = store_->Comments(id);
  ASSERT_EQ(comments->size(), 2u);
  EXPECT_EQ((*comments)[0].text, "asked the sender");
  EXPECT_EQ((*comments)[1].user, "console:ada");
  ASSERT_TRUE(store_->Escalate(id, "group:leads", "board papers", "cli:x").ok());
  Incident escalated = *store_->Get(id);
  EXPECT_EQ(escalated.workflow, "escalated");
  EXPECT_EQ(escalated.escalated_to, "group:leads");
  EXPECT_GT(escalated.escalated_ms, 0);
  // The filters: by case and by owner ("" the unowned).
  IncidentFilter f;
  f.workflow = "escalated";
  EXPECT_EQ(*store_->Count(f), 1);
  f.workflow = "";
  f.owner = "";
  auto unowned = store_->List(f);
  ASSERT_EQ(unowned->size(), 1u);
  EXPECT_EQ((*unowned)[0].id, batch[1].id);
  ASSERT_TRUE(store_->Resolve(id, "authorised", "allowed", "console:rita").ok());
  EXPECT_EQ(store_->Get(id)->workflow, "resolved");
  EXPECT_TRUE(absl::IsFailedPrecondition(
      store_->Escalate(id, "x@corp.test", "", "cli:x")));
  // Open again: back in review (it has an owner); unassigned: new.
  ASSERT_TRUE(store_->Resolve(id, "open", "", "console:rita").ok());
  EXPECT_EQ(store_->Get(id)->workflow, "in-review");
  ASSERT_TRUE(store_->Assign(id, "", "console:rita").ok());
  EXPECT_EQ(store_->Get(id)->workflow, "new");
  auto events = *store_->PendingEvents("soc", 20);
  std::vector<std::string> reviews;
  for (const OutboxEvent& e : events) {
    if (e.type == "review") reviews.push_back(e.review);
  }
  EXPECT_EQ(reviews,
            (std::vector<std::string>{"assigned", "commented", "commented",
                                      "escalated", "resolved", "resolved",
                                      "assigned"}));
  ASSERT_EQ(*store_->Purge(5000, "ada"), 2);
  EXPECT_TRUE(store_->Comments(id)->empty());
}

TEST(IncidentStoreUriTest, AnUnreachableServerIsUnavailableWithoutItsPassword) {
  IncidentStore::Options o;
  auto store = IncidentStore::Open(
      "postgresql://desk:s3cret@127.0.0.1:1/leakhound?connect_timeout=2", o);
  ASSERT_TRUE(absl::IsUnavailable(store.status())) << store.status();
  const std::string message(store.status().message());
  EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
  EXPECT_NE(message.find("desk:***@127.0.0.1"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(IncidentStoreUriTest, PasswordsAreRedactedWhereverTheUriHoldsThem) {
  EXPECT_EQ(RedactedTarget("postgresql://u:pw@h/db?sslmode=require"),
            "postgresql://u:***@h/db?sslmode=require");
  EXPECT_EQ(RedactedTarget("postgres:///db?host=/run/x&password=pw&user=u"),
            "postgres:///db?host=/run/x&password=***&user=u");
  EXPECT_EQ(RedactedTarget("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(RedactedTarget("/var/lib/leakhound/incidents"),
            "/var/lib/leakhound/incidents");
  EXPECT_TRUE(IsDatabaseUri("postgres://h/db"));
  EXPECT_FALSE(IsDatabaseUri("/srv/postgresql://x"));
}

TEST(IncidentStorePostgresTest, ADatabaseFromANewerLeakhoundIsRefused) {
  PostgresTestDatabase database;
  ASSERT_TRUE(IncidentStore::Open(database.uri()).ok());
  PGconn* conn = PQconnectdb(database.uri().c_str());
  const std::string newer = "UPDATE leakhound_schema SET version = " +
                            std::to_string(kIncidentSchemaVersion + 1);
  PGresult* r = PQexec(conn, newer.c_str());
  ASSERT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(conn);
  PQclear(r);
  PQfinish(conn);
  auto store = IncidentStore::Open(database.uri());
  EXPECT_TRUE(absl::IsFailedPrecondition(store.status())) << store.status();
}

TEST(IncidentStorePostgresTest,
     ASessionTheServerEndedIsReopenedForTheNextCall) {
  PostgresTestDatabase database;
  auto store = IncidentStore::Open(database.uri());
  ASSERT_TRUE(store.ok()) << store.status();
  std::vector<Incident> batch = {MailLeak(5, "a@b.test", "memo")};
  ASSERT_TRUE((*store)->Insert(batch).ok());
  // What a restarted server does to every session.
  PGconn* admin = PQconnectdb(database.uri().c_str());
  PGresult* r = PQexec(admin,
                       "SELECT pg_terminate_backend(pid) FROM "
                       "pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(admin);
  PQclear(r);
  PQfinish(admin);
  auto count = (*store)->Count(IncidentFilter());
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, 1);
  EXPECT_TRUE((*store)->Insert(batch).ok());  // a transaction too
}

TEST(IncidentStorePostgresTest, TwoProcessesOpeningANewDatabaseMigrateItOnce) {
  PostgresTestDatabase database;
  std::vector<std::thread> openers;
  std::atomic<int> opened{0};
  for (int i = 0; i < 4; ++i) {
    openers.emplace_back([&] {
      auto store = IncidentStore::Open(database.uri());
      EXPECT_TRUE(store.ok()) << store.status();
      if (store.ok() && (*store)->schema_version() == kIncidentSchemaVersion)
        ++opened;
    });
  }
  for (std::thread& t : openers) t.join();
  EXPECT_EQ(opened.load(), 4);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

DripSpan Span(const std::string& sender, const std::string& target,
              int64_t time_ms, uint32_t begin, uint32_t end,
              const std::string& reference) {
  DripSpan s;
  s.sender = sender;
  s.domain = sender.substr(sender.find('@') + 1);
  s.target = target;
  s.time_ms = time_ms;
  s.begin = begin;
  s.end = end;
  s.total = 700;
  s.channel = "mail";
  s.reference = reference;
  return s;
}

TEST_P(IncidentStoreTest, TheDripLedgerReadsBySenderOrDomainWithinAWindow) {
  const std::vector<DripSpan> spans = {
      Span("alice@corp.test", "handbook", 1000, 0, 25, "LH-A1"),
      Span("alice@corp.test", "handbook", 2000, 25, 50, "LH-A2"),
      Span("bob@corp.test", "handbook", 3000, 50, 75, "LH-B1"),
      Span("alice@corp.test", "other", 3500, 0, 25, "LH-A3"),
      Span("carl@else.test", "handbook", 4000, 0, 25, "LH-C1")};
  ASSERT_TRUE(store_->AddDripSpans(spans).ok());
  auto alice = store_->DripSpans(false, "alice@corp.test", {"handbook"}, 0,
                                 5000);
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(*alice, (std::vector<DripSpan>{spans[0], spans[1]}));
  auto domain = store_->DripSpans(true, "corp.test", {"handbook", "other"},
                                  1500, 5000);
  ASSERT_TRUE(domain.ok()) << domain.status();
  EXPECT_EQ(*domain, (std::vector<DripSpan>{spans[1], spans[2], spans[3]}));
  // Expiry, and a purge, take the old spans with them.
  auto expired = store_->ExpireDripSpans(1500);
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(*expired, 1);
  ASSERT_TRUE(store_->Purge(3600, "admin").ok());
  auto left = store_->DripSpans(true, "else.test", {"handbook"}, 0, 5000);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->size(), 1u);
  auto none = store_->DripSpans(true, "corp.test", {"handbook", "other"}, 0,
                                5000);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace leakhound
