#include "cli/console/secrets.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(SecretsTest, APasswordChecksAgainstItsArgon2idHashOnly) {
  auto hash = HashPassword("correct horse");
  ASSERT_TRUE(hash.ok()) << hash.status();
  EXPECT_TRUE(hash->starts_with("$argon2id$"));
  EXPECT_TRUE(CheckPassword("correct horse", *hash));
  EXPECT_FALSE(CheckPassword("correct horsf", *hash));
  EXPECT_FALSE(CheckPassword("", *hash));
  // Salted: the same password hashes differently each time.
  EXPECT_NE(*HashPassword("correct horse"), *hash);
}

TEST(SecretsTest, AMalformedHashNeverMatches) {
  EXPECT_FALSE(CheckPassword("x", ""));
  EXPECT_FALSE(CheckPassword("x", "$argon2id$garbage"));
  EXPECT_FALSE(CheckPassword("x", std::string(500, 'a')));
  EXPECT_FALSE(HashPassword("").ok());
}

TEST(SecretsTest, TokensAreFreshHex) {
  const std::string a = RandomToken(), b = RandomToken();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(TokensEqual(a, a));
  EXPECT_FALSE(TokensEqual(a, b));
  EXPECT_FALSE(TokensEqual(a, a.substr(1)));
}

}  // namespace
}  // namespace leakhound
