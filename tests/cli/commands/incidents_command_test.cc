// `leakhound incidents show` on the real binary: what a recorded incident
// prints on a reviewer's terminal.
#include "cli/commands/incidents_command.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/incidents/incident_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A file name (or a subject, a sender) is the outside's word: its line
// breaks, escapes and C1 controls are printed escaped, so that it cannot
// forge a "Bcc:" or "CEF:0|" line on the terminal.
TEST(IncidentsCommandTest, ShowEscapesEveryFieldSoNoneForgesALine) {
  TempDir dir;
  const std::string index = dir.Sub("index"), store = dir.Sub("incidents.db");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  ASSERT_EQ(RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit,
            0);
  const std::string hostile =
      dir.Sub("memo\nBcc: evil@attacker.test\nCEF:0|x\x1b[2J\xc2\x9b" "1m.txt");
  std::filesystem::copy_file(SamplePath("outbound/email-board-leak.txt"),
                             hostile);
  RunResult scan = RunLeakhound(
      {"scan", "--index", index, "--record", "--incidents", store, hostile});
  ASSERT_EQ(scan.exit, 1) << scan.err;
  RunResult show = RunLeakhound({"incidents", "show", "1", "--incidents", store});
  ASSERT_EQ(show.exit, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("memo\\x0aBcc: evil@attacker.test\\x0aCEF:0|x"
                                  "\\x1b[2J\\u009b1m.txt"));
  EXPECT_THAT(show.out, Not(HasSubstr("\nBcc:")));
  EXPECT_THAT(show.out, Not(HasSubstr("\nCEF:")));
  EXPECT_THAT(show.out, Not(HasSubstr("\x1b")));
  EXPECT_THAT(show.out, Not(HasSubstr("\xc2\x9b")));
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

// Adds a leak of `severity` made `age_ms` ago to the store, through the
// store's own API (the CLI's actions are what is tested); its id.
int64_t AddLeak(const std::string& store, const std::string& severity,
                int64_t age_ms) {
  auto s = IncidentStore::Open(store);
  EXPECT_TRUE(s.ok()) << s.status();
  std::vector<Incident> one(1);
  one[0].time_ms = NowUnixMs() - age_ms;
  one[0].source = "milter";
  one[0].kind = "leak";
  one[0].action = "quarantine";
  one[0].sender = "sam@corp.test";
  one[0].severity = severity;
  one[0].reference = "LH-" + std::string(10, severity == "high" ? 'H' : 'L');
  EXPECT_TRUE((*s)->Insert(one).ok());
  return one[0].id;
}

TEST(IncidentsCaseCommandTest, ACaseIsAssignedCommentedEscalatedAndResolved) {
  TempDir dir;
  const std::string store = dir.Sub("incidents.db");
  const std::string id = std::to_string(AddLeak(store, "high", 0));
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--incidents", store});
    return RunLeakhound(args);
  };
  EXPECT_THAT(run({"incidents", "list", "--workflow", "new", "--json"}).out,
              HasSubstr("\"workflow\":\"new\",\"owner\":\"\""));
  ASSERT_EQ(run({"incidents", "assign", id, "--to", "rita"}).exit, 0);
  ASSERT_EQ(
      run({"incidents", "comment", id, "--text", "asked the sender"}).exit, 0);
  EXPECT_NE(run({"incidents", "comment", id}).exit, 0);  // no text
  ASSERT_EQ(run({"incidents", "escalate", id, "--to", "dlp-leads@corp.test",
                 "--reason", "board papers"})
                .exit,
            0);
  RunResult show = run({"incidents", "show", id});
  EXPECT_THAT(show.out,
              HasSubstr("case        escalated, owner rita, escalated to "
                        "dlp-leads@corp.test"));
  EXPECT_THAT(show.out, HasSubstr("cli:"));
  EXPECT_THAT(show.out, HasSubstr(": asked the sender"));
  EXPECT_THAT(run({"incidents", "list", "--workflow", "escalated", "--owner",
                   "rita", "--json"})
                  .out,
              HasSubstr("LH-HHHHHHHHHH"));
  EXPECT_EQ(run({"incidents", "list", "--workflow", "new", "--json"}).out, "");
  ASSERT_EQ(run({"incidents", "resolve", id, "--as", "authorised"}).exit, 0);
  EXPECT_THAT(run({"incidents", "show", id, "--json"}).out,
              HasSubstr("\"status\":\"authorised\",\"mail_state\":\"\","
                        "\"workflow\":\"resolved\",\"owner\":\"rita\""));
  // A resolved case is not escalated.
  EXPECT_NE(run({"incidents", "escalate", id, "--to", "x@corp.test"}).exit, 0);
}

TEST(IncidentsCaseCommandTest, EscalationRulesEscalateOverdueCasesOnceAndMail) {
  TempDir dir;
  const std::string store = dir.Sub("incidents.db");
  const int64_t old_high = AddLeak(store, "high", 5 * 3'600'000);
  AddLeak(store, "high", 1 * 3'600'000);  // not due yet
  AddLeak(store, "low", 5 * 3'600'000);   // not its severity
  const std::string policy = dir.Sub("policy.toml");
  std::ofstream(policy) << "[groups]\nleads = [\"lead@corp.test\", "
                           "\"@corp.test\"]\n"
                           "[[escalation]]\nname = \"high unowned\"\n"
                           "severities = [\"high\"]\nunowned_hours = 4\n"
                           "notify = [\"group:leads\", \"soc@corp.test\"]\n";
  const std::string sendmail = dir.Sub("sendmail");
  std::ofstream(sendmail) << "#!/bin/sh\nfor a; do to=$a; done\ncat > "
                          << dir.Sub("mail-") << "$to\n";
  ::chmod(sendmail.c_str(), 0700);
  RunResult due = RunLeakhound({"incidents", "escalate", "--due", "--policy",
                                policy, "--sendmail", sendmail, "--incidents",
                                store, "--console-url", "https://dlp.test"});
  ASSERT_EQ(due.exit, 0) << due.err;
  EXPECT_THAT(due.out,
              HasSubstr("escalation high unowned: 1 cases: LH-HHHHHHHHHH"));
  EXPECT_THAT(due.out, HasSubstr("told lead@corp.test, soc@corp.test"));
  const std::string mail = Slurp(dir.Sub("mail-lead@corp.test"));
  EXPECT_THAT(mail, HasSubstr("LH-HHHHHHHHHH  high  new, nobody's"));
  EXPECT_THAT(mail, HasSubstr("https://dlp.test/incidents/" +
                              std::to_string(old_high)));
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("mail-soc@corp.test")));
  // Once: the next run finds nothing.
  RunResult again = RunLeakhound({"incidents", "escalate", "--due", "--policy",
                                  policy, "--incidents", store});
  EXPECT_THAT(again.out, HasSubstr("escalation high unowned: 0 cases"));
}

}  // namespace
}  // namespace leakhound
