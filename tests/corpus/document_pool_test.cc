#include "corpus/document_pool.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

std::string Body(char fill, size_t bytes) {
  return std::string(bytes - 1, fill) + "\n";
}

TEST(SplitSectionsTest, RestructuredTextIsCutAtUnderlinedAndOverlinedTitles) {
  const std::string a = "Title\n=====\n\n" + Body('a', 40);
  const std::string b = "=========\nOverlined\n=========\n" + Body('b', 40);
  const std::string c = "Sub\n---\n" + Body('c', 40);
  const std::vector<std::string> parts =
      SplitSections(a + b + c, SectionHeadings::kRestructuredText, 10);
  EXPECT_THAT(parts, ElementsAre(a, b, c));
}

TEST(SplitSectionsTest, TablesTransitionsAndShortUnderlinesAreNoHeadings) {
  const std::string text = "Intro\n" + Body('a', 40) +
                           "\n----\n\n" +                  // a transition
                           "=====  =====\ncol1   col2\n=====  =====\n" +
                           "Longer title\n===\n" + Body('b', 40);
  EXPECT_THAT(SplitSections(text, SectionHeadings::kRestructuredText, 10),
              ElementsAre(text));
}

TEST(SplitSectionsTest, IndentedTextIsCutAtUnindentedLinesAfterABlankLine) {
  const std::string a = "NAME\n    x - " + Body('a', 40) + "\n";
  const std::string b = "DESCRIPTION\n    " + Body('b', 40) + "\n";
  const std::string c = "SEE ALSO\n    " + Body('c', 40);
  EXPECT_THAT(SplitSections(a + b + c, SectionHeadings::kIndented, 10),
              ElementsAre(a, b, c));
}

TEST(SplitSectionsTest, ShortSectionsJoinTheNextAndAShortTailThePrevious) {
  const std::string a = "NAME\n    x\n\n";
  const std::string b = "DESCRIPTION\n    " + Body('b', 60) + "\n";
  const std::string c = "FOOTER 1\n";
  EXPECT_THAT(SplitSections(a + b + c, SectionHeadings::kIndented, 30),
              ElementsAre(a + b + c));
  const std::string d = "MORE\n    " + Body('d', 60);
  EXPECT_THAT(SplitSections(a + b + d + c, SectionHeadings::kIndented, 30),
              ElementsAre(a + b, d + c));
}

TEST(SplitSectionsTest, SectionsConcatenateToTheText) {
  std::string text;
  for (int i = 0; i < 50; ++i) {
    text += "Heading " + std::to_string(i) + "\n" + std::string(11, '~') +
            "\n\n" + Body('x', static_cast<size_t>(5 + i * 7 % 90));
  }
  const std::vector<std::string> parts =
      SplitSections(text, SectionHeadings::kRestructuredText, 100);
  EXPECT_GT(parts.size(), 5u);
  EXPECT_EQ(absl::StrJoin(parts, ""), text);
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    EXPECT_GE(parts[i].size(), 100u);
}

// The corpus prepared by the eval_corpus test fixture
// (corpus/prepare_corpora.sh), real documents from Debian packages.
TEST(DocumentPoolTest, RolesAreDisjointAndEveryCollectionIsDrawn) {
  PoolLimits limits;
  limits.per_collection_role = 12;
  auto pool = LoadDocumentPool(test_paths::kEvalCorpus, 3, limits);
  ASSERT_TRUE(pool.ok()) << pool.status();
  std::set<std::string> seen, collections;
  for (const auto* role :
       {&pool->protected_docs, &pool->hosts, &pool->held_out}) {
    EXPECT_FALSE(role->empty());
    for (const PoolDocument& doc : *role) {
      EXPECT_TRUE(seen.insert(doc.id).second) << doc.id << " in two roles";
      EXPECT_GE(doc.text.size(), doc.chinese ? 500u : 1500u) << doc.id;
      collections.insert(doc.collection);
    }
  }
  EXPECT_THAT(collections, ElementsAre("gnu", "kernel", "man", "perl", "pg",
                                       "python", "zh", "zh_tw"));
  // ICU's transforms as uconv ran them: 机 <-> 機.
  EXPECT_EQ(pool->to_traditional.at(U'\u673A'), U'\u6A5F');
  EXPECT_EQ(pool->to_simplified.at(U'\u6A5F'), U'\u673A');
}

}  // namespace
}  // namespace leakhound
