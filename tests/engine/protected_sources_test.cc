#include "engine/protected_sources.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

std::vector<ProtectedSource> TwoNested() {
  SourceRecord share;
  share.root = "/srv/share";
  share.labels = {"internal"};
  SourceRecord finance;
  finance.root = "/srv/share/finance";
  finance.labels = {"secret"};
  finance.folder_labels = {{"board", {"board-only", "secret"}}};
  return {{"share", share}, {"finance", finance}};
}

TEST(ProtectedSourcesTest, AFileTakesItsDeepestSourcesIdWhateverFolderIsNamed) {
  const std::vector<ProtectedSource> sources = TwoNested();
  auto in_finance = PlaceInSources(sources, "/srv/share/finance/q3/plan.txt");
  ASSERT_TRUE(in_finance.has_value());
  EXPECT_EQ(in_finance->id, "finance/q3/plan.txt");
  EXPECT_EQ(in_finance->relative, "q3/plan.txt");
  EXPECT_EQ(in_finance->source->name, "finance");
  EXPECT_EQ(PlaceInSources(sources, "/srv/share/memo.txt")->id,
            "share/memo.txt");
  // A sibling whose name only starts like a root is not under it.
  EXPECT_EQ(PlaceInSources(sources, "/srv/share/finance-old/x.txt")->id,
            "share/finance-old/x.txt");
  EXPECT_FALSE(PlaceInSources(sources, "/srv/other/x.txt").has_value());
  EXPECT_FALSE(PlaceInSources(sources, "/srv/share").has_value());
  EXPECT_EQ(SourceHolding(sources, "/srv/share/finance")->name, "finance");
}

TEST(ProtectedSourcesTest, DeclaredLabelsJoinTheSourcesAndEveryHoldingFolders) {
  const SourceRecord finance = TwoNested()[1].record;
  EXPECT_THAT(DeclaredLabels(finance, "q3/plan.txt"), ElementsAre("secret"));
  EXPECT_THAT(DeclaredLabels(finance, "board/minutes/jan.txt"),
              ElementsAre("board-only", "secret"));
  EXPECT_THAT(DeclaredLabels(finance, "boardroom.txt"), ElementsAre("secret"));
}

TEST(ProtectedSourcesTest, GlobsWithoutASlashMatchTheNameAndWithOneThePath) {
  SourceRecord r;
  r.root = "/srv/s";
  r.exclude = {"*.tmp", "drafts/*"};
  EXPECT_TRUE(SourceSelects(r, "a/b/report.txt"));
  EXPECT_FALSE(SourceSelects(r, "a/b/report.tmp"));
  EXPECT_FALSE(SourceSelects(r, "drafts/deep/x.txt"));
  EXPECT_TRUE(SourceSelects(r, "a/drafts/x.txt"));
  r.include = {"*.txt", "*.docx"};
  EXPECT_TRUE(SourceSelects(r, "x/y.docx"));
  EXPECT_FALSE(SourceSelects(r, "x/y.pdf"));
  EXPECT_FALSE(SourceSelects(r, "drafts/y.txt"));
}

TEST(ProtectedSourcesTest, SourceNamesAreShortWordsWithoutSlashOrColon) {
  EXPECT_TRUE(ValidSourceName("finance-2026_Q3.v2").ok());
  for (const char* bad : {"", ".hidden", "-x", "a/b", "a:b", "with space"}) {
    EXPECT_FALSE(ValidSourceName(bad).ok()) << bad;
  }
  EXPECT_FALSE(ValidSourceName(std::string(65, 'a')).ok());
}

}  // namespace
}  // namespace leakhound
