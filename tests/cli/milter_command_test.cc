// `leakhound milter`'s command line and --config file, through the real
// binary (serving mail is tested against Postfix:
// tests/cli/milter/postfix_integration_test.py).
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_leakhound.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(MilterCommandTest, ConfigFileOptionsAreCheckedAndTheCommandLineWins) {
  TempDir tmp;
  const std::string config = tmp.Sub("milter.conf");
  std::ofstream(config) << "# a comment\n"
                           "index = " << tmp.Sub("no-index") << "\n"
                           "on-leak = drop\n";
  RunResult bad = RunLeakhound({"milter", "--config", config, "--socket",
                                "inet:1@127.0.0.1"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("--on-leak: unknown action 'drop'"));
  // The command line overrides the file: the action is fine now, and the
  // next problem is the missing index.
  RunResult overridden =
      RunLeakhound({"milter", "--config", config, "--on-leak", "tag",
                    "--socket", "inet:1@127.0.0.1"});
  EXPECT_EQ(overridden.exit, 2);
  EXPECT_THAT(overridden.err, HasSubstr("no leakhound index at"));

  std::ofstream(config) << "= value without a name\n";
  RunResult malformed = RunLeakhound({"milter", "--config", config});
  EXPECT_EQ(malformed.exit, 2);
  EXPECT_THAT(malformed.err, HasSubstr(config + ":1: expected 'name = value'"));

  // A misspelt or misused option is named with its file and line.
  std::ofstream(config) << "on-leak = reject\nbogus = 1\n";
  RunResult unknown = RunLeakhound({"milter", "--config", config});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_THAT(unknown.err, HasSubstr(config + ":2: unknown option 'bogus'"));
  std::ofstream(config) << "\n\nshow-matches = yes\n";
  RunResult flag = RunLeakhound({"milter", "--config", config});
  EXPECT_THAT(flag.err, HasSubstr(config + ":3: 'show-matches' takes no value"));
}

TEST(MilterCommandTest, SocketIsRequiredAndHelpListsTheActions) {
  RunResult none = RunLeakhound({"milter", "--index", "/nonexistent"});
  EXPECT_EQ(none.exit, 2);
  EXPECT_THAT(none.err, HasSubstr("no --socket given"));
  RunResult help = RunLeakhound({"milter", "--help"});
  EXPECT_EQ(help.exit, 0);
  EXPECT_THAT(help.out, HasSubstr("--on-leak ACTION       reject (default), "
                                  "quarantine, tag, accept, tempfail"));
}

}  // namespace
}  // namespace leakhound
