#include "cli/commands/json_text.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace leakhound {
namespace {

TEST(JsonTextTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(nlohmann::json::parse(JsonString("a\"b\\c\nd\te\x01\x7f")),
            "a\"b\\c\nd\te\x01\x7f");
}

TEST(JsonTextTest, KeepsUtf8AndReplacesIllFormedBytes) {
  EXPECT_EQ(JsonString("café 機密"), "\"café 機密\"");
  const std::string latin1_path = "r\xE9sum\xE9.txt";
  EXPECT_EQ(nlohmann::json::parse(JsonString(latin1_path)),
            "r\uFFFDsum\uFFFD.txt");
}

}  // namespace
}  // namespace leakhound
