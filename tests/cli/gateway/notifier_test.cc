// Notifier with a stand-in sendmail (a shell script that files each mail
// and its arguments): what the sender and a reviewer receive, the digest,
// and a sendmail that fails.
#include "cli/gateway/notifier.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class NotifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    script_ = dir_.Sub("sendmail");
    std::ofstream(script_) << "#!/bin/sh\n"
                              "n=$(ls "
                           << dir_.Sub("out")
                           << " | wc -l)\n"
                              "echo \"$@\" > "
                           << dir_.Sub("out")
                           << "/$n.args\n"
                              "cat > "
                           << dir_.Sub("out") << "/$n.mail\n";
    ::chmod(script_.c_str(), 0700);
    std::filesystem::create_directory(dir_.Sub("out"));
  }
  std::vector<std::string> Mails() {
    std::vector<std::string> out;
    for (int i = 0; i < 100; i += 2) {
      const auto p = std::filesystem::path(dir_.Sub("out")) /
                     (std::to_string(i) + ".mail");
      if (!std::filesystem::exists(p)) break;
      out.push_back(Slurp(p));
    }
    return out;
  }
  TempDir dir_;
  std::string script_;
  DaemonLog log_{"notifier_test", false};
};

TEST_F(NotifierTest, TheSenderIsToldTheRuleDocumentsAndReferenceNeverTheText) {
  Notifier::Options o;
  o.sendmail = {script_};
  Notifier n(o, &log_);
  n.NotifySender({"alex@corp.test",
                  "Q3\r\nBcc: evil@x.test",
                  {"bob@example.test"},
                  {"bob@example.test"},
                  "remove-external-recipients",
                  "confidential stays inside",
                  {"board/merger-memo.txt"},
                  {},
                  "LH-ABCDEFGHJK",
                  "https://help.corp.test/dlp"});
  n.Stop();
  const std::vector<std::string> mails = Mails();
  ASSERT_EQ(mails.size(), 1u);
  const std::string& m = mails[0];
  EXPECT_THAT(m, HasSubstr("To: <alex@corp.test>\n"));
  EXPECT_THAT(m, HasSubstr("Auto-Submitted: auto-generated\n"));
  EXPECT_THAT(m, HasSubstr("board/merger-memo.txt"));
  EXPECT_THAT(m, HasSubstr("Rule: confidential stays inside"));
  EXPECT_THAT(m, HasSubstr("Incident: LH-ABCDEFGHJK"));
  EXPECT_THAT(m, HasSubstr("Not delivered to: bob@example.test"));
  EXPECT_THAT(m, HasSubstr("https://help.corp.test/dlp"));
  // A subject cannot add a header.
  EXPECT_THAT(m, Not(HasSubstr("\nBcc:")));
  EXPECT_EQ(Slurp(std::filesystem::path(dir_.Sub("out")) / "0.args"),
            "-i -f <> -- alex@corp.test\n");
  EXPECT_EQ(n.counters().sent, 1u);
}

TEST_F(NotifierTest, AReviewerGetsOneDigestPerPeriod) {
  Notifier::Options o;
  o.sendmail = {script_};
  o.console_url = "https://dlp.corp.test";
  o.digest_period = std::chrono::hours(1);  // sent at Stop
  Notifier n(o, &log_);
  for (const char* ref : {"LH-AAAAAAAAAA", "LH-BBBBBBBBBB", "LH-CCCCCCCCCC"}) {
    n.NotifyReviewer("dlp@corp.test", {ref, "outside", "high", "reject",
                                       "alex@corp.test", "numbers"});
  }
  n.NotifyReviewer("legal@corp.test", {"LH-DDDDDDDDDD", "legal", "low", "log",
                                       "dana@corp.test", "contract"});
  n.Stop();
  const std::vector<std::string> mails = Mails();
  ASSERT_EQ(mails.size(), 2u);
  const std::string& dlp =
      mails[0].find("dlp@corp.test") != std::string::npos ? mails[0] : mails[1];
  EXPECT_THAT(dlp, HasSubstr("Subject: leakhound: 3 incidents for review"));
  for (const char* ref : {"LH-AAAAAAAAAA", "LH-BBBBBBBBBB", "LH-CCCCCCCCCC"}) {
    EXPECT_THAT(dlp, HasSubstr(std::string("https://dlp.corp.test/incidents?"
                                           "reference=") +
                               ref));
  }
  EXPECT_THAT(dlp, Not(HasSubstr("LH-DDDDDDDDDD")));
  EXPECT_EQ(n.counters().sent, 2u);
}

// A mail caught for rows of a protected table is told so in record terms,
// not with an empty list of documents.
TEST_F(NotifierTest, ARecordsNoticeSaysWhichTableNotAnEmptyDocumentList) {
  Notifier::Options o;
  o.sendmail = {script_};
  Notifier n(o, &log_);
  n.NotifySender({"alex@corp.test", "list", {"bob@example.test"}, {}, "reject",
                  "customer rows", {}, {"3 rows of table customers"},
                  "LH-ABCDEFGHJK", ""});
  n.Stop();
  const std::vector<std::string> mails = Mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_THAT(mails[0], HasSubstr("It holds protected records: 3 rows of "
                                  "table customers\n"));
  EXPECT_THAT(mails[0], Not(HasSubstr("protected documents")));
  EXPECT_THAT(mails[0], HasSubstr("Your message holds protected records (LH-"));
}

// Postfix's sendmail splits one argument into an address list: an envelope
// sender that is not one mailbox gets no notice, and the failure is
// counted.
TEST_F(NotifierTest, AnAddressListAsTheSenderGetsNoNotice) {
  Notifier::Options o;
  o.sendmail = {script_};
  Notifier n(o, &log_);
  for (const char* to : {"victim@example.com,evil@attacker.test",
                         "victim@example.com evil@attacker.test",
                         "-oQ/tmp@x.test", "\"a,b\"@x.test", "a@[10.0.0.1]",
                         "a..b@x.test", "a@x..test", "@x.test", "a@"}) {
    n.NotifySender({to, "s", {}, {}, "reject", "r", {"d"}, {}, "LH-ABCDEFGHJK",
                    ""});
  }
  n.NotifySender({"ok.sender+tag@corp.test", "s", {}, {}, "reject", "r",
                  {"d"}, {}, "LH-ABCDEFGHJK", ""});
  n.Stop();
  EXPECT_EQ(n.counters().failed, 9u);
  EXPECT_EQ(n.counters().sent, 1u);
  EXPECT_EQ(Slurp(dir_.Sub("out") + "/0.args"),
            "-i -f <> -- ok.sender+tag@corp.test\n");
}

TEST(IsMailboxTest, AcceptsOneMailboxOnly) {
  EXPECT_TRUE(IsMailbox("alex@corp.test"));
  EXPECT_TRUE(IsMailbox("o'brien+x@sub.corp-1.test"));
  EXPECT_TRUE(IsMailbox("j\xC3\xBC" "rgen@b\xC3\xBC" "cher.test"));  // RFC 6531
  EXPECT_FALSE(IsMailbox("a@x.test,b@y.test"));
  EXPECT_FALSE(IsMailbox("a@x.test b@y.test"));
  EXPECT_FALSE(IsMailbox("a@-x.test"));
  EXPECT_FALSE(IsMailbox(std::string(65, 'a') + "@x.test"));
  EXPECT_FALSE(IsMailbox(""));
}

TEST_F(NotifierTest, ASendmailThatFailsIsCountedAndLogged) {
  Notifier::Options o;
  o.sendmail = {"/bin/false"};
  Notifier n(o, &log_);
  n.NotifySender({"alex@corp.test", "s", {}, {}, "reject", "r", {"d"}, {},
                  "LH-ABCDEFGHJK", ""});
  n.Stop();
  EXPECT_EQ(n.counters().sent, 0u);
  EXPECT_EQ(n.counters().failed, 1u);
}

TEST_F(NotifierTest, ASendmailThatStopsReadingIsAFailureNotASigpipe) {
  // The digest of 2,000 incidents is larger than a pipe's buffer: the
  // write waits for the reader, which closes its input and exits. The
  // write then fails with EPIPE; the SIGPIPE it raises must not end the
  // process (it would end the milter).
  Notifier::Options o;
  o.sendmail = {"/bin/sh", "-c", "exec 0<&-; exit 1"};
  o.digest_period = std::chrono::hours(1);
  Notifier n(o, &log_);
  for (int i = 0; i < 2000; ++i) {
    n.NotifyReviewer("dlp@corp.test", {"LH-AAAAAAAAAA", "outside", "high",
                                       "reject", "alex@corp.test",
                                       std::string(200, 's')});
  }
  n.Stop();
  EXPECT_EQ(n.counters().sent, 0u);
  EXPECT_EQ(n.counters().failed, 1u);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

TEST(NotifierOverrideTest, AHeldSenderIsGivenTheSelfServiceLinkAndItsHours) {
  SenderNotice notice{"sam@corp.test", "Q3",      {"x@ext.test"}, {},
                      "quarantine",    "outside", {"memo"},       {},
                      "LH-ABCDEFGHJK", ""};
  EXPECT_THAT(Notifier::SenderMail(notice, "leakhound@corp.test"),
              Not(HasSubstr("/override/")));
  notice.override_url = "https://dlp.corp.test/override/LH-ABCDEFGHJK";
  notice.override_hours = 48;
  const std::string mail = Notifier::SenderMail(notice, "leakhound@corp.test");
  EXPECT_THAT(mail, HasSubstr("release it yourself within 48 hours"));
  EXPECT_THAT(mail,
              HasSubstr("\n  https://dlp.corp.test/override/LH-ABCDEFGHJK\n"));
}

}  // namespace
}  // namespace leakhound
