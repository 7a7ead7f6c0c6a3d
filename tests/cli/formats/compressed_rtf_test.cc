#include "cli/formats/compressed_rtf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace leakhound {
namespace {

using ::testing::HasSubstr;

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(CompressedRtfTest, DecompressesTheSpecificationsExample) {
  // MS-OXRTFCP 3.1.1: "{\rtf1\ansi\ansicpg1252\pard hello world}\r\n"
  // compressed, with references into the preloaded dictionary and into
  // the output itself.
  const std::string compressed = Bytes(
      {0x2d, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x4c, 0x5a, 0x46, 0x75,
       0xf1, 0xc5, 0xc7, 0xa7, 0x03, 0x00, 0x0a, 0x00, 0x72, 0x63, 0x70, 0x67,
       0x31, 0x32, 0x35, 0x42, 0x32, 0x0a, 0xf3, 0x20, 0x68, 0x65, 0x6c, 0x09,
       0x00, 0x20, 0x62, 0x77, 0x05, 0xb0, 0x6c, 0x64, 0x7d, 0x0a, 0x80, 0x0f,
       0xa0});
  auto out = DecompressRtf(compressed, 1 << 20, 100);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n");
}

TEST(CompressedRtfTest, UncompressedStreamsAreReturnedAsStored) {
  std::string mela =
      Bytes({0x0e, 0, 0, 0, 0x02, 0, 0, 0, 0x4d, 0x45, 0x4c, 0x41, 0, 0, 0, 0});
  mela += "{}";
  auto out = DecompressRtf(mela, 1 << 20, 100);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "{}");
}

TEST(CompressedRtfTest, ASizePastTheRatioIsABombRefusedBeforeDecompressing) {
  // 100 MB announced by a 32-byte stream.
  std::string bomb = Bytes({0x1c, 0, 0, 0, 0x00, 0xe1, 0xf5, 0x05, 0x4c, 0x5a,
                            0x46, 0x75, 0, 0, 0, 0});
  bomb += std::string(16, '\xff');
  auto out = DecompressRtf(bomb, size_t{1} << 30, 100);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("bomb"));
}

TEST(CompressedRtfTest, OutputPastTheAnnouncedSizeIsMalformed) {
  // Announces 4 bytes, then references that write 17 bytes each.
  std::string lying = Bytes({0x1c, 0, 0, 0, 0x04, 0, 0, 0, 0x4c, 0x5a, 0x46,
                             0x75, 0, 0, 0, 0, 0xff});
  for (int i = 0; i < 8; ++i) lying += Bytes({0x00, 0x0f});
  auto out = DecompressRtf(lying, 1 << 20, 100);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CompressedRtfTest, TruncatedAndUnknownStreamsAreMalformed) {
  EXPECT_EQ(DecompressRtf("LZFu", 1 << 20, 100).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::string other = Bytes({0x0c, 0, 0, 0, 0x01, 0, 0, 0, 'A', 'B', 'C', 'D',
                             0, 0, 0, 0});
  EXPECT_EQ(DecompressRtf(other, 1 << 20, 100).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace leakhound
