#include "cli/discover/share_walk.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

class ShareWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        (fs::temp_directory_path() / ("lh-walk-" + std::to_string(::getpid())))
            .string();
    fs::remove_all(root_);
    for (const char* d : {"a", "a/deep", "b", "quarantine/LH-1"}) {
      fs::create_directories(root_ + "/" + d);
    }
    for (const char* f : {"b/2.txt", "a/1.txt", "a/deep/3.txt", "z.iso",
                          "quarantine/LH-1/q.txt"}) {
      std::ofstream(root_ + "/" + f) << f;
    }
    fs::create_symlink(root_ + "/a/1.txt", root_ + "/link.txt");
    ::mkfifo((root_ + "/pipe").c_str(), 0600);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> Paths(const ShareWalk& w) {
    std::vector<std::string> out;
    for (const SeenFile& f : w.files)
      out.push_back(f.path.substr(root_.size()));
    return out;
  }

  std::string root_;
};

TEST_F(ShareWalkTest, RegularFilesInPathOrderWithoutLinksPipesOrPruned) {
  const ShareWalk w = WalkShare(
      {root_ + "/"}, [](const std::string& p) { return p.ends_with(".iso"); },
      [this](const std::string& p) { return p == root_ + "/quarantine"; });
  EXPECT_EQ(Paths(w), (std::vector<std::string>{"/a/1.txt", "/a/deep/3.txt",
                                                "/b/2.txt"}));
  EXPECT_TRUE(w.unlisted.empty());
  EXPECT_EQ(w.files[0].facts.size, 7u);  // "a/1.txt"
  EXPECT_TRUE(w.files[0].problem.ok());
}

TEST_F(ShareWalkTest, AFolderThatCannotBeListedIsReported) {
  if (::geteuid() == 0) GTEST_SKIP() << "root lists a folder of mode 000";
  ::chmod((root_ + "/b").c_str(), 0);
  const ShareWalk w = WalkShare(
      {root_}, [](const std::string&) { return false; },
      [](const std::string&) { return false; });
  ::chmod((root_ + "/b").c_str(), 0755);
  ASSERT_EQ(w.unlisted.size(), 1u);
  EXPECT_EQ(w.unlisted[0].path, root_ + "/b");
  EXPECT_TRUE(absl::IsPermissionDenied(w.unlisted[0].problem));
}

TEST_F(ShareWalkTest, AMissingRootIsAFileThatCannotBeExamined) {
  const ShareWalk w = WalkShare(
      {root_ + "/none"}, [](const std::string&) { return false; },
      [](const std::string&) { return false; });
  ASSERT_EQ(w.files.size(), 1u);
  EXPECT_TRUE(absl::IsNotFound(w.files[0].problem));
}

}  // namespace
}  // namespace leakhound
