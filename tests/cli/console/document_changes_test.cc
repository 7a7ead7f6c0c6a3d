#include "cli/console/document_changes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/protected_index.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kText[] =
    "The Harrow Lane depot lease runs until March 2031 at 41,200 euros a "
    "month, indexed to consumer prices, with a break clause after the fifth "
    "year that the landlord has agreed not to advertise.";

TEST(DocumentChangesTest, LabelsAreSetButASourcesDeclaredLabelStays) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    auto index = ProtectedIndex::Create(dir, IndexOptions());
    ASSERT_TRUE(index.ok());
    SourceRecord finance;
    finance.root = "/srv/finance";
    finance.labels = {"secret"};
    ASSERT_TRUE((*index)->PutSource("finance", finance).ok());
    ASSERT_TRUE((*index)
                    ->Add(DocumentInput{"finance/lease.txt",
                                        "/srv/finance/lease.txt",
                                        {"secret"},
                                        kText})
                    .ok());
  }
  auto change = SetDocumentLabels(dir, "finance/lease.txt", " q3 ,secret, q3");
  ASSERT_TRUE(change.ok()) << change.status();
  EXPECT_THAT(change->before, ElementsAre("secret"));
  EXPECT_THAT(change->after, ElementsAre("q3", "secret"));
  auto dropped = SetDocumentLabels(dir, "finance/lease.txt", "q3");
  ASSERT_FALSE(dropped.ok());
  EXPECT_THAT(dropped.status().message(),
              HasSubstr("label secret is declared by source finance"));
  EXPECT_EQ(SetDocumentLabels(dir, "nope", "x").status().code(),
            absl::StatusCode::kNotFound);
  auto index = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(index.ok());
  auto id = (*index)->store().FindExternalId("finance/lease.txt");
  auto record = (*index)->store().ReadDocument(**id);
  EXPECT_THAT((*record)->labels, ElementsAre("q3", "secret"));
}

}  // namespace
}  // namespace leakhound
