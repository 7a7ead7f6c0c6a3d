// OutboxSender on a real incident store and a syslog receiver on loopback.
#include "cli/siem/outbox_sender.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "tests/cli/siem/syslog_sink.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

Incident Leak(int n, const std::string& severity) {
  Incident i;
  i.time_ms = 1000 + n;
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  i.severity = severity;
  i.sender = "s" + std::to_string(n) + "@corp.test";
  i.recipients = {"x@example.org"};
  i.documents = {"memo"};
  return i;
}

class OutboxSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = IncidentStore::Open(path_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }
  OutboxSender::Options Options(const std::string& url) {
    OutboxSender::Options o;
    o.store = path_;
    o.destination.name = "soc";
    o.destination.url = url;
    o.destination.timeout_seconds = 1;
    return o;
  }
  void Record(int from, int to, const std::string& severity = "high") {
    std::vector<Incident> batch;
    for (int n = from; n < to; ++n) batch.push_back(Leak(n, severity));
    ASSERT_TRUE(store_->Insert(batch).ok());
  }
  OutboxDestinationState State() {
    auto states = store_->OutboxStates();
    EXPECT_TRUE(states.ok());
    return states->empty() ? OutboxDestinationState() : states->front();
  }
  // Steps until idle, at most `rounds` times.
  static OutboxSender::Outcome Drain(OutboxSender& s, int rounds = 50) {
    OutboxSender::Outcome last = OutboxSender::Outcome::kBlocked;
    for (int i = 0; i < rounds; ++i) {
      last = s.Step().outcome;
      if (last == OutboxSender::Outcome::kIdle) break;
    }
    return last;
  }
  static void Log(const std::string&) {}

  TempDir dir_;
  const std::string path_ = dir_.Sub("incidents");
  std::unique_ptr<IncidentStore> store_;
};

TEST_F(OutboxSenderTest, DeliversEveryEventInOrderAndMovesTheCursor) {
  SyslogSink sink;
  OutboxSender sender(Options(sink.url()), Log);
  ASSERT_EQ(sender.Step().outcome, OutboxSender::Outcome::kIdle);  // registers
  Record(0, 300);
  EXPECT_EQ(Drain(sender), OutboxSender::Outcome::kIdle);
  ASSERT_TRUE(sink.WaitFor(300));
  const std::vector<std::string> frames = sink.frames();
  for (int n = 0; n < 300; ++n) {
    EXPECT_NE(frames[static_cast<size_t>(n)].find(
                  " suser=s" + std::to_string(n) + "@corp.test "),
              std::string::npos)
        << frames[static_cast<size_t>(n)];
  }
  EXPECT_EQ(State().delivered, 300);
  EXPECT_EQ(State().pending, 0);
}

TEST_F(OutboxSenderTest, AReceiverThatIsDownIsRetriedAndLosesNothing) {
  int port;
  {
    SyslogSink gone;
    port = gone.port();
  }
  OutboxSender sender(Options("tcp://127.0.0.1:" + std::to_string(port)), Log);
  sender.Step();
  Record(0, 5);
  OutboxSender::StepResult r = sender.Step();
  EXPECT_EQ(r.outcome, OutboxSender::Outcome::kBlocked);
  EXPECT_GE(r.pause.count(), 500);
  r = sender.Step();
  EXPECT_GE(r.pause.count(), 1000);  // doubling
  EXPECT_EQ(State().pending, 5);
  EXPECT_EQ(State().retried, 2);
  EXPECT_NE(State().last_error.find("Connection refused"), std::string::npos)
      << State().last_error;
  SyslogSink back(port);
  EXPECT_EQ(Drain(sender), OutboxSender::Outcome::kIdle);
  ASSERT_TRUE(back.WaitFor(5));
  EXPECT_EQ(State().delivered, 5);
}

TEST_F(OutboxSenderTest, OnlyTheLeaseHolderSends) {
  SyslogSink sink;
  OutboxSender::Options a = Options(sink.url());
  a.owner = "host-a pid=1";
  OutboxSender::Options b = a;
  b.owner = "host-b pid=2";
  OutboxSender first(a, Log);
  OutboxSender second(b, Log);
  first.Step();
  Record(0, 10);
  EXPECT_EQ(second.Step().outcome, OutboxSender::Outcome::kBlocked);
  EXPECT_EQ(Drain(first), OutboxSender::Outcome::kIdle);
  ASSERT_TRUE(sink.WaitFor(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(sink.frames().size(), 10u);
  EXPECT_EQ(State().lease_owner, "host-a pid=1");
}

TEST_F(OutboxSenderTest, ALeaseOfADeadProcessOfThisHostIsTakenOverAtOnce) {
  SyslogSink sink;
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  // A pid that cannot be alive (above pid_max's ceiling).
  const std::string dead =
      LeaseOwnerName().substr(0, LeaseOwnerName().find(" pid=")) +
      " pid=4194305";
  ASSERT_EQ(
      *store_->TakeLease("soc", dead, NowUnixMs(), NowUnixMs() + 3600000, ""),
      dead);
  Record(0, 3);
  OutboxSender sender(Options(sink.url()), Log);
  EXPECT_EQ(Drain(sender), OutboxSender::Outcome::kIdle);
  ASSERT_TRUE(sink.WaitFor(3));
}

TEST_F(OutboxSenderTest, EventsNotForTheDestinationAreSkipped) {
  SyslogSink sink;
  OutboxSender::Options o = Options(sink.url());
  o.destination.severities = {"high"};
  OutboxSender sender(o, Log);
  sender.Step();
  Record(0, 4, "low");
  Record(4, 6, "high");
  EXPECT_EQ(Drain(sender), OutboxSender::Outcome::kIdle);
  ASSERT_TRUE(sink.WaitFor(2));
  EXPECT_EQ(State().skipped, 4);
  EXPECT_EQ(State().delivered, 2);
  EXPECT_EQ(State().queued(), 6);
}

TEST_F(OutboxSenderTest, AMessageRefusedForGoodIsCountedAndTheNextGoes) {
  OutboxSender::Options o = Options("udp://127.0.0.1:9");
  o.destination.include_snippets = true;
  OutboxSender sender(o, Log);
  sender.Step();
  Incident big = Leak(0, "high");
  IncidentMatch m;
  m.document = "memo";
  // Ten snippets of 8 KB: past what UDP carries.
  m.snippet = std::string(8000, 'x');
  big.matches.assign(10, m);
  std::vector<Incident> batch = {big, Leak(1, "high")};
  ASSERT_TRUE(store_->Insert(batch).ok());
  EXPECT_EQ(Drain(sender), OutboxSender::Outcome::kIdle);
  EXPECT_EQ(State().failed, 1);
  EXPECT_EQ(State().delivered, 1);
  auto failures = store_->OutboxFailures(5);
  ASSERT_EQ(failures->size(), 1u);
  EXPECT_NE((*failures)[0].error.find("too long for UDP"), std::string::npos);
}

TEST_F(OutboxSenderTest, AStartedSenderDeliversOnItsThreadAndStops) {
  SyslogSink sink;
  OutboxSender sender(Options(sink.url()), Log);
  ASSERT_TRUE(store_->RegisterDestination("soc").ok());
  sender.Start();
  Record(0, 20);
  ASSERT_TRUE(sink.WaitFor(20));
  sender.Stop();
  EXPECT_EQ(State().lease_owner, "");  // given up at Stop
  EXPECT_EQ(State().delivered, 20);
}

}  // namespace
}  // namespace leakhound
