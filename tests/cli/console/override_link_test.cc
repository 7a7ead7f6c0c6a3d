#include "cli/console/override_link.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

constexpr char kKey[] =
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

OverrideLinkClaims Claims() {
  return {"LH-ABCDEFGHJK", "Sam@Corp.test", 10'000, "0a1b2c"};
}

TEST(OverrideLinkTest, ALinkSignedForASenderAndIncidentVerifiesForThem) {
  const std::string token = SignOverrideLink(kKey, Claims());
  auto nonce =
      VerifyOverrideLink(kKey, token, "LH-ABCDEFGHJK", "sam@corp.test", 9'999);
  ASSERT_TRUE(nonce.ok()) << nonce.status();
  EXPECT_EQ(*nonce, "0a1b2c");
}

TEST(OverrideLinkTest, AnotherIncidentSenderKeyOrAnEditedTokenIsRefused) {
  const std::string token = SignOverrideLink(kKey, Claims());
  EXPECT_TRUE(absl::IsPermissionDenied(
      VerifyOverrideLink(kKey, token, "LH-ABCDEFGHJL", "sam@corp.test", 1)
          .status()));
  EXPECT_TRUE(absl::IsPermissionDenied(
      VerifyOverrideLink(kKey, token, "LH-ABCDEFGHJK", "paula@corp.test", 1)
          .status()));
  const std::string other(64, 'e');
  EXPECT_TRUE(absl::IsPermissionDenied(
      VerifyOverrideLink(other, token, "LH-ABCDEFGHJK", "sam@corp.test", 1)
          .status()));
  // A later expiry or another nonce with the old MAC.
  std::string later = token;
  later.replace(0, 5, "99999");
  std::string renonced = token;
  renonced.replace(renonced.find(".0a1b2c.") + 1, 6, "0a1b2d");
  for (const std::string& bad :
       {later, renonced, std::string(""), std::string("1.2"),
        std::string("x.0a.ff"), token + "0",
        token.substr(0, token.size() - 1)}) {
    EXPECT_TRUE(absl::IsPermissionDenied(
        VerifyOverrideLink(kKey, bad, "LH-ABCDEFGHJK", "sam@corp.test", 1)
            .status()))
        << bad;
  }
}

TEST(OverrideLinkTest, AnExpiredLinkSaysSo) {
  const std::string token = SignOverrideLink(kKey, Claims());
  EXPECT_TRUE(absl::IsDeadlineExceeded(
      VerifyOverrideLink(kKey, token, "LH-ABCDEFGHJK", "sam@corp.test", 10'000)
          .status()));
}

TEST(OverrideLinkTest, TheKeyFileIsCreatedOwnerOnlyAndReadBack) {
  TempDir dir;
  const std::string path = dir.Sub("links.key");
  auto made = LoadLinkKey(path);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->size(), 64u);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(*LoadLinkKey(path), *made);
  // Readable by others: refused.
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  EXPECT_TRUE(absl::IsPermissionDenied(LoadLinkKey(path).status()));
  const std::string junk = dir.Sub("junk.key");
  std::ofstream(junk) << "not a key\n";
  ASSERT_EQ(::chmod(junk.c_str(), 0600), 0);
  EXPECT_TRUE(absl::IsInvalidArgument(LoadLinkKey(junk).status()));
}

}  // namespace
}  // namespace leakhound
