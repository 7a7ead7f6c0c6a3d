// `leakhound policy check` on the real binary: one case per mistake class,
// each reported as FILE:LINE, and the exit codes.
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

class PolicyCheckTest : public ::testing::Test {
 protected:
  RunResult Check(const std::string& text, bool with_index = false) {
    const std::string path = dir_.Sub("p.toml");
    std::ofstream(path, std::ios::trunc) << text;
    if (with_index) {
      const std::string index = dir_.Sub("index");
      RunLeakhound({"init", "--index", index});
      const std::string doc = dir_.Sub("memo.txt");
      std::ofstream(doc) << "The board approved the merger with the northern "
                            "supplier on the third of March.\n";
      RunLeakhound({"add", "--index", index, "--label", "confidential", doc});
      return RunLeakhound({"policy", "check", "--index", index, path});
    }
    return RunLeakhound({"policy", "check", path});
  }
  TempDir dir_;
};

constexpr char kRule[] = "[[rule]]\nname = \"a\"\n";

TEST_F(PolicyCheckTest, EveryMistakeClassIsReportedWithItsFileAndLine) {
  const struct {
    std::string text;
    const char* expected;
  } kCases[] = {
      {"internal_domains = [\"x\"\n", "p.toml:"},  // syntax
      {std::string(kRule) + "acton = \"reject\"\n", "p.toml:3: unknown key 'acton'"},
      {std::string(kRule) + "severity = 3\n", "p.toml:3: 'severity' must be a string"},
      {std::string(kRule) + "action = \"bounce\"\n", "p.toml:3: unknown action 'bounce'"},
      {std::string(kRule) + "severity = \"urgent\"\n", "p.toml:3: unknown severity 'urgent'"},
      {std::string(kRule) + "mode = \"dry\"\n", "p.toml:3: unknown mode 'dry'"},
      {std::string(kRule) + "[rule.when]\nsenders = [\"bob\"]\n",
       "p.toml:4: malformed address pattern 'bob'"},
      {std::string(kRule) + "[rule.when]\nsenders = [\"group:x\"]\n",
       "p.toml:4: unknown group 'x'"},
      {std::string(kRule) + "[rule.when]\nchannels = [\"fax\"]\n",
       "p.toml:4: unknown channel 'fax'"},
      {"[[rule]]\naction = \"log\"\n", "p.toml:1: a rule needs a name"},
      {std::string(kRule) + "action = \"redirect\"\n", "need a 'reviewer'"},
      {std::string(kRule) + "[rule.when]\nchannels = [\"scan\"]\n"
                            "external_recipient = true\n",
       "p.toml:1: rule 'a' can never match: a scan has no recipients"},
      {std::string(kRule) + "[[rule.unless]]\n",
       "p.toml:1: rule 'a' can never match: an exception without conditions"},
  };
  for (const auto& c : kCases) {
    const RunResult r = Check(c.text);
    EXPECT_EQ(r.exit, 1) << c.text;
    EXPECT_THAT(r.out, HasSubstr(c.expected)) << c.text;
  }
}

TEST_F(PolicyCheckTest, EveryMistakeOfAFileIsReportedNotOnlyTheFirst) {
  const RunResult r = Check(std::string(kRule) +
                            "acton = \"reject\"\nseverity = \"urgent\"\n");
  EXPECT_EQ(r.exit, 1);
  EXPECT_THAT(r.out, HasSubstr("p.toml:3: unknown key 'acton'"));
  EXPECT_THAT(r.out, HasSubstr("p.toml:4: unknown severity 'urgent'"));
}

TEST_F(PolicyCheckTest, AnUnknownLabelIsOnlyAWarning) {
  const RunResult r = Check(std::string(kRule) +
                                "[rule.when]\nlabels_any = [\"confidental\"]\n",
                            /*with_index=*/true);
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("p.toml:1: rule 'a': warning: no protected "
                               "document has the label 'confidental'"));
  const RunResult known = Check(
      std::string(kRule) + "[rule.when]\nlabels_any = [\"confidential\"]\n",
      /*with_index=*/true);
  EXPECT_EQ(known.exit, 0);
  EXPECT_THAT(known.out, HasSubstr("p.toml: 1 rule, no mistakes"));
}

TEST_F(PolicyCheckTest, AMissingFileIsAnError) {
  const RunResult r = RunLeakhound({"policy", "check", dir_.Sub("none.toml")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot read"));
}

}  // namespace
}  // namespace leakhound
