#include "cli/discover/file_facts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

class FileFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() /
             ("lh-facts-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::ofstream(path_) << "text\n";
  }
  void TearDown() override { fs::remove(path_); }
  FileFacts Facts() {
    auto f = StatFile(path_);
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return FileFacts{};
    EXPECT_TRUE(f->owner.empty());  // named on demand only
    NameOwner(&*f);
    return *f;
  }
  std::string path_;
};

TEST_F(FileFactsTest, TheModeSaysWhoElseReads) {
  ::chmod(path_.c_str(), 0600);
  EXPECT_EQ(ExposureOf(path_, Facts()), "owner only");
  ::chmod(path_.c_str(), 0640);
  const FileFacts f = Facts();
  EXPECT_EQ(f.mode, 0640u);
  EXPECT_EQ(ModeText(f.mode), "0640");
  EXPECT_EQ(ExposureOf(path_, f), "group-readable (" + f.group + ")");
  ::chmod(path_.c_str(), 0644);
  EXPECT_EQ(ExposureOf(path_, Facts()),
            "world-readable, group-readable (" + f.group + ")");
}

TEST_F(FileFactsTest, AnAclEntryNamingAnotherUserIsExposure) {
  ::chmod(path_.c_str(), 0600);
  const std::string set = "setfacl -m u:nobody:r " + path_ + " 2>/dev/null";
  if (std::system(set.c_str()) != 0) {
    GTEST_SKIP() << "setfacl (Debian's acl) or ACLs on "
                 << fs::temp_directory_path() << " missing";
  }
  const FileFacts f = Facts();
  // setfacl made the mask r--: the owning group reads nothing (its entry
  // is ---), nobody reads through the named entry.
  EXPECT_EQ(ExposureOf(path_, f), "acl user:nobody:r--");
  // chmod g-r is the mask: the named entry reads nothing any more.
  ::chmod(path_.c_str(), 0600);
  EXPECT_EQ(ExposureOf(path_, Facts()), "owner only");
}

TEST_F(FileFactsTest, OwnerAndGroupHaveTheirNames) {
  const FileFacts f = Facts();
  EXPECT_EQ(f.uid, ::geteuid());
  EXPECT_FALSE(f.owner.empty());
  EXPECT_FALSE(f.group.empty());
  EXPECT_EQ(f.size, 5u);
}

TEST_F(FileFactsTest, ANonRegularFileOrAMissingOneIsNamed) {
  EXPECT_TRUE(absl::IsFailedPrecondition(
      StatFile(fs::temp_directory_path().string()).status()));
  EXPECT_TRUE(absl::IsNotFound(StatFile(path_ + ".none").status()));
}

}  // namespace
}  // namespace leakhound
