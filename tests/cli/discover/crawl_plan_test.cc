#include "cli/discover/crawl_plan.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

SeenFile Seen(const std::string& path, uint64_t size, int64_t mtime) {
  SeenFile f{path, {}, absl::OkStatus()};
  f.facts.device = 1;
  f.facts.inode = size;  // one inode per size, for the test
  f.facts.size = size;
  f.facts.mtime_ns = mtime;
  f.facts.ctime_ns = mtime;
  return f;
}

CatalogueEntry Entry(const SeenFile& f, const std::string& basis,
                     const std::string& verdict) {
  return EntryOf("share", f, "digest", basis, verdict, "");
}

TEST(CrawlPlanTest, OnlyNewChangedStaleAndUnjudgedFilesAreRead) {
  const SeenFile same = Seen("/s/same.txt", 10, 100);
  const SeenFile touched = Seen("/s/touched.txt", 20, 200);
  const SeenFile stale = Seen("/s/stale.txt", 30, 300);
  const SeenFile failed = Seen("/s/failed.txt", 40, 400);
  const SeenFile fresh = Seen("/s/new.txt", 50, 500);
  SeenFile touched_now = touched;
  touched_now.facts.ctime_ns += 1;  // chmod, or an mtime put back
  std::vector<CatalogueEntry> catalogue = {
      Entry(same, "b2", "clean"), Entry(touched, "b2", "clean"),
      Entry(stale, "b1", "leak"), Entry(failed, "b2", "error"),
      Entry(Seen("/s/gone.txt", 60, 600), "b2", "clean")};
  const CrawlPlan plan =
      PlanCrawl({same, touched_now, stale, failed, fresh}, catalogue, "b2");
  ASSERT_EQ(plan.files.size(), 5u);
  EXPECT_EQ(plan.files[0].reason, ReadReason::kUnchanged);
  EXPECT_EQ(plan.files[1].reason, ReadReason::kChanged);
  EXPECT_EQ(plan.files[2].reason, ReadReason::kBasis);
  EXPECT_EQ(plan.files[3].reason, ReadReason::kRetry);
  EXPECT_EQ(plan.files[4].reason, ReadReason::kNew);
  EXPECT_FALSE(plan.files[4].last.has_value());
  ASSERT_TRUE(plan.files[2].last.has_value());
  EXPECT_EQ(plan.files[2].last->verdict, "leak");
  EXPECT_EQ(plan.to_read, 4u);
  EXPECT_EQ(plan.basis_changed, 1u);
  ASSERT_EQ(plan.gone.size(), 1u);
  EXPECT_EQ(plan.gone[0].path, "/s/gone.txt");
}

TEST(CrawlPlanTest, AnUnchangedShareUnderTheSameBasisReadsNothing) {
  std::vector<SeenFile> seen;
  std::vector<CatalogueEntry> catalogue;
  for (int i = 0; i < 100; ++i) {
    seen.push_back(
        Seen("/s/f" + std::to_string(i), static_cast<uint64_t>(100 + i), i));
    catalogue.push_back(Entry(seen.back(), "b", i % 3 ? "clean" : "unread"));
  }
  const CrawlPlan plan = PlanCrawl(seen, catalogue, "b");
  EXPECT_EQ(plan.to_read, 0u);
  EXPECT_TRUE(plan.gone.empty());
  // Every file is read again once the basis moves, and says so.
  const CrawlPlan stale = PlanCrawl(seen, catalogue, "b'");
  EXPECT_EQ(stale.to_read, 100u);
  EXPECT_EQ(stale.basis_changed, 100u);
}

TEST(CrawlPlanTest, AFileHandedOutButNotJudgedIsNew) {
  const SeenFile f = Seen("/s/claimed.txt", 10, 1);
  const CrawlPlan plan = PlanCrawl({f}, {Entry(f, "", "new")}, "b");
  EXPECT_EQ(plan.files[0].reason, ReadReason::kNew);
  EXPECT_EQ(plan.basis_changed, 0u);
}

TEST(CrawlPlanTest, AFileThatCouldNotBeExaminedIsReadAgain) {
  SeenFile f = Seen("/s/locked.txt", 10, 1);
  const std::vector<CatalogueEntry> catalogue = {Entry(f, "b", "clean")};
  f.problem = absl::PermissionDeniedError("Permission denied");
  const CrawlPlan plan = PlanCrawl({f}, catalogue, "b");
  EXPECT_EQ(plan.files[0].reason, ReadReason::kRetry);
}

}  // namespace
}  // namespace leakhound
