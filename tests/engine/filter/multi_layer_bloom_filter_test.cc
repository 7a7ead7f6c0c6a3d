#include "engine/filter/multi_layer_bloom_filter.h"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

std::vector<uint64_t> Hashes(const std::vector<std::string_view>& segments) {
  std::vector<uint64_t> out;
  for (std::string_view s : segments) {
    out.push_back(Fmix64(std::hash<std::string_view>{}(s)));
  }
  return out;
}

std::vector<uint64_t> UrlHashes(std::string_view url, uint32_t layers) {
  return Hashes(MultiLayerBloomFilter::Split(url, layers));
}

TEST(MultiLayerBloomFilterTest, RejectsParametersOutOfRange) {
  EXPECT_FALSE(MultiLayerBloomFilter::Create({0, 3, 1024, true}).ok());
  EXPECT_FALSE(MultiLayerBloomFilter::Create({65, 3, 1024, true}).ok());
  EXPECT_FALSE(MultiLayerBloomFilter::Create({4, 0, 1024, true}).ok());
  EXPECT_FALSE(MultiLayerBloomFilter::Create({4, 33, 1024, true}).ok());
  EXPECT_FALSE(MultiLayerBloomFilter::Create({4, 3, 0, true}).ok());
}

TEST(MultiLayerBloomFilterTest,
     SplitDropsTheSchemeAndJoinsSegmentsPastTheLast) {
  EXPECT_THAT(MultiLayerBloomFilter::Split("https://a.example/b/c", 4),
              ElementsAre("a.example", "b", "c"));
  EXPECT_THAT(MultiLayerBloomFilter::Split("http://a//b/c/d/e/f/", 4),
              ElementsAre("a", "b", "c", "d/e/f"));
  EXPECT_THAT(MultiLayerBloomFilter::Split("/srv/share/finance", 2),
              ElementsAre("srv", "share/finance"));
  EXPECT_THAT(MultiLayerBloomFilter::Split("a/b://c", 4),
              ElementsAre("a", "b:", "c"));
  EXPECT_TRUE(MultiLayerBloomFilter::Split("https:///", 4).empty());
}

TEST(MultiLayerBloomFilterTest, EveryInsertedKeyIsContainedWhateverItsDepth) {
  // Small filters (heavily loaded) and keys of 1..L segments: no false
  // negative may appear at any load.
  std::mt19937_64 rng(7);
  for (uint32_t bits : {64u, 1000u, 65536u}) {
    for (bool xor_layer : {false, true}) {
      auto filter = MultiLayerBloomFilter::Create({4, 3, bits, xor_layer});
      ASSERT_TRUE(filter.ok());
      std::vector<std::vector<uint64_t>> keys;
      for (int i = 0; i < 3000; ++i) {
        std::vector<uint64_t> key(1 + rng() % 4);
        for (uint64_t& h : key) h = rng();
        filter->Insert(key);
        keys.push_back(std::move(key));
      }
      for (const auto& key : keys) {
        ASSERT_TRUE(filter->Contains(key)) << bits << " " << xor_layer;
      }
    }
  }
}

TEST(MultiLayerBloomFilterTest,
     XorLayerRejectsSegmentsOfDifferentKeysCombined) {
  // host_i/path_i inserted; host_i/path_{i+1} has both segments in their
  // layers, so only the XOR layer can reject it.
  std::vector<std::string> hosts, paths;
  for (int i = 0; i < 1000; ++i) {
    hosts.push_back("host" + std::to_string(i) + ".example");
    paths.push_back("page" + std::to_string(i) + ".html");
  }
  int passed_without = 0, passed_with = 0;
  for (bool xor_layer : {false, true}) {
    auto filter = MultiLayerBloomFilter::Create({2, 3, 1u << 20, xor_layer});
    ASSERT_TRUE(filter.ok());
    for (int i = 0; i < 1000; ++i) {
      filter->Insert(Hashes({hosts[i], paths[i]}));
    }
    for (int i = 0; i < 1000; ++i) {
      const bool in =
          filter->Contains(Hashes({hosts[i], paths[(i + 1) % 1000]}));
      (xor_layer ? passed_with : passed_without) += in ? 1 : 0;
    }
  }
  EXPECT_EQ(passed_without, 1000);
  // Expected about 1000 * (3000 / 2^20)^3, far below one.
  EXPECT_EQ(passed_with, 0);
}

TEST(MultiLayerBloomFilterTest, APrefixOfAKeyIsRejectedByTheXorLayer) {
  auto filter = MultiLayerBloomFilter::Create({4, 3, 1u << 20, true});
  ASSERT_TRUE(filter.ok());
  filter->Insert(UrlHashes("https://wiki.example/finance/q3/plan", 4));
  EXPECT_TRUE(filter->Contains(
      UrlHashes("http://wiki.example/finance/q3/plan/", 4)));
  EXPECT_FALSE(filter->Contains(UrlHashes("wiki.example/finance/q3", 4)));
  EXPECT_FALSE(filter->Contains(UrlHashes("wiki.example/finance", 4)));
}

TEST(MultiLayerBloomFilterTest, ClassicFalsePositiveRateFollowsTheFormula) {
  // One layer without the XOR layer is a classic Bloom filter:
  // f = (1 - e^(-kn/m))^k.
  const uint32_t m = 1u << 16, k = 4, n = 8000;
  auto filter = MultiLayerBloomFilter::Create({1, k, m, false});
  ASSERT_TRUE(filter.ok());
  std::mt19937_64 rng(11);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t h = rng();
    filter->Insert(std::span<const uint64_t>(&h, 1));
  }
  const int trials = 200000;
  int positives = 0;
  for (int i = 0; i < trials; ++i) {
    const uint64_t h = rng();
    positives += filter->Contains(std::span<const uint64_t>(&h, 1)) ? 1 : 0;
  }
  const double expected = std::pow(1 - std::exp(-double{k} * n / m), k);
  const double measured = static_cast<double>(positives) / trials;
  // expected ~0.0507: 200,000 trials give a standard error of 0.0005.
  EXPECT_NEAR(measured, expected, 0.003);
  EXPECT_NEAR(filter->Fill(0), 1 - std::exp(-double{k} * n / m), 0.01);
}

TEST(MultiLayerBloomFilterTest, MemoryIsOneArrayPerLayerPlusTheXorLayer) {
  auto with = MultiLayerBloomFilter::Create({4, 3, 6400, true});
  auto without = MultiLayerBloomFilter::Create({4, 3, 6400, false});
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->MemoryBytes(), 5u * 800u);
  EXPECT_EQ(without->MemoryBytes(), 4u * 800u);
}

}  // namespace
}  // namespace leakhound
