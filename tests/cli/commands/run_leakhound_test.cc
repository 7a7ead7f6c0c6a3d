// The test helper that runs the leakhound binary: a command that does not
// exit is killed and reported, not waited for.
#include "tests/cli/commands/run_leakhound.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(RunLeakhoundTest, ACommandThatDoesNotExitIsKilledAndReported) {
  TempDir tmp;
  ASSERT_EQ(RunLeakhound({"init", "--index", tmp.Sub("index")}).exit, 0);
  RunOptions o;
  o.timeout_seconds = 1;
  // The milter serves until it is told to stop.
  const RunResult r =
      RunLeakhound({"milter", "--index", tmp.Sub("index"), "--socket",
                    "unix:" + tmp.Sub("milter.sock")},
                   o);
  EXPECT_EQ(r.exit, -1);
  EXPECT_THAT(r.err, ::testing::HasSubstr("leakhound milter did not exit in "
                                          "time: killed"));
}

TEST(RunLeakhoundTest, TheEnvironmentGivenReplacesTheInheritedValue) {
  RunOptions o;
  o.env = {{"LEAKHOUND_INDEX", "/nonexistent/leakhound-index"}};
  const RunResult r = RunLeakhound({"list"}, o);
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("/nonexistent/leakhound-index"));
}

}  // namespace
}  // namespace leakhound
