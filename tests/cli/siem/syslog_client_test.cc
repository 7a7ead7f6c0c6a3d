// SyslogClient against sockets on loopback.
#include "cli/siem/syslog_client.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/cli/siem/syslog_sink.h"

namespace leakhound {
namespace {

SyslogClient::Options Tcp(const std::string& url) {
  SyslogClient::Options o;
  o.url = url;
  o.timeout_seconds = 1;
  return o;
}

TEST(SyslogClientTest, FormatsAnRfc5424Message) {
  SyslogMessage m;
  m.facility = 20;
  m.severity = 2;
  m.time_ms = 1795812060266;
  m.hostname = "gw 1";
  m.proc_id = 4242;
  m.msg_id = "incident:leak";
  m.msg = "CEF:0|x";
  EXPECT_EQ(FormatSyslog(m),
            "<162>1 2026-11-27T20:41:00.266Z gw_1 leakhound 4242 "
            "incident:leak - CEF:0|x");
  m.hostname = "";
  m.proc_id = 0;
  m.msg_id = "";
  EXPECT_EQ(FormatSyslog(m),
            "<162>1 2026-11-27T20:41:00.266Z - leakhound - - - CEF:0|x");
}

TEST(SyslogClientTest, RefusesAUrlThatIsNotUdpTcpOrTls) {
  for (const char* url : {"http://x:1", "tcp://nohost", "tcp://h:0",
                          "tls://[::1", "udp://h:70000"}) {
    EXPECT_TRUE(
        absl::IsInvalidArgument(SyslogClient::Create(Tcp(url)).status()))
        << url;
  }
}

TEST(SyslogClientTest, SendsOctetCountedFramesOverTcp) {
  SyslogSink sink;
  auto client = SyslogClient::Create(Tcp(sink.url()));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Send("<14>1 - - - - - - one").ok());
  ASSERT_TRUE((*client)->Send("<14>1 - - - - - - two\nlines").ok());
  ASSERT_TRUE(sink.WaitFor(2));
  EXPECT_EQ(sink.frames()[0], "<14>1 - - - - - - one");
  EXPECT_EQ(sink.frames()[1], "<14>1 - - - - - - two\nlines");
}

TEST(SyslogClientTest, AReceiverThatClosedTheStreamGetsTheNextMessageWhole) {
  SyslogSink sink;
  auto client = SyslogClient::Create(Tcp(sink.url()));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Send("first").ok());
  ASSERT_TRUE(sink.WaitFor(1));
  sink.DropConnection();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The closed stream is noticed before writing: the message goes on a
  // new connection instead of into the dead one.
  ASSERT_TRUE((*client)->Send("second").ok());
  ASSERT_TRUE(sink.WaitFor(2));
  EXPECT_EQ(sink.frames()[1], "second");
}

TEST(SyslogClientTest, AReceiverThatIsDownIsUnavailable) {
  int port;
  {
    SyslogSink gone;
    port = gone.port();
  }
  auto client =
      SyslogClient::Create(Tcp("tcp://127.0.0.1:" + std::to_string(port)));
  ASSERT_TRUE(client.ok());
  EXPECT_TRUE(absl::IsUnavailable((*client)->Send("x")));
}

TEST(SyslogClientTest, AMessageTooLongForUdpFailsForGood) {
  auto client = SyslogClient::Create(Tcp("udp://127.0.0.1:9"));
  ASSERT_TRUE(client.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(
      (*client)->Send(std::string(kMaxUdpMessage + 1, 'x'))));
}

TEST(SyslogClientTest, TlsToAPlainListenerFailsTheHandshake) {
  SyslogSink sink;
  auto client = SyslogClient::Create(
      Tcp("tls://127.0.0.1:" + std::to_string(sink.port())));
  ASSERT_TRUE(client.ok());
  const absl::Status s = (*client)->Send("x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("syslog tls://127.0.0.1"), std::string::npos) << s;
}

}  // namespace
}  // namespace leakhound
