// PolicySource on a real file: reload applies a changed file, keeps the
// previous policy over a broken one and counts the failure.
#include "cli/policy/policy_source.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

TEST(PolicySourceTest, WithoutAFileTheBuiltinPolicyStays) {
  auto source =
      PolicySource::Open("", BuiltinPolicy(Disposition::kTag, "refused"));
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->Current()->path, "(built-in)");
  ASSERT_EQ((*source)->Current()->rules.size(), 1u);
  EXPECT_EQ((*source)->Current()->rules[0].disposition, Disposition::kTag);
  EXPECT_FALSE(*(*source)->Reload());
}

TEST(PolicySourceTest, ABrokenFileKeepsThePreviousPolicyAndIsCounted) {
  TempDir dir;
  const std::string path = dir.Sub("policy.toml");
  Write(path, "[[rule]]\nname = \"one\"\naction = \"tag\"\n");
  auto source = PolicySource::Open(path, Policy());
  ASSERT_TRUE(source.ok()) << source.status();
  const std::shared_ptr<const Policy> first = (*source)->Current();
  EXPECT_EQ(first->rules[0].name, "one");
  EXPECT_FALSE(*(*source)->Reload());  // unchanged

  Write(path, "[[rule]]\nname = \"two\"\nactoin = \"tag\"\n");
  absl::StatusOr<bool> broken = (*source)->Reload();
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(),
              HasSubstr("policy.toml:3: unknown key"));
  EXPECT_EQ((*source)->Current()->rules[0].name, "one");
  EXPECT_EQ((*source)->failures(), 1u);

  Write(path, "[[rule]]\nname = \"two\"\naction = \"reject\"\n");
  EXPECT_TRUE(*(*source)->Reload());
  EXPECT_EQ((*source)->Current()->rules[0].name, "two");
  // A policy handed out before stays valid and unchanged.
  EXPECT_EQ(first->rules[0].name, "one");
}

TEST(PolicySourceTest, AMissingFileAtStartIsAnError) {
  TempDir dir;
  auto source = PolicySource::Open(dir.Sub("none.toml"), Policy());
  EXPECT_TRUE(absl::IsNotFound(source.status())) << source.status();
}

}  // namespace
}  // namespace leakhound
