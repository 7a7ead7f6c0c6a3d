#include "shingler/user_name.h"

#include <gtest/gtest.h>

#include <string>

namespace leakhound {
namespace {

TEST(UserNameTest, FoldsCaseAndComposes) {
  EXPECT_EQ(*UserName("ADM"), "adm");
  // "Ä" written decomposed (A + combining diaeresis) is "ä" composed.
  EXPECT_EQ(*UserName("A\xCC\x88nne"), "\xC3\xA4nne");
  EXPECT_EQ(*UserName("STRASSE"), *UserName("stra\xC3\x9f" "e"));
}

TEST(UserNameTest, CollapsesInnerSpaces) {
  EXPECT_EQ(*UserName("ada   lovelace"), "ada lovelace");
  // A no-break space is white space too.
  EXPECT_EQ(*UserName("ada\xC2\xA0lovelace"), "ada lovelace");
}

TEST(UserNameTest, RefusesSurroundingSpaces) {
  for (const char* padded : {" adm", "adm ", "   adm  ", "adm\xC2\xA0"}) {
    auto name = UserName(padded);
    ASSERT_FALSE(name.ok()) << padded;
    EXPECT_NE(name.status().message().find("space"), std::string::npos);
  }
}

TEST(UserNameTest, RefusesEmptyLongMalformedAndControl) {
  EXPECT_FALSE(UserName("").ok());
  EXPECT_FALSE(UserName(std::string(kMaxUserNameBytes + 1, 'a')).ok());
  EXPECT_TRUE(UserName(std::string(kMaxUserNameBytes, 'a')).ok());
  EXPECT_FALSE(UserName("ad\xffm").ok());
  EXPECT_FALSE(UserName(std::string("ad\0m", 4)).ok());
  EXPECT_FALSE(UserName("adm\x1b[2J").ok());
  EXPECT_FALSE(UserName("ad\tm").ok());
  EXPECT_FALSE(UserName("x' from 1.2.3.4\nlogin: user 'ada").ok());
}

}  // namespace
}  // namespace leakhound
