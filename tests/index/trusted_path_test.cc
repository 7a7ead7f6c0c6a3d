#include "index/trusted_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(TrustedPathTest, OwnFilesInOwnFoldersAreTrusted) {
  TempDir dir;
  const std::string file = dir.Sub("policy.toml");
  std::ofstream(file) << "x";
  EXPECT_TRUE(CheckTrustedFile(file, "policy file").ok());
  EXPECT_TRUE(CheckTrustedFolder(dir.path(), "index").ok());
  // A missing file: its folder alone decides.
  EXPECT_TRUE(CheckTrustedFile(dir.Sub("none"), "incidents").ok());
}

TEST(TrustedPathTest, WhatOthersCanWriteOrSwapIsRefused) {
  TempDir dir;
  const std::string file = dir.Sub("policy.toml");
  std::ofstream(file) << "x";
  ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
  absl::Status s = CheckTrustedFile(file, "policy file");
  EXPECT_TRUE(absl::IsFailedPrecondition(s));
  EXPECT_EQ(s.message(), "policy file " + file +
                             " can be written by other users (mode 0666); "
                             "refused: chmod go-w " + file);
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  const std::string open = dir.Sub("open");
  std::filesystem::create_directory(open);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  std::ofstream(open + "/key") << "x";
  EXPECT_THAT(CheckTrustedFile(open + "/key", "key file").message(),
              HasSubstr("the folder holding key file " + open +
                        " can be written by other users (mode 0777)"));
  // A sticky world-writable folder (/tmp) may hold a file; it is no index.
  ASSERT_EQ(::chmod(open.c_str(), 01777), 0);
  EXPECT_TRUE(CheckTrustedFile(open + "/key", "key file").ok());
  EXPECT_FALSE(CheckTrustedFolder(open, "index").ok());
}

// Owned by another user (here `nobody`): refused whatever its mode. Needs
// root to give the file away.
TEST(TrustedPathTest, AFileAnotherUserOwnsIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir dir;
  const std::string file = dir.Sub("group.txt");
  std::ofstream(file) << "x";
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  absl::Status s = CheckTrustedFile(file, "group file");
  EXPECT_THAT(s.message(), HasSubstr("group file " + file +
                                     " belongs to uid 65534, not root or "
                                     "this service"));
  const std::string folder = dir.Sub("theirs");
  std::filesystem::create_directory(folder);
  ASSERT_EQ(::chown(folder.c_str(), 65534, 65534), 0);
  EXPECT_THAT(CheckTrustedFile(folder + "/incidents.db", "incidents").message(),
              HasSubstr("the folder holding incidents " + folder +
                        " belongs to uid 65534"));
}

}  // namespace
}  // namespace leakhound
