#include "cli/web/request_slots.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace leakhound {
namespace {

TEST(RequestSlotsTest, OneUserCannotHoldMoreThanItsShare) {
  RequestSlots slots(/*per_user=*/2, /*per_client=*/3);
  std::vector<RequestSlots::Slot> held;
  held.push_back(*slots.TryAcquire("mallory", "10.0.0.9"));
  held.push_back(*slots.TryAcquire("mallory", "10.0.0.9"));
  auto third = slots.TryAcquire("mallory", "10.0.0.9");
  ASSERT_FALSE(third.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(third.status()));
  EXPECT_EQ(third.status().message(),
            "proxy user 'mallory' has 2 requests in progress");
  // Another user, from elsewhere, is served.
  EXPECT_TRUE(slots.TryAcquire("alice", "10.0.0.1").ok());
  EXPECT_EQ(slots.held(), 2);
  // A released slot is free again.
  held.pop_back();
  EXPECT_TRUE(slots.TryAcquire("mallory", "10.0.0.9").ok());
}

TEST(RequestSlotsTest, OneAddressIsCappedWhateverTheUserNames) {
  RequestSlots slots(2, 3);
  std::vector<RequestSlots::Slot> held;
  for (const char* user : {"a", "b", "c"}) {
    held.push_back(*slots.TryAcquire(user, "10.0.0.9"));
  }
  EXPECT_EQ(slots.TryAcquire("d", "10.0.0.9").status().message(),
            "client 10.0.0.9 has 3 requests in progress");
  // Unknown user and address: no cap applies.
  for (int k = 0; k < 10; ++k) held.push_back(*slots.TryAcquire("", ""));
  EXPECT_EQ(slots.held(), 13);
  RequestSlots::Slot moved = std::move(held.front());
  held.clear();
  EXPECT_EQ(slots.held(), 1);
}

}  // namespace
}  // namespace leakhound
