#include "cli/console/session_table.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(SessionTableTest, ASessionIsFoundWithItsRoleAndCsrfToken) {
  SessionTable table(minutes(30), hours(12));
  const auto t0 = ConsoleClock::time_point();
  const ConsoleSession s = table.Create("rita", "reviewer", "hash", t0);
  EXPECT_EQ(s.id.size(), 64u);
  EXPECT_EQ(s.csrf.size(), 64u);
  EXPECT_NE(s.id, s.csrf);
  auto found = table.Find(s.id, t0 + minutes(5));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->user, "rita");
  EXPECT_EQ(found->role, "reviewer");
  EXPECT_EQ(found->csrf, s.csrf);
  EXPECT_FALSE(table.Find("", t0).has_value());
  EXPECT_FALSE(table.Find(s.csrf, t0).has_value());
}

TEST(SessionTableTest, ASessionIdleLongerThanTheTimeoutEnds) {
  SessionTable table(minutes(30), hours(12));
  const auto t0 = ConsoleClock::time_point();
  const ConsoleSession s = table.Create("rita", "viewer", "hash", t0);
  // Use renews it...
  ASSERT_TRUE(table.Find(s.id, t0 + minutes(29)).has_value());
  ASSERT_TRUE(table.Find(s.id, t0 + minutes(58)).has_value());
  // ...idleness ends it, for good.
  EXPECT_FALSE(table.Find(s.id, t0 + minutes(89)).has_value());
  EXPECT_FALSE(table.Find(s.id, t0 + minutes(89)).has_value());
  EXPECT_EQ(table.size(), 0u);
}

TEST(SessionTableTest, ASessionEndsAtItsLifetimeHoweverBusy) {
  SessionTable table(minutes(30), hours(12));
  const auto t0 = ConsoleClock::time_point();
  const ConsoleSession s = table.Create("rita", "viewer", "hash", t0);
  EXPECT_EQ(s.credential, "hash");
  for (int m = 20; m < 12 * 60; m += 20) {
    ASSERT_TRUE(table.Find(s.id, t0 + minutes(m)).has_value()) << m;
  }
  EXPECT_FALSE(table.Find(s.id, t0 + hours(12) + minutes(1)).has_value());
  EXPECT_EQ(table.size(), 0u);
}

TEST(SessionTableTest, EraseUserEndsEverySessionOfThatUser) {
  SessionTable table(minutes(30), hours(12));
  const auto t0 = ConsoleClock::time_point();
  const ConsoleSession a = table.Create("rita", "viewer", "hash", t0);
  const ConsoleSession b = table.Create("rita", "viewer", "hash", t0);
  const ConsoleSession c = table.Create("sam", "viewer", "hash", t0);
  table.EraseUser("rita");
  EXPECT_FALSE(table.Find(a.id, t0).has_value());
  EXPECT_FALSE(table.Find(b.id, t0).has_value());
  EXPECT_TRUE(table.Find(c.id, t0).has_value());
}

TEST(LoginLimiterTest, RefusesAfterRepeatedFailuresUntilTheWindowPasses) {
  LoginLimiter limiter;
  const auto t0 = ConsoleClock::time_point();
  for (int i = 0; i < LoginLimiter::kMaxFailures; ++i) {
    ASSERT_TRUE(limiter.Allowed("10.0.0.1", "rita", t0 + seconds(i)));
    limiter.Failed("10.0.0.1", "rita", t0 + seconds(i));
  }
  EXPECT_FALSE(limiter.Allowed("10.0.0.1", "rita", t0 + seconds(10)));
  // The same user from elsewhere, in any case: refused too. Another user
  // from that address (behind the same proxy) is not locked out.
  EXPECT_FALSE(limiter.Allowed("10.0.0.2", "rita", t0 + seconds(10)));
  EXPECT_FALSE(limiter.Allowed("10.0.0.2", "RITA", t0 + seconds(10)));
  EXPECT_TRUE(limiter.Allowed("10.0.0.1", "sam", t0 + seconds(10)));
  EXPECT_TRUE(limiter.Allowed("10.0.0.1", "rita",
                              t0 + LoginLimiter::kWindow + seconds(1)));
}

// One address guessing many names is refused after kMaxClientFailures.
TEST(LoginLimiterTest, OneAddressTryingManyNamesIsRefusedAboveItsLimit) {
  LoginLimiter limiter;
  const auto t0 = ConsoleClock::time_point();
  for (int i = 0; i < LoginLimiter::kMaxClientFailures; ++i) {
    const std::string user = "u" + std::to_string(i);
    ASSERT_TRUE(limiter.Allowed("10.0.0.1", user, t0)) << i;
    limiter.Failed("10.0.0.1", user, t0);
  }
  EXPECT_FALSE(limiter.Allowed("10.0.0.1", "sam", t0 + seconds(1)));
  EXPECT_TRUE(limiter.Allowed("10.0.0.2", "sam", t0 + seconds(1)));
}

TEST(LoginLimiterTest, ASuccessClearsTheUsersFailures) {
  LoginLimiter limiter;
  const auto t0 = ConsoleClock::time_point();
  for (int i = 0; i < LoginLimiter::kMaxFailures - 1; ++i) {
    limiter.Failed("10.0.0.1", "rita", t0);
  }
  limiter.Succeeded("rita");
  limiter.Failed("10.0.0.9", "rita", t0);
  EXPECT_TRUE(limiter.Allowed("10.0.0.9", "rita", t0));
}

}  // namespace
}  // namespace leakhound
