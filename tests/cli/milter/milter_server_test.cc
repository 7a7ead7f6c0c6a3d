#include "cli/milter/milter_server.h"

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(MilterServerTest, ActionNamesRoundTripAndUnknownOnesAreRefused) {
  for (MilterAction a : {MilterAction::kAccept, MilterAction::kReject,
                         MilterAction::kQuarantine, MilterAction::kTag,
                         MilterAction::kTempfail}) {
    auto parsed = ParseMilterAction(MilterActionName(a));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, a);
  }
  auto bad = ParseMilterAction("drop");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("unknown action 'drop'"),
            std::string::npos);
}

TEST(MilterServerTest, AllowListMatchesAddressesAndDomainsWithoutCase) {
  const std::vector<std::string> allowed = {"Audit@Example.com",
                                            "@partner.org"};
  EXPECT_TRUE(AddressAllowed("<audit@example.COM>", allowed));
  EXPECT_TRUE(AddressAllowed("anyone@PARTNER.org", allowed));
  EXPECT_FALSE(AddressAllowed("<audit@example.com.evil.net>", allowed));
  EXPECT_FALSE(AddressAllowed("someone@sub.partner.org", allowed));
  EXPECT_FALSE(AddressAllowed("<>", allowed));
  EXPECT_FALSE(AddressAllowed("audit@example.com", {}));
}

}  // namespace
}  // namespace leakhound
