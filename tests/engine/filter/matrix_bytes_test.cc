#include "engine/filter/matrix_bytes.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(MatrixBytesTest, SmallBlocksRoundToCacheLines) {
  EXPECT_EQ(AllocatedMatrixBytes(0), 64u);
  EXPECT_EQ(AllocatedMatrixBytes(1), 64u);
  EXPECT_EQ(AllocatedMatrixBytes(64), 64u);
  EXPECT_EQ(AllocatedMatrixBytes(65), 128u);
  EXPECT_EQ(AllocatedMatrixBytes((size_t{64} << 20) - 1), size_t{64} << 20);
}

TEST(MatrixBytesTest, BlocksOf64MegabytesRoundToHugePages) {
  constexpr size_t kHuge = size_t{2} << 20;
  EXPECT_EQ(AllocatedMatrixBytes(size_t{64} << 20), size_t{64} << 20);
  EXPECT_EQ(AllocatedMatrixBytes((size_t{64} << 20) + 1),
            (size_t{64} << 20) + kHuge);
}

TEST(MatrixBytesTest, SmallBlockIsZeroedAndCacheLineAligned) {
  MatrixBytes bytes = AllocateMatrixBytes(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes.get()) % 64, 0u);
  for (size_t i = 0; i < AllocatedMatrixBytes(1000); ++i) {
    ASSERT_EQ(bytes[i], 0) << i;
  }
}

TEST(MatrixBytesTest, LargeBlockIsZeroedAndHugePageAligned) {
  const size_t n = (size_t{64} << 20) + 5;
  MatrixBytes bytes = AllocateMatrixBytes(n);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes.get()) % (size_t{2} << 20), 0u);
  for (size_t i = 0; i < AllocatedMatrixBytes(n); i += 4093) {
    ASSERT_EQ(bytes[i], 0) << i;
  }
  EXPECT_EQ(bytes[AllocatedMatrixBytes(n) - 1], 0);
}

}  // namespace
}  // namespace leakhound
