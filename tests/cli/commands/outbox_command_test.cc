// `leakhound incidents outbox` and `forward` through the real binary, with
// incidents recorded by `scan --record --policy` and a syslog receiver on
// loopback.
#include "cli/commands/outbox_command.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/cli/siem/syslog_sink.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

class OutboxCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(RunLeakhound({"init", "--index", index_}).exit, 0);
    ASSERT_EQ(RunLeakhound({"add", "--index", index_,
                            std::string(test_paths::kSourceDir) +
                                "/corpus/sample/protected"})
                  .exit,
              0);
  }
  // A policy sending every catch to `url` as CEF.
  std::string Policy(const std::string& url) {
    const std::string path = dir_.Sub("policy.toml");
    std::ofstream(path) << "[[rule]]\nname = \"all\"\naction = \"reject\"\n"
                           "severity = \"high\"\n[[destination]]\n"
                           "name = \"soc\"\ntype = \"syslog\"\nurl = \""
                        << url << "\"\nmax_retry_seconds = 1\n";
    return path;
  }
  // Records the sample's leaks (5 files) as incidents.
  void Record(const std::string& policy) {
    RunResult r = RunLeakhound(
        {"scan", "--index", index_, "--record", "--incidents", store_,
         "--policy", policy,
         std::string(test_paths::kSourceDir) + "/corpus/sample/outbound"});
    ASSERT_EQ(r.exit, 1) << r.err;
  }
  nlohmann::json Outbox() {
    RunResult r =
        RunLeakhound({"incidents", "outbox", "--json", "--incidents", store_});
    EXPECT_EQ(r.exit, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  TempDir dir_;
  const std::string index_ = dir_.Sub("index");
  const std::string store_ = dir_.Sub("incidents.db");
};

TEST_F(OutboxCommandTest, ForwardOnceDeliversWhatAScanRecorded) {
  SyslogSink sink;
  const std::string policy = Policy(sink.url());
  Record(policy);
  nlohmann::json before = Outbox();
  ASSERT_EQ(before["destinations"].size(), 1u);
  EXPECT_EQ(before["destinations"][0]["name"], "soc");
  EXPECT_EQ(before["destinations"][0]["pending"], 5);
  RunResult r = RunLeakhound({"incidents", "forward", "--policy", policy,
                              "--once", "--incidents", store_});
  EXPECT_EQ(r.exit, 0) << r.err;
  ASSERT_TRUE(sink.WaitFor(5));
  EXPECT_THAT(sink.frames()[0], HasSubstr(" CEF:0|leakhound|leakhound|"));
  // A scan's incidents have references, which the events carry.
  EXPECT_THAT(sink.frames()[0], HasSubstr("externalId=LH-"));
  nlohmann::json after = Outbox();
  EXPECT_EQ(after["destinations"][0]["pending"], 0);
  EXPECT_EQ(after["destinations"][0]["delivered"], 5);
  EXPECT_EQ(after["destinations"][0]["queued"], 5);
  // A forward --once that has exited holds no lease.
  EXPECT_EQ(after["destinations"][0]["lease_owner"], "");
}

// An outage's error is shown while it stands, not after later deliveries.
TEST_F(OutboxCommandTest, AnOutagesErrorIsNotShownAfterDeliveriesResume) {
  int port;
  {
    SyslogSink gone;
    port = gone.port();
  }
  const std::string down = Policy("tcp://127.0.0.1:" + std::to_string(port));
  Record(down);
  ASSERT_EQ(RunLeakhound({"incidents", "forward", "--policy", down, "--once",
                          "--seconds", "1", "--incidents", store_})
                .exit,
            2);
  nlohmann::json failing = Outbox();
  EXPECT_THAT(failing["destinations"][0]["current_error"].get<std::string>(),
              HasSubstr("Connection refused"));
  SyslogSink sink;
  const std::string up = Policy(sink.url());
  RunResult r = RunLeakhound({"incidents", "forward", "--policy", up, "--once",
                              "--incidents", store_});
  EXPECT_EQ(r.exit, 0) << r.err;
  nlohmann::json after = Outbox();
  EXPECT_EQ(after["destinations"][0]["pending"], 0);
  EXPECT_EQ(after["destinations"][0]["current_error"], "");
  EXPECT_THAT(after["destinations"][0]["last_error"].get<std::string>(),
              HasSubstr("Connection refused"));
  RunResult table =
      RunLeakhound({"incidents", "outbox", "--incidents", store_});
  EXPECT_THAT(table.out, testing::Not(HasSubstr("Connection refused")));
}

TEST_F(OutboxCommandTest, ForwardOnceNamesWhatIsLeftWhenTheReceiverIsDown) {
  int port;
  {
    SyslogSink gone;
    port = gone.port();
  }
  const std::string policy = Policy("tcp://127.0.0.1:" + std::to_string(port));
  Record(policy);
  RunResult r =
      RunLeakhound({"incidents", "forward", "--policy", policy, "--once",
                    "--seconds", "1", "--incidents", store_});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("outbox soc: 5 events still pending"));
  EXPECT_THAT(r.err, HasSubstr("Connection refused"));
  nlohmann::json state = Outbox();
  EXPECT_EQ(state["destinations"][0]["pending"], 5);
  EXPECT_GE(state["destinations"][0]["retried"], 1);
  // Forgotten, it no longer holds events back.
  RunResult forget = RunLeakhound(
      {"incidents", "outbox", "--forget", "soc", "--incidents", store_});
  EXPECT_EQ(forget.exit, 0) << forget.err;
  EXPECT_TRUE(Outbox()["destinations"].empty());
  RunResult again = RunLeakhound(
      {"incidents", "outbox", "--forget", "soc", "--incidents", store_});
  EXPECT_EQ(again.exit, 2);
  EXPECT_THAT(again.err, HasSubstr("no destination 'soc'"));
}

TEST_F(OutboxCommandTest, ForwardNeedsAPolicyWithDestinations) {
  RunResult r = RunLeakhound({"incidents", "forward", "--incidents", store_});
  EXPECT_EQ(r.exit, 2);
  const std::string path = dir_.Sub("empty.toml");
  std::ofstream(path) << "[[rule]]\nname = \"all\"\n";
  Record(path);
  r = RunLeakhound(
      {"incidents", "forward", "--policy", path, "--incidents", store_});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("has no [[destination]]"));
  EXPECT_THAT(RunLeakhound({"incidents", "outbox", "--incidents", store_}).out,
              HasSubstr("no destination registered"));
}

}  // namespace
}  // namespace leakhound
