#include "shingler/fingerprint_key.h"

#include <array>
#include <cstdint>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

std::array<uint8_t, 32> CountingBytes() {
  std::array<uint8_t, 32> b{};
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i);
  return b;
}

TEST(FingerprintKeyTest, FromBytesRejectsWrongLength) {
  std::array<uint8_t, 31> short_key{};
  auto key = FingerprintKey::FromBytes(short_key);
  EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FingerprintKeyTest, FromBytesKeepsTheBytes) {
  auto key = FingerprintKey::FromBytes(CountingBytes());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->bytes(), CountingBytes());
}

TEST(FingerprintKeyTest, SecretDerivationIsPinned) {
  // Golden: persisted fingerprints depend on this expansion.
  auto key = FingerprintKey::FromBytes(CountingBytes());
  ASSERT_TRUE(key.ok());
  const auto& s = key->secret();
  uint64_t first = 0, last = 0;
  for (int b = 7; b >= 0; --b) {
    first = (first << 8) | s[static_cast<size_t>(b)];
    last = (last << 8) | s[184 + static_cast<size_t>(b)];
  }
  EXPECT_EQ(first, 0x457d9566b6fcd697u);
  EXPECT_EQ(last, 0xe112b4dc77682271u);
}

TEST(FingerprintKeyTest, GeneratedKeysDiffer) {
  auto a = FingerprintKey::Generate();
  auto b = FingerprintKey::Generate();
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_NE(a->bytes(), b->bytes());
  EXPECT_NE(a->secret(), b->secret());
}

}  // namespace
}  // namespace leakhound
