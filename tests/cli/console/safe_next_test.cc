#include "cli/console/safe_next.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(SafeNextTest, APlainPathHereIsKept) {
  EXPECT_EQ(SafeNext("/incidents?status=open"), "/incidents?status=open");
  EXPECT_EQ(SafeNext("/incidents/42"), "/incidents/42");
  EXPECT_EQ(SafeNext("/documents?q=a%20b"), "/documents?q=a%20b");
}

TEST(SafeNextTest, AnythingThatCouldLeaveTheSiteGoesToTheList) {
  for (const char* next :
       {"", "/", "//evil.test", "/.//evil.test", "/incidents%09//evil",
        "/%2F/evil.test", "/%2f%2fevil.test", "/%5Cevil.test", "/\t/evil",
        "/\\evil.test", "https://evil.test/", "incidents", "/%2e/x",
        "/ok?x=1\n", "/%0d%0aSet-Cookie:x"}) {
    EXPECT_EQ(SafeNext(next), "/incidents") << next;
  }
}

}  // namespace
}  // namespace leakhound
