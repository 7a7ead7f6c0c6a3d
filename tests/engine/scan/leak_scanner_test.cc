#include "engine/scan/leak_scanner.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string ReadSample(const std::string& relative) {
  std::ifstream in(fs::path(test_paths::kSourceDir) / "corpus/sample" / relative,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A sentence of incident-report.txt (27 words): a leak on its own.
constexpr char kIncidentPassage[] =
    "The exports contain support ticket text, customer names, email "
    "addresses and the last four digits of payment cards for approximately "
    "148,000 customers in the European region.";

const char* const kProtected[] = {
    "incident-report.txt", "merger-memo.txt", "pricing-2027.txt",
    "research-plan-ja.txt", "supplier-contract-zh.txt"};

class LeakScannerTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(0); }

  // A fresh index of the protected samples whose filter holds the
  // fingerprints winnowing selects with `filter_winnow_window`.
  void Open(int filter_winnow_window) {
    index_.reset();
    texts_.clear();
    IndexOptions options;
    options.shingler.filter_winnow_window = filter_winnow_window;
    auto index = ProtectedIndex::Create(
        tmp_.Sub("idx" + std::to_string(filter_winnow_window)), options);
    ASSERT_TRUE(index.ok()) << index.status();
    index_ = std::move(*index);
    for (const char* name : kProtected) {
      ASSERT_TRUE(Protect(name, ReadSample(std::string("protected/") + name)));
    }
  }

  bool Protect(const std::string& id, const std::string& text) {
    texts_.push_back(text);
    auto added = index_->Add(DocumentInput{id, id, {}, texts_.back()});
    EXPECT_TRUE(added.ok()) << added.status();
    return added.ok();
  }

  // Protects four forms that open with the same copyright header, and
  // returns the header.
  std::string ProtectFormsSharingAHeader() {
    const std::string header =
        "Copyright Example Industries. All rights reserved. Distribution of "
        "this document outside the company requires written approval from "
        "the legal department.";
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(Protect("form-" + std::to_string(i),
                          header + "\nForm " + std::to_string(i) +
                              " collects the quarterly figures of region " +
                              std::to_string(i * 7) + " for the controller."));
    }
    return header;
  }

  ScanReport Scan(const std::string& text, ScanOptions options = {}) {
    auto scanner = LeakScanner::Create(*index_, options);
    EXPECT_TRUE(scanner.ok()) << scanner.status();
    auto report = (*scanner)->Scan(text);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : ScanReport{};
  }

  static std::vector<std::string> Ids(const ScanReport& r) {
    std::vector<std::string> ids;
    for (const DocumentMatch& m : r.matches) ids.push_back(m.external_id);
    return ids;
  }

  TempDir tmp_;
  std::unique_ptr<ProtectedIndex> index_;
  std::vector<std::string> texts_;
};

TEST_F(LeakScannerTest, SampleLeaksMatchTheirSourcesAndCleanFilesDoNot) {
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/email-board-leak.txt"))),
              ElementsAre("merger-memo.txt"));
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/obfuscated-pricing-leak.txt"))),
              ElementsAre("pricing-2027.txt"));
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/wechat-zh-leak.txt"))),
              ElementsAre("supplier-contract-zh.txt"));
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/support-reply-clean.txt"))),
              IsEmpty());
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/newsletter-ja-clean.txt"))),
              IsEmpty());
}

TEST_F(LeakScannerTest, QuotedRewrappedParagraphIsOnePassageWithCoverage) {
  const std::string mail = ReadSample("outbound/email-board-leak.txt");
  ScanReport r = Scan(mail);
  ASSERT_EQ(r.matches.size(), 1u);
  const DocumentMatch& m = r.matches[0];
  ASSERT_EQ(m.passages.size(), 1u);
  const Passage& p = m.passages[0];
  const std::string passage =
      mail.substr(p.byte_begin, p.byte_end - p.byte_begin);
  EXPECT_EQ(passage.substr(0, 18), "Valuation. Our adv");
  EXPECT_TRUE(passage.ends_with("walk-away price of 241 million\n> dollars"))
      << passage;
  EXPECT_EQ(p.words, m.matched_words);
  // The quote's 58 words, each whitespace-delimited run one word
  // ("walk-away" is one).
  EXPECT_GE(m.matched_words, 58u);
  // The memo has 382 words; the quote is about a sixth of it.
  EXPECT_NEAR(m.coverage_of_source, double(m.matched_words) / 382, 0.02);
  EXPECT_NEAR(m.coverage_of_scanned, double(m.matched_words) / r.words, 1e-9);
  const std::string& memo = texts_[1];
  EXPECT_EQ(memo.substr(p.source_byte_begin, 10), "Valuation.");
}

TEST_F(LeakScannerTest, PassageShorterThanMinWordsIsAFalseCandidate) {
  // Twelve consecutive words of the incident report in an unrelated note.
  const std::string note =
      "Short note for the team. " +
      std::string("the secret scanning service did not cover repositories "
                  "outside our own organisation") +
      " -- nothing else today.";
  ScanOptions strict;
  strict.min_words = 15;
  ScanReport r = Scan(note, strict);
  ASSERT_GE(r.candidates.size(), 1u) << "the filter must propose the report";
  EXPECT_THAT(r.matches, IsEmpty());
  EXPECT_EQ(r.false_candidates, r.candidates.size());
  ScanOptions loose;
  loose.min_words = 10;
  EXPECT_THAT(Ids(Scan(note, loose)), ElementsAre("incident-report.txt"));
}

TEST_F(LeakScannerTest, BridgedGapsDoNotCountTowardMinWords) {
  // 8 words of the incident report, 10 words of other text in place of
  // its next 8, then its following 10 words: one passage spanning 28
  // words, 18 of them copied.
  const std::string note =
      "Status: The attacker downloaded 38 export files totalling 19 of data "
      "which the forensic team later confirmed in writing names, email "
      "addresses and the last four digits of payment, as expected.";
  ScanOptions eighteen;
  eighteen.min_words = 18;
  eighteen.word_checks = false;
  ScanReport r = Scan(note, eighteen);
  ASSERT_THAT(Ids(r), ElementsAre("incident-report.txt"));
  EXPECT_EQ(r.matches[0].longest_passage_words, 28u);
  EXPECT_EQ(r.matches[0].longest_covered_words, 18u);
  ScanOptions twenty = eighteen;
  twenty.min_words = 20;
  r = Scan(note, twenty);
  ASSERT_GE(r.candidates.size(), 1u) << "the filter must propose the report";
  EXPECT_THAT(r.matches, IsEmpty()) << "28 words of span, 18 covered";
  // With word checks the 10 words are found to be inserted (the source
  // holds none of them near the passage): more than one word in five of
  // the passage, so only the larger copied stretch around them counts.
  eighteen.word_checks = true;
  EXPECT_THAT(Scan(note, eighteen).matches, IsEmpty());
  ScanOptions ten = eighteen;
  ten.min_words = 10;
  r = Scan(note, ten);
  ASSERT_THAT(Ids(r), ElementsAre("incident-report.txt"));
  EXPECT_EQ(r.matches[0].longest_passage_words, 28u);
  EXPECT_EQ(r.matches[0].longest_covered_words, 10u);
}

TEST_F(LeakScannerTest, ReorderedSentencesCountAsOneGroup) {
  // Two consecutive sentences of the incident report, swapped: passages of
  // 14 and 13 words, each under the default --min-words, together one group.
  const std::string note =
      "Update: The bucket policy now allows reads only from the backup and "
      "the analytics jobs. All contractor tokens were revoked and reissued "
      "with a lifetime of one hour. Thanks.";
  ScanReport r = Scan(note);
  ASSERT_THAT(Ids(r), ElementsAre("incident-report.txt"));
  EXPECT_EQ(r.matches[0].passages.size(), 2u);
  EXPECT_EQ(r.matches[0].longest_covered_words, 14u);
  EXPECT_EQ(r.matches[0].group_words, 27u);
}

TEST_F(LeakScannerTest, AnAlphabetIsNoLeak) {
  // A book index's letter bar, found in a PDF's table by the 10,000-
  // document evaluation: 26 one-letter words weigh 13 words, under
  // --min-words 22; 26 words of three letters do not.
  const std::string letters =
      "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z\n";
  const std::string words =
      "Abc Bcd Cde Def Efg Fgh Ghi Hij Ijk Jkl Klm Lmn Mno Nop Opq Pqr Qrs "
      "Rst Stu Tuv Uvw Vwx Wxy Xyz Yza Zab\n";
  std::string entries;
  for (int i = 0; i < 40; ++i) {
    entries += "entry " + std::to_string(i) + ": page " +
               std::to_string(7 * i) + ", see also section " +
               std::to_string(i + 3) + "\n";
  }
  ASSERT_TRUE(Protect("book-index.txt", letters + words + entries));
  EXPECT_THAT(Ids(Scan("Table of characters\n" + letters + "End of table.")),
              ::testing::IsEmpty());
  EXPECT_THAT(Ids(Scan("Table of names\n" + words + "End of table.")),
              ElementsAre("book-index.txt"));
}

TEST_F(LeakScannerTest, ShortDocumentMatchesByCoverage) {
  ASSERT_TRUE(
      Protect("codename", "Project Heron launches on the ninth of May"));
  ScanReport r = Scan("Reminder: Project Heron launches on the ninth of May, "
                      "keep it quiet until then.");
  ASSERT_THAT(Ids(r), ElementsAre("codename"));
  EXPECT_LT(r.matches[0].longest_passage_words, 15u);
  EXPECT_DOUBLE_EQ(r.matches[0].coverage_of_source, 1.0);
}

TEST_F(LeakScannerTest, AllowListedTextNeverCounts) {
  const std::string disclaimer =
      "This message is intended only for the addressee and may contain "
      "information that is privileged and confidential. If you received it "
      "in error, please notify the sender and delete it.";
  ASSERT_TRUE(Protect("policy", ReadSample("protected/pricing-2027.txt")
                                    .substr(0, 200) + "\n" + disclaimer));
  EXPECT_THAT(Ids(Scan("Hello,\n\n" + disclaimer)), ElementsAre("policy"));
  ASSERT_TRUE(index_->AddAllowed("disclaimer", "d.txt", disclaimer).ok());
  ScanReport r = Scan("Hello,\n\n" + disclaimer);
  EXPECT_THAT(r.matches, IsEmpty());
  EXPECT_GT(r.allowed_fingerprints, 25u);
}

TEST_F(LeakScannerTest, TextInManyDocumentsIsBoilerplate) {
  const std::string header = ProtectFormsSharingAHeader();
  ScanOptions off;
  off.boilerplate_documents = 0;
  EXPECT_EQ(Scan(header, off).matches.size(), 4u);
  ScanOptions on;
  on.boilerplate_documents = 3;  // in more than 3 documents: boilerplate
  ScanReport r = Scan(header, on);
  EXPECT_THAT(r.matches, IsEmpty());
  // Boilerplate never reaches the filter query: no candidate at all.
  EXPECT_THAT(r.candidates, IsEmpty());
  EXPECT_GT(r.boilerplate_shingles, 15u);
  // Beside boilerplate, a leak is still found.
  r = Scan(header + "\n" + kIncidentPassage,
           on);
  EXPECT_THAT(Ids(r), ElementsAre("incident-report.txt"));
}

TEST_F(LeakScannerTest,
       TextSharedOnlyAsBoilerplateRaisesNothingUnderTheDistinctiveRule) {
  const std::string header = ProtectFormsSharingAHeader();  // 4 documents
  ScanReport r = Scan(header);  // the rule is off by default
  ASSERT_EQ(r.matches.size(), 4u);
  for (const DocumentMatch& m : r.matches) EXPECT_EQ(m.distinctive_words, 0u);
  ScanOptions on;
  on.min_distinctive_words = 5;  // distinctive: in at most 2 documents
  r = Scan(header, on);
  EXPECT_THAT(r.matches, IsEmpty());
  EXPECT_GE(r.false_candidates, 4u);  // the four forms among them
  // Beside the header, a passage of one document is still a leak, with
  // its own words distinctive.
  r = Scan(header + "\n" + kIncidentPassage,
           on);
  ASSERT_THAT(Ids(r), ElementsAre("incident-report.txt"));
  EXPECT_GE(r.matches[0].distinctive_words, 20u);
  on.distinctive_documents = 4;  // the header's documents count as few
  EXPECT_EQ(Scan(header, on).matches.size(), 4u);
}

// A filter holding a winnowed sample (window 4) still finds the sample
// leaks, whose passages run to 40 words and more, and no clean file; the
// second stage compares every shingle.
TEST_F(LeakScannerTest, ASampledFilterFindsTheSampleLeaks) {
  Open(4);
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/email-board-leak.txt"))),
              ElementsAre("merger-memo.txt"));
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/wechat-zh-leak.txt"))),
              ElementsAre("supplier-contract-zh.txt"));
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/support-reply-clean.txt"))),
              IsEmpty());
  EXPECT_THAT(Ids(Scan(ReadSample("outbound/newsletter-ja-clean.txt"))),
              IsEmpty());
}

// With a sampled filter, boilerplate is still found among every shingle of
// the text, not only the sampled ones: none counts in the second stage.
TEST_F(LeakScannerTest, ASampledFilterSuppressesBoilerplateOutsideItsSample) {
  Open(4);
  const std::string header = ProtectFormsSharingAHeader();
  ScanOptions on;
  on.boilerplate_documents = 3;
  ScanReport r = Scan(header, on);
  EXPECT_THAT(r.matches, IsEmpty());
  EXPECT_THAT(r.candidates, IsEmpty());
  // Every shingle of the header, not the 2/5 the filter samples.
  EXPECT_GT(r.boilerplate_shingles, 15u);
}

TEST_F(LeakScannerTest, OptionsOutOfRangeAreRefused) {
  ScanOptions bad;
  bad.min_coverage = 0;
  EXPECT_EQ(LeakScanner::Create(*index_, bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = {};
  bad.min_words = 0;
  EXPECT_EQ(LeakScanner::Create(*index_, bad).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace leakhound
