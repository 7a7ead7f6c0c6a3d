// `leakhound sync` through the real binary, against a real folder that
// changes between runs.
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_leakhound.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Sample(const std::string& name) {
  return std::string(LEAKHOUND_SOURCE_DIR) + "/corpus/sample/protected/" + name;
}

class SyncCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = tmp_.Sub("index");
    share_ = tmp_.Sub("share");
    ASSERT_EQ(RunLeakhound({"init", "--index", index_}).exit, 0);
    std::filesystem::create_directories(share_ + "/board");
    for (const char* name : {"merger-memo.txt", "pricing-2027.txt"}) {
      std::filesystem::copy_file(Sample(name), share_ + "/board/" + name);
    }
    std::filesystem::copy_file(Sample("incident-report.txt"),
                               share_ + "/incident-report.txt");
  }
  RunResult Sync(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"sync", "--index", index_};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(share_);
    return RunLeakhound(args);
  }
  std::string List() { return RunLeakhound({"list", "--index", index_}).out; }

  TempDir tmp_;
  std::string index_, share_;
};

TEST_F(SyncCommandTest, FollowsAFolderThatChangesAndIsIdempotent) {
  RunResult first = Sync();
  ASSERT_EQ(first.exit, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("add board/merger-memo.txt\n"));
  EXPECT_THAT(first.out, HasSubstr("3 added, 0 replaced, 0 removed, 0 unchanged, 0 failed"));

  RunResult again = Sync();
  EXPECT_EQ(again.out, "0 added, 0 replaced, 0 removed, 3 unchanged, 0 failed\n");

  // The folder changes: one file edited, one deleted, one new.
  std::ofstream(share_ + "/board/pricing-2027.txt", std::ios::app)
      << "\nAddendum: the regional discount rises to 14 percent in March.\n";
  std::filesystem::remove(share_ + "/incident-report.txt");
  std::filesystem::copy_file(Sample("supplier-contract-zh.txt"),
                             share_ + "/board/supplier-contract-zh.txt");
  RunResult dry = Sync({"--dry-run"});
  EXPECT_EQ(dry.exit, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would replace board/pricing-2027.txt\n"));
  EXPECT_THAT(dry.out, HasSubstr("would remove incident-report.txt"));
  EXPECT_THAT(dry.out, HasSubstr("would add board/supplier-contract-zh.txt\n"));
  EXPECT_THAT(List(), HasSubstr("incident-report.txt"));  // nothing changed

  RunResult changed = Sync();
  EXPECT_EQ(changed.exit, 0) << changed.err;
  EXPECT_THAT(changed.out, HasSubstr("1 added, 1 replaced, 1 removed, 1 unchanged, 0 failed"));
  const std::string listed = List();
  EXPECT_THAT(listed, Not(HasSubstr("incident-report.txt")));
  EXPECT_THAT(listed, HasSubstr("board/supplier-contract-zh.txt"));
  EXPECT_EQ(Sync().out, "0 added, 0 replaced, 0 removed, 3 unchanged, 0 failed\n");

  // The replaced text is what is protected now.
  const std::string probe = tmp_.Sub("probe.txt");
  std::ofstream(probe) << SlurpFile(share_ + "/board/pricing-2027.txt");
  EXPECT_EQ(RunLeakhound({"scan", "--index", index_, probe}).exit, 1);
}

TEST_F(SyncCommandTest, DocumentsFromElsewhereStayAndAMissingSourceIsRefused) {
  ASSERT_EQ(RunLeakhound({"add", "--index", index_, "--id", "outside",
                          Sample("research-plan-ja.txt")}).exit, 0);
  ASSERT_EQ(Sync().exit, 0);
  std::filesystem::remove_all(share_ + "/board");
  RunResult r = Sync();
  EXPECT_THAT(r.out, HasSubstr("0 added, 0 replaced, 2 removed, 1 unchanged"));
  EXPECT_THAT(List(), HasSubstr("outside"));
  // A source that does not exist is an error, not "everything was deleted".
  RunResult missing = RunLeakhound({"sync", "--index", index_, tmp_.Sub("nope")});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_THAT(missing.err, HasSubstr("no such file or directory"));
  EXPECT_THAT(List(), HasSubstr("incident-report.txt"));
}

}  // namespace
}  // namespace leakhound
