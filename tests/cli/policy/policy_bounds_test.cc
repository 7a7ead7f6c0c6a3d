#include "cli/policy/policy_bounds.h"

#include <string>

#include "cli/policy/policy_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

std::string Dotted(int parts) {
  std::string key = "a";
  for (int k = 1; k < parts; ++k) key += ".a";
  return key;
}

// The file that overflowed toml++'s stack (a header of 40,000 dotted
// keys, 80 KB) is an error with its line, and CheckPolicy never reaches
// the parser with it.
TEST(PolicyBoundsTest, FortyThousandDottedKeysAreAnErrorNotACrash) {
  const std::string text = "# hostile\n[" + Dotted(40000) + "]\nx = 1\n";
  auto bound = PolicyBoundsError(text);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->line, 2u);
  EXPECT_EQ(bound->message, "a key of more than 8 dotted parts");
  PolicyReport report = CheckPolicy(text, "p.toml");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0], "p.toml:2: a key of more than 8 dotted parts");
}

TEST(PolicyBoundsTest, DeepNestingManyKeysAndHugeFilesAreRefused) {
  EXPECT_THAT(PolicyBoundsError("x = " + std::string(5000, '[') + "\n")->message,
              HasSubstr("nested more than 16 deep"));
  EXPECT_THAT(PolicyBoundsError("x = " + std::string(100, '{') + "\n")->message,
              HasSubstr("nested more than 16 deep"));
  std::string keys;
  for (int k = 0; k <= kMaxPolicyKeys; ++k) keys += "k=1\n";
  EXPECT_THAT(PolicyBoundsError(keys)->message, HasSubstr("more than 50000 keys"));
  EXPECT_THAT(PolicyBoundsError(std::string(kMaxPolicyBytes + 1, '#'))->message,
              HasSubstr("over 1 MiB"));
}

// What a real policy holds passes: dotted keys up to the bound, floats,
// dates, and dots, brackets and '=' inside strings and comments.
TEST(PolicyBoundsTest, StringsCommentsAndRealPoliciesPass) {
  EXPECT_FALSE(PolicyBoundsError("[" + Dotted(8) + "]\n").has_value());
  EXPECT_TRUE(PolicyBoundsError("[" + Dotted(9) + "]\n").has_value());
  EXPECT_FALSE(PolicyBoundsError(
                   "a = 1.5\nb = [1.5, 2.5, 3.5]\nc = 1979-05-27T07:32:00.999\n"
                   "d = \"" + Dotted(100) + "[[[[[[[[[[[[[[[[[[[[\"\n"
                   "e = '" + Dotted(100) + "'\n"
                   "f = \"\"\"\n" + Dotted(100) + "\n\\\"\"\" \"\"\"\n"
                   "g = '''" + Dotted(100) + "'''\n"
                   "# " + Dotted(100) + " {{{{{{{{{{{{{{{{{{{{{{{\n"
                   "h = \"a \\\" " + Dotted(100) + "\"\n")
                   .has_value());
  // The line count runs through multi-line strings.
  auto bound = PolicyBoundsError("a = \"\"\"\n\n\n\"\"\"\n[" + Dotted(9) + "]\n");
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->line, 5u);
}

}  // namespace
}  // namespace leakhound
