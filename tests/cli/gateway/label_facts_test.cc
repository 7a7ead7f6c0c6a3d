#include "cli/gateway/label_facts.h"

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(LabelFactsTest, APartFactSurvivesTheIncidentAndItsBytesArePinned) {
  PartFacts p{"mail.eml!/copy.docx",
              true,
              {{"87867195-f2b8-4ac2-b0b6-6bb73cb33afc", "Public"}},
              {"deals/merger.docx"}};
  const IncidentDocument fact = PartFactRecord(p);
  // PERSISTED (docs/storage_format.md).
  EXPECT_EQ(fact.document, "part mail.eml!/copy.docx");
  EXPECT_EQ(
      fact.labels,
      (std::vector<std::string>{
          "labellable", "label:87867195-f2b8-4ac2-b0b6-6bb73cb33afc\tPublic",
          "quotes:deals/merger.docx"}));
  PartFacts read;
  ASSERT_TRUE(ReadPartFact(fact, &read));
  EXPECT_EQ(read, p);
  EXPECT_FALSE(
      ReadPartFact(IncidentDocument{"deals/merger.docx", {}, 3, 0}, &read));
}

TEST(LabelFactsTest, ADocumentsSensitivityTravelsAmongItsLabels) {
  MatchedDocument d{"deals/merger.docx", {"finance"}, 44, 1.0};
  d.sensitivity = {{"", "Highly\nConfidential"}};
  MatchedDocument read{d.id, LabelsWithSensitivity(d), d.words, d.share};
  EXPECT_EQ(read.labels, (std::vector<std::string>{
                             "finance", "sensitivity:\tHighly Confidential"}));
  TakeSensitivity(&read);
  EXPECT_EQ(read.labels, std::vector<std::string>{"finance"});
  ASSERT_EQ(read.sensitivity.size(), 1u);
  // A line end cannot split the store's list: it became a space.
  EXPECT_EQ(read.sensitivity[0].name, "Highly Confidential");
}

}  // namespace
}  // namespace leakhound
