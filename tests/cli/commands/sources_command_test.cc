// `leakhound sources`, `leakhound label` and the ids and labels add and
// sync give files under a registered source, through the real binary on a
// real folder that changes between runs.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Sample(const std::string& name) {
  return std::string(test_paths::kSourceDir) + "/corpus/sample/protected/" +
         name;
}

class SourcesCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = tmp_.Sub("index");
    share_ = tmp_.Sub("share");
    ASSERT_EQ(Run({"init"}).exit, 0);
    std::filesystem::create_directories(share_ + "/finance/board");
    Copy("merger-memo.txt", "finance/board/merger-memo.txt");
    Copy("pricing-2027.txt", "finance/pricing-2027.txt");
    Copy("incident-report.txt", "incident-report.txt");
  }
  void Copy(const std::string& sample, const std::string& to) {
    std::filesystem::copy_file(Sample(sample), share_ + "/" + to);
  }
  void Edit(const std::string& file) {
    std::ofstream(share_ + "/" + file, std::ios::app)
        << "\nAddendum: the regional discount rises to 14 percent in March.\n";
  }
  // Runs `leakhound ARGS[0] --index INDEX ARGS[1..]`.
  RunResult Run(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--index", index_});
    return RunLeakhound(args);
  }
  // The `list` line of document `id` (empty when not listed).
  std::string Line(const std::string& id) {
    const std::string listed = Run({"list"}).out;
    const size_t at = listed.find("\n" + id + " ");
    if (at == std::string::npos) return "";
    return listed.substr(at + 1, listed.find('\n', at + 1) - at - 1);
  }

  TempDir tmp_;
  std::string index_, share_;
};

// The repro of issue 65: labels given to add are lost when the packaged
// timer syncs an edited file without --label.
TEST_F(SourcesCommandTest, LabelsSurviveASyncWithoutLabelOfAnEditedFile) {
  ASSERT_EQ(Run({"add", "--label", "secret", share_ + "/finance"}).exit, 0);
  Edit("finance/pricing-2027.txt");
  RunResult synced = Run({"sync", share_ + "/finance"});
  ASSERT_EQ(synced.exit, 0) << synced.err;
  EXPECT_THAT(synced.out, HasSubstr("replace finance/pricing-2027.txt"));
  EXPECT_THAT(Line("finance/pricing-2027.txt"), HasSubstr("secret"));
  // A label given again to an unchanged document is added, not "unchanged".
  RunResult again = Run({"add", "--label", "board", share_ + "/finance"});
  EXPECT_THAT(again.out, HasSubstr("labels added: board"));
  EXPECT_THAT(Line("finance/pricing-2027.txt"), HasSubstr("board,secret"));
}

TEST_F(SourcesCommandTest, ASourcesDeclaredLabelsReachReplacedAndNewFiles) {
  RunResult added =
      Run({"sources", "add", "--label", "secret", "--folder-label",
           "board=board-only", "--exclude", "*.tmp", "fin",
           share_ + "/finance"});
  ASSERT_EQ(added.exit, 0) << added.err;
  EXPECT_THAT(added.out, HasSubstr("add fin/board/merger-memo.txt"));
  EXPECT_THAT(Line("fin/board/merger-memo.txt"),
              HasSubstr("board-only,secret"));
  Edit("finance/pricing-2027.txt");
  Copy("supplier-contract-zh.txt", "finance/board/contract.txt");
  Copy("research-plan-ja.txt", "finance/scratch.tmp");
  RunResult synced = Run({"sync"});  // every source, as the timer runs it
  ASSERT_EQ(synced.exit, 0) << synced.err;
  EXPECT_THAT(synced.out, HasSubstr("replace fin/pricing-2027.txt"));
  EXPECT_THAT(synced.out, HasSubstr("1 file left out by the sources' globs"));
  EXPECT_THAT(Line("fin/pricing-2027.txt"), HasSubstr("secret"));
  EXPECT_THAT(Line("fin/board/contract.txt"), HasSubstr("board-only,secret"));
  EXPECT_EQ(Line("fin/scratch.tmp"), "");
  // A declaration changed moves the declared labels of every document.
  ASSERT_EQ(Run({"sources", "set", "--label", "confidential", "fin"}).exit, 0);
  EXPECT_THAT(Line("fin/pricing-2027.txt"), HasSubstr("confidential"));
  EXPECT_THAT(Line("fin/pricing-2027.txt"), Not(HasSubstr("secret")));
  RunResult listed = Run({"sources", "list", "--json"});
  EXPECT_THAT(listed.out, HasSubstr("\"labels\":[\"confidential\"]"));
  EXPECT_THAT(listed.out, HasSubstr("\"documents\":3"));
}

// The second repro: a folder added, then its parent synced, protected one
// file under two ids. With sources, each file has one id whichever folder
// a command names.
TEST_F(SourcesCommandTest, ASyncOfTheParentKeepsOneIdPerFile) {
  ASSERT_EQ(Run({"sources", "add", "finance", share_ + "/finance"}).exit, 0);
  Copy("supplier-contract-zh.txt", "finance/new.txt");
  RunResult synced = Run({"sync", share_});
  ASSERT_EQ(synced.exit, 0) << synced.err;
  EXPECT_THAT(synced.out, HasSubstr("add finance/new.txt"));
  EXPECT_THAT(synced.out, HasSubstr("add share/incident-report.txt"));
  const std::string listed = Run({"list"}).out;
  EXPECT_THAT(listed, Not(HasSubstr("\nshare/finance/")));
  // add of a path under the source agrees.
  RunResult added = Run({"add", share_ + "/finance/new.txt"});
  EXPECT_THAT(added.out, HasSubstr("unchanged finance/new.txt"));
}

// scan --record of a file under a registered source names it by its id,
// as add and sync do.
TEST_F(SourcesCommandTest, ARecordedScanNamesAFileUnderASourceByItsId) {
  ASSERT_EQ(Run({"sources", "add", "fin", share_ + "/finance"}).exit, 0);
  const std::string store = tmp_.Sub("incidents");
  RunResult scan = RunLeakhound({"scan", "--index", index_, "--record",
                                 "--incidents", store, "-q", share_});
  EXPECT_EQ(scan.exit, 1) << scan.err;
  RunResult exported = RunLeakhound(
      {"incidents", "export", "--format", "jsonl", "--incidents", store});
  ASSERT_EQ(exported.exit, 0) << exported.err;
  EXPECT_THAT(exported.out,
              HasSubstr("\"detail\":\"protected source file "
                        "fin/board/merger-memo.txt\""));
  // A file outside every source is named by its path only.
  EXPECT_THAT(exported.out, Not(HasSubstr("source file share/")));
}

TEST_F(SourcesCommandTest, MigrationRegistersTheAddedFoldersWithTheirLabels) {
  // Built the old way: a folder added with a label, its parent synced
  // (which gave a new file a second id form), a file added by itself.
  ASSERT_EQ(Run({"add", "--label", "secret", share_ + "/finance"}).exit, 0);
  Copy("supplier-contract-zh.txt", "finance/new.txt");
  ASSERT_EQ(Run({"sync", share_}).exit, 0);
  ASSERT_EQ(Run({"add", "--id", "loose", Sample("research-plan-ja.txt")}).exit,
            0);
  RunResult dry = Run({"sources", "migrate", "--dry-run"});
  ASSERT_EQ(dry.exit, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would rename share/finance/new.txt -> "
                                 "finance/new.txt"));
  EXPECT_THAT(Run({"sources", "list"}).out, Not(HasSubstr("finance")));
  RunResult migrated = Run({"sources", "migrate"});
  ASSERT_EQ(migrated.exit, 0) << migrated.err;
  EXPECT_THAT(migrated.out, HasSubstr("register source finance: " + share_ +
                                      "/finance (labels none)"));
  EXPECT_THAT(migrated.out, HasSubstr("register source share: " + share_));
  EXPECT_THAT(migrated.out,
              HasSubstr("finance/new.txt lacks label secret, which 2 of the 3 "
                        "documents of finance have"));
  EXPECT_THAT(migrated.out, HasSubstr("not in a source, kept as is: loose"));
  EXPECT_THAT(Line("finance/pricing-2027.txt"), HasSubstr("secret"));
  EXPECT_THAT(Run({"list"}).out, Not(HasSubstr("\nshare/finance/")));
  // A second run has nothing to do.
  EXPECT_THAT(Run({"sources", "migrate"}).out,
              HasSubstr("0 sources registered, 0 renamed"));
}

TEST_F(SourcesCommandTest, LabelAddsAndRemovesOneOffLabelsButNotDeclaredOnes) {
  ASSERT_EQ(Run({"sources", "add", "--label", "secret", "fin",
                 share_ + "/finance"}).exit,
            0);
  RunResult one = Run({"label", "add", "fin/pricing-2027.txt", "q3"});
  ASSERT_EQ(one.exit, 0) << one.err;
  EXPECT_THAT(Line("fin/pricing-2027.txt"), HasSubstr("q3,secret"));
  RunResult prefix = Run({"label", "add", "fin/board/", "board"});
  EXPECT_THAT(prefix.out, HasSubstr("1 document changed"));
  EXPECT_THAT(Line("fin/board/merger-memo.txt"), HasSubstr("board,secret"));
  RunResult declared = Run({"label", "remove", "fin/pricing-2027.txt", "secret"});
  EXPECT_EQ(declared.exit, 2);
  EXPECT_THAT(declared.err, HasSubstr("declared by source fin"));
  ASSERT_EQ(Run({"label", "remove", "fin/pricing-2027.txt", "q3"}).exit, 0);
  EXPECT_THAT(Line("fin/pricing-2027.txt"), Not(HasSubstr("q3")));
  // An edited file keeps its one-off label through sync.
  ASSERT_EQ(Run({"label", "add", "fin/pricing-2027.txt", "q4"}).exit, 0);
  Edit("finance/pricing-2027.txt");
  ASSERT_EQ(Run({"sync"}).exit, 0);
  EXPECT_THAT(Line("fin/pricing-2027.txt"), HasSubstr("q4,secret"));
  RunResult missing = Run({"label", "add", "fin/nope.txt", "x"});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_THAT(missing.err, HasSubstr("no document fin/nope.txt"));
}

TEST_F(SourcesCommandTest, RemovingASourceStopsProtectingItsDocuments) {
  ASSERT_EQ(Run({"sources", "add", "fin", share_ + "/finance"}).exit, 0);
  ASSERT_EQ(Run({"add", "--id", "loose", Sample("research-plan-ja.txt")}).exit,
            0);
  RunResult removed = Run({"sources", "remove", "fin"});
  ASSERT_EQ(removed.exit, 0) << removed.err;
  EXPECT_THAT(removed.out, HasSubstr("source fin removed (2 documents removed)"));
  EXPECT_EQ(Line("fin/pricing-2027.txt"), "");
  EXPECT_NE(Line("loose"), "");
  RunResult none = Run({"sync"});
  EXPECT_EQ(none.exit, 2);
  EXPECT_THAT(none.err, HasSubstr("no source registered"));
  // A registered folder that disappeared is refused, not emptied.
  ASSERT_EQ(Run({"sources", "add", "fin", share_ + "/finance"}).exit, 0);
  std::filesystem::rename(share_ + "/finance", share_ + "/moved");
  RunResult gone = Run({"sync"});
  EXPECT_EQ(gone.exit, 2);
  EXPECT_THAT(gone.err, HasSubstr("nothing synced"));
  EXPECT_NE(Line("fin/pricing-2027.txt"), "");
}

}  // namespace
}  // namespace leakhound
