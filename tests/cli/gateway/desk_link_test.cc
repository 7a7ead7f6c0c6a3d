// DeskLink against a real SQLite store (the PostgreSQL desk is the fleet
// test's): heartbeats, and a held-mail request whose result the store
// cannot take at first. Postfix's postsuper and postqueue are stand-in
// scripts here (a unit seam: the fleet test releases through a real
// Postfix); they count their runs.
#include "cli/gateway/desk_link.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/temp_dir.h"

namespace leakhound {
namespace {

template <typename P>
bool Eventually(P predicate, int seconds = 30) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return predicate();
}

void Script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0700);
}

int Lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

TEST(DeskLinkTest, AResultTheStoreCannotTakeIsKeptAndRecordedOnceLater) {
  TempDir dir;
  const std::string path = dir.Sub("incidents");
  const std::string runs = dir.Sub("postsuper-runs");
  Script(dir.Sub("postsuper"),
         "echo \"$@\" >> " + runs + "\necho \"postsuper: $2: Released from "
         "hold\"\nsleep 1\n");
  Script(dir.Sub("postqueue"), "exit 0\n");
  int64_t request = 0;
  int64_t incident = 0;
  {
    auto store = IncidentStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Incident i;
    i.time_ms = 1000;
    i.source = "milter";
    i.kind = "leak";
    i.action = "quarantine";
    i.mail_state = "held";
    i.queue_id = "4ABC123";
    i.node = "mx9";
    std::vector<Incident> one = {i};
    ASSERT_TRUE((*store)->Insert(one).ok());
    incident = one[0].id;
    request = *(*store)->RequestMail(incident, "release", "console:ada");
  }
  DeskLink::Options o;
  o.store = path;
  o.node = "mx9";
  o.interval_seconds = 0.05;
  o.mail_requests = true;
  o.held_mail.sbin = dir.path();
  DeskLink link(
      o,
      [] {
        NodeState n;
        n.role = "milter";
        return n;
      },
      [](const std::string&) {});
  // While postsuper runs, another process takes the store's write lock
  // past the link's busy timeout: the result cannot be recorded.
  ASSERT_TRUE(Eventually([&] { return Lines(runs) == 1; }));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_TRUE(Eventually([&] { return link.counters().failures > 0; }));
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  auto store = IncidentStore::Open(path);
  ASSERT_TRUE(Eventually([&] {
    auto r = (*store)->MailRequests(incident, 5);
    return r.ok() && !r->empty() && (*r)[0].state == "done";
  }));
  link.Stop();
  EXPECT_EQ(Lines(runs), 1);  // carried out once
  auto requests = (*store)->MailRequests(incident, 5);
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ((*requests)[0].id, request);
  EXPECT_EQ((*store)->Get(incident)->mail_state, "released");
  EXPECT_EQ(link.counters().mail_done, 1u);
  auto nodes = (*store)->Nodes();
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].name, "mx9");
}

}  // namespace
}  // namespace leakhound
