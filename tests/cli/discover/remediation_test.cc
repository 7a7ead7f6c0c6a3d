#include "cli/discover/remediation.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

uint32_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class RemediationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lh-remediation-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "share");
    f_.reference = "LH-TEST000001";
    f_.path = (dir_ / "share" / "prices.txt").string();
    f_.quarantine_path =
        QuarantinePathFor((dir_ / "q").string(), f_.reference, f_.path);
    std::ofstream(f_.path) << "protected prices\n";
    ::chmod(f_.path.c_str(), 0644);
    f_.mode = 0644;
    f_.uid = ::geteuid();
    f_.gid = ::getegid();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  DiscoverFinding f_;
};

TEST_F(RemediationTest, QuarantineMovesTheFileAndLeavesATombstone) {
  EXPECT_EQ(f_.quarantine_path,
            (dir_ / "q" / "LH-TEST000001" / "prices.txt").string());
  const std::string text = TombstoneText(f_, "Ask security.", "copies");
  ASSERT_TRUE(MoveToQuarantine(f_, text).ok());
  EXPECT_FALSE(fs::exists(f_.path));
  EXPECT_EQ(Slurp(f_.quarantine_path), "protected prices\n");
  EXPECT_EQ(ModeOf(f_.quarantine_path), 0600u);
  EXPECT_EQ(ModeOf((dir_ / "q" / "LH-TEST000001").string()), 0700u);
  const std::string tombstone = Slurp(TombstonePath(f_.path));
  EXPECT_NE(tombstone.find("Ask security."), std::string::npos);
  EXPECT_NE(tombstone.find("LH-TEST000001"), std::string::npos);
  EXPECT_NE(tombstone.find("Rule: copies"), std::string::npos);
  EXPECT_EQ(ModeOf(TombstonePath(f_.path)), 0644u);
  EXPECT_TRUE(IsTombstone(TombstonePath(f_.path)));

  auto restored = RestoreQuarantined(f_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*restored, "");
  EXPECT_EQ(Slurp(f_.path), "protected prices\n");
  EXPECT_EQ(ModeOf(f_.path), 0644u);
  EXPECT_FALSE(fs::exists(TombstonePath(f_.path)));
  EXPECT_FALSE(fs::exists(dir_ / "q" / "LH-TEST000001"));
}

TEST_F(RemediationTest, AMoveKilledBeforeTheRenameIsRolledBack) {
  // What a kill during a copy across file systems leaves: the original
  // in place and a partial copy.
  fs::create_directories(fs::path(f_.quarantine_path).parent_path());
  std::ofstream(f_.quarantine_path + ".partial") << "protec";
  auto done = CompleteQuarantine(f_, "text");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_FALSE(*done);
  EXPECT_TRUE(fs::exists(f_.path));
  EXPECT_FALSE(fs::exists(f_.quarantine_path + ".partial"));
  EXPECT_FALSE(fs::exists(TombstonePath(f_.path)));
}

TEST_F(RemediationTest, AMoveKilledAfterTheCopyIsFinished) {
  // The copy complete and renamed, the original not yet unlinked.
  fs::create_directories(fs::path(f_.quarantine_path).parent_path());
  fs::copy_file(f_.path, f_.quarantine_path);
  auto done = CompleteQuarantine(f_, "text");
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(*done);
  EXPECT_FALSE(fs::exists(f_.path));
  EXPECT_EQ(Slurp(f_.quarantine_path), "protected prices\n");
  EXPECT_TRUE(fs::exists(TombstonePath(f_.path)));
}

TEST_F(RemediationTest, AFileAtNeitherPlaceIsDataLoss) {
  fs::remove(f_.path);
  EXPECT_TRUE(absl::IsDataLoss(CompleteQuarantine(f_, "text").status()));
}

TEST_F(RemediationTest, RestoreNeverOverwritesAFileAtThePath) {
  ASSERT_TRUE(MoveToQuarantine(f_, "text").ok());
  std::ofstream(f_.path) << "a new file of the same name\n";
  auto restored = RestoreQuarantined(f_);
  EXPECT_TRUE(absl::IsFailedPrecondition(restored.status()));
  EXPECT_EQ(Slurp(f_.path), "a new file of the same name\n");
  EXPECT_TRUE(fs::exists(f_.quarantine_path));
}

TEST_F(RemediationTest, ATombstoneThatIsNotOursIsNotReplaced) {
  std::ofstream(TombstonePath(f_.path)) << "someone's notes\n";
  EXPECT_TRUE(absl::IsFailedPrecondition(MoveToQuarantine(f_, "text")));
  EXPECT_EQ(Slurp(TombstonePath(f_.path)), "someone's notes\n");
}

TEST_F(RemediationTest, RestrictTakesGroupAndOtherBitsAndRestoreGivesThem) {
  f_.mode = 0664;
  ::chmod(f_.path.c_str(), 0664);
  ASSERT_TRUE(RestrictFile(f_).ok());
  EXPECT_EQ(ModeOf(f_.path), 0600u);
  ASSERT_TRUE(RestoreMode(f_).ok());
  EXPECT_EQ(ModeOf(f_.path), 0664u);
}

TEST(RemediationOfTest, TheMostRestrictiveEnforcingDiscoveryRuleWins) {
  PolicyRule log, restrict, quarantine_monitor, mail;
  log.remediation = Remediation::kLog;
  restrict.remediation = Remediation::kRestrict;
  quarantine_monitor.remediation = Remediation::kQuarantine;
  quarantine_monitor.monitor = true;
  mail.disposition = Disposition::kReject;  // not for discovery
  PolicyDecision d;
  for (const PolicyRule* r : {&log, & restrict, &quarantine_monitor, &mail}) {
    RuleMatch m;
    m.rule = r;
    d.matches.push_back(m);
  }
  EXPECT_EQ(RemediationOf(d), Remediation::kRestrict);
  EXPECT_EQ(RemediationOf(PolicyDecision{}), Remediation::kLog);
}

}  // namespace
}  // namespace leakhound
