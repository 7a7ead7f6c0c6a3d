#include "shingler/host_name.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(HostNameTest, DomainsComeBackInTheAsciiFormMailCarries) {
  EXPECT_EQ(*HostName("Corp.Example.COM"), "corp.example.com");
  EXPECT_EQ(*HostName("corp.example."), "corp.example");
  EXPECT_EQ(*HostName("bücher.example"), "xn--bcher-kva.example");
  EXPECT_EQ(*HostName("xn--bcher-kva.example"), "xn--bcher-kva.example");
  EXPECT_EQ(*HostName("a-b.c-d.example"), "a-b.c-d.example");
}

TEST(HostNameTest, WhatIsNoHostNameIsRefusedWithTheReason) {
  const struct {
    const char* given;
    const char* why;
  } kBad[] = {
      {"counsel..example", "an empty label"},
      {"-bad-.example", "starts or ends with '-'"},
      {"http://x.example", "not a URL"},
      {"@corp.example.com", "without '@'"},
      {"ann@corp.example", "an address"},
      {"corp example", "cannot hold"},
      {"under_score.example", "cannot hold"},
      {"intranet", "a single label"},
      {"", "empty"},
  };
  for (const auto& b : kBad) {
    auto r = HostName(b.given);
    ASSERT_FALSE(r.ok()) << b.given;
    EXPECT_THAT(r.status().message(), HasSubstr(b.why)) << b.given;
  }
}

}  // namespace
}  // namespace leakhound
