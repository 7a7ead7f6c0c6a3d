// `leakhound incidents show` on the real binary: what a recorded incident
// prints on a reviewer's terminal.
#include "cli/commands/incidents_command.h"

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
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
