// Directory's seams that need no server (the server is tested for real in
// tests/cli/milter/policy_integration_test.py and the console's browser
// test, against slapd): filter escaping, and an unreachable directory.
#include "cli/gateway/directory.h"

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(DirectoryTest, FilterValuesAreEscapedPerRfc4515) {
  EXPECT_EQ(EscapeFilterValue("rhea"), "rhea");
  EXPECT_EQ(EscapeFilterValue("*)(uid=*"), "\\2a\\29\\28uid=\\2a");
  EXPECT_EQ(EscapeFilterValue(std::string("a\\b\0c", 5)), "a\\5cb\\00c");
}

TEST(DirectoryTest, AnUnreachableDirectoryIsUnavailableNotAHang) {
  DirectorySettings s;
  s.url = "ldap://127.0.0.1:1";  // nothing listens there
  s.timeout_seconds = 2;
  const Directory d(s, "");
  auto members = d.GroupMembers("cn=legal,dc=corp,dc=test");
  EXPECT_TRUE(absl::IsUnavailable(members.status())) << members.status();
  auto login = d.Login("rhea", "secret", {});
  EXPECT_TRUE(absl::IsUnavailable(login.status())) << login.status();
  // An empty password is refused before any bind (an LDAP bind without
  // one would succeed, unauthenticated).
  EXPECT_TRUE(absl::IsPermissionDenied(d.Login("rhea", "", {}).status()));
}

}  // namespace
}  // namespace leakhound
