#include "engine/protected_locations.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Key(std::string_view location) {
  auto key = ProtectedLocations::Normalize(location);
  return key.ok() ? *key : "error: " + std::string(key.status().message());
}

TEST(ProtectedLocationsTest, NormalizeGivesOneKeyPerSpellingOfALocation) {
  EXPECT_EQ(Key("https://Wiki.Corp.Example/Finance/"),
            "//wiki.corp.example/finance");
  EXPECT_EQ(Key("http://user:pw@wiki.corp.example:8443//finance/q3?x=1#top"),
            "//wiki.corp.example/finance/q3");
  EXPECT_EQ(Key("wiki.corp.example/finance"), "//wiki.corp.example/finance");
  EXPECT_EQ(Key(R"(\\FS01\Finance\Budget)"), "//fs01/finance/budget");
  EXPECT_EQ(Key("smb://fs01/finance/budget"), "//fs01/finance/budget");
  EXPECT_EQ(Key("//fs01/finance"), "//fs01/finance");
  EXPECT_EQ(Key("  /srv/share/finance/  "), "/srv/share/finance");
  EXPECT_EQ(Key("file:///srv/share/finance"), "/srv/share/finance");
  EXPECT_EQ(Key(R"(C:\Users\Ann\Finance)"), "c:/users/ann/finance");
  EXPECT_EQ(Key(R"(\\fs01\ HR Share \x)"), "//fs01/hr share/x");
  // A key normalizes to itself (fuzz_locations found a segment ending in a
  // space that did not).
  EXPECT_EQ(Key(Key("https:x.ee/mx //mx /")), Key("https:x.ee/mx //mx /"));
  EXPECT_EQ(Key("s:/"), "s:");
  EXPECT_EQ(Key("s:"), "s:");
}

TEST(ProtectedLocationsTest, NormalizeRejectsWhatIsNotALocation) {
  EXPECT_FALSE(ProtectedLocations::Normalize("finance").ok());
  EXPECT_FALSE(ProtectedLocations::Normalize("and/or").ok());
  EXPECT_FALSE(ProtectedLocations::Normalize("/").ok());
  EXPECT_FALSE(ProtectedLocations::Normalize("https:///path").ok());
  EXPECT_FALSE(ProtectedLocations::Normalize(R"(\\)").ok());
  EXPECT_FALSE(ProtectedLocations::Normalize("").ok());
}

ProtectedLocations Protect(const std::vector<std::string>& given) {
  std::vector<std::string> keys;
  for (const std::string& g : given) keys.push_back(Key(g));
  return ProtectedLocations(std::move(keys));
}

TEST(ProtectedLocationsTest, FindsLocationsUnderAPrefixWithTheirBytes) {
  const ProtectedLocations locations = Protect(
      {"https://wiki.corp.example/finance/", R"(\\fs01\hr)"});
  const std::string text =
      "Plan at https://WIKI.corp.example/finance/q3/plan.html, and "
      "(see \\\\FS01\\HR\\salaries.xlsx). Not wiki.corp.example/finance-public "
      "nor https://wiki.corp.example/ or //fs01/hrx.";
  const std::vector<LocationFinding> found = locations.Find(text);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text.substr(found[0].byte_begin,
                        found[0].byte_end - found[0].byte_begin),
            "https://WIKI.corp.example/finance/q3/plan.html");
  EXPECT_EQ(found[0].key, "//wiki.corp.example/finance/q3/plan.html");
  EXPECT_EQ(found[0].prefix, "//wiki.corp.example/finance");
  EXPECT_EQ(text.substr(found[1].byte_begin,
                        found[1].byte_end - found[1].byte_begin),
            "\\\\FS01\\HR\\salaries.xlsx");
  EXPECT_EQ(found[1].prefix, "//fs01/hr");
}

TEST(ProtectedLocationsTest, FindsBareHostsSchemesInsideTokensAndDeepPaths) {
  const ProtectedLocations locations =
      Protect({"wiki.corp.example/a/b/c/d/e", "/srv/finance"});
  const std::string text =
      "url:https://wiki.corp.example/a/b/c/d/e/f.\n"
      "见wiki.corp.example/a/b/c/d/e。 and /srv/finance/q3\t"
      "but not wiki.corp.example/a/b/c/d nor /srv/financial";
  std::vector<std::string> prefixes;
  std::vector<std::string> spans;
  for (const LocationFinding& f : locations.Find(text)) {
    prefixes.push_back(f.prefix);
    spans.push_back(text.substr(f.byte_begin, f.byte_end - f.byte_begin));
  }
  EXPECT_THAT(spans, ElementsAre("https://wiki.corp.example/a/b/c/d/e/f",
                                 "wiki.corp.example/a/b/c/d/e",
                                 "/srv/finance/q3"));
  EXPECT_THAT(prefixes, ElementsAre("//wiki.corp.example/a/b/c/d/e",
                                    "//wiki.corp.example/a/b/c/d/e",
                                    "/srv/finance"));
}

TEST(ProtectedLocationsTest, FindsNothingWhenNothingIsProtected) {
  EXPECT_THAT(ProtectedLocations().Find("https://wiki.corp.example/finance"),
              IsEmpty());
}

TEST(ProtectedLocationsTest,
     EveryProtectedKeyIsFoundAmongManyWhateverItsDepth) {
  // No false negative through the multi-layer filter: 5,000 keys of 1 to 7
  // segments, each found when written in text.
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    std::string key = "//host" + std::to_string(i % 97) + ".example";
    for (int d = 0; d < i % 7; ++d) key += "/s" + std::to_string((i + d) % 13);
    key += "/leaf" + std::to_string(i);
    keys.push_back(key);
  }
  const ProtectedLocations locations(keys);
  for (const std::string& key : keys) {
    const std::string text = "see https:" + key + "/x.pdf today";
    const std::vector<LocationFinding> found = locations.Find(text);
    ASSERT_EQ(found.size(), 1u) << key;
    EXPECT_EQ(found[0].prefix, key);
  }
}

}  // namespace
}  // namespace leakhound
