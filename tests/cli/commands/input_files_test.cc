#include "cli/commands/input_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

// In `tmp`: tree/sub/a.txt, and outside/secret.txt linked from the tree as
// tree/link.txt (the file) and tree/linked-dir (its directory). Returns
// the tree's path.
std::string TreeWithLinksOut(const TempDir& tmp) {
  const std::string tree = tmp.Sub("tree"), outside = tmp.Sub("outside");
  fs::create_directories(tree + "/sub");
  fs::create_directories(outside);
  std::ofstream(tree + "/sub/a.txt") << "in the tree";
  std::ofstream(outside + "/secret.txt") << "outside the tree";
  fs::create_symlink(outside + "/secret.txt", tree + "/link.txt");
  fs::create_directory_symlink(outside, tree + "/linked-dir");
  return tree;
}

TEST(InputFilesTest, ADirectoryIsWalkedWithoutFollowingSymlinksOutOfIt) {
  TempDir tmp;
  const std::string tree = TreeWithLinksOut(tmp);
  auto files = ExpandInputs({tree});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].id, "tree/sub/a.txt");
}

// Asked to, the walk follows links to files and directories, enters each
// directory once (a link back to an ancestor ends), and still ids files by
// their path below the directory given.
TEST(InputFilesTest, FollowingSymlinksWalksEachDirectoryOnce) {
  TempDir tmp;
  const std::string tree = TreeWithLinksOut(tmp);
  const std::string outside = tmp.Sub("outside");
  fs::create_directory_symlink(outside, tree + "/sub/same-dir-again");
  fs::create_directory_symlink(tree, tree + "/sub/cycle");
  fs::create_symlink(tmp.Sub("nowhere"), tree + "/dangling.txt");
  auto files = ExpandInputs({tree}, /*follow_symlinks=*/true);
  std::vector<std::string> ids;
  for (const InputFile& f : files) ids.push_back(f.id);
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre(
                       "tree/link.txt", "tree/sub/a.txt",
                       ::testing::AnyOf("tree/linked-dir/secret.txt",
                                        "tree/sub/same-dir-again/secret.txt")));
}

// Two folders holding the same relative path give two ids: each starts
// with its folder's own name, however the folder is written.
TEST(InputFilesTest, IdsOfTwoFoldersWithTheSameRelativePathsDiffer) {
  TempDir tmp;
  for (const char* dir : {"a", "b"}) {
    fs::create_directories(tmp.Sub(dir));
    std::ofstream(tmp.Sub(dir) + "/notes.txt") << dir;
  }
  auto files = ExpandInputs({tmp.Sub("a") + "/", tmp.Sub("b") + "/."});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].id, "a/notes.txt");
  EXPECT_EQ(files[1].id, "b/notes.txt");
}

// A FIFO inside a folder is an entry with its problem (an unreadable
// file, skipped by default), in path order with the files. (A folder that
// cannot be listed is one too: the CLI tests check it as an unprivileged
// user, since root lists every folder.)
TEST(InputFilesTest, AFifoInAFolderIsAnEntryWithItsProblem) {
  TempDir tmp;
  const std::string share = tmp.Sub("share");
  fs::create_directories(share + "/open");
  std::ofstream(share + "/open/seen.txt") << "seen";
  ASSERT_EQ(::mkfifo((share + "/open/pipe").c_str(), 0644), 0);
  auto files = ExpandInputs({share});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, share + "/open/pipe");
  EXPECT_EQ(files[0].problem.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(UnreadableOf(files[0].problem), Unreadable::kUnsupported);
  EXPECT_TRUE(SkipUnreadable(files[0].problem, files[0],
                             UnreadablePolicy::kByOrigin));
  EXPECT_FALSE(SkipUnreadable(files[0].problem, files[0],
                              UnreadablePolicy::kError));
  EXPECT_TRUE(files[1].problem.ok());
  EXPECT_EQ(files[1].id, "share/open/seen.txt");
}

// A FIFO named on the command line is refused at once, not waited on.
TEST(InputFilesTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir tmp;
  const std::string fifo = tmp.Sub("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto read = ReadFileBounded(fifo, 1 << 20);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(read.status().message(), "a FIFO (named pipe), not a regular file");
}

TEST(InputFilesTest, ShardsPartitionTheFilesTheSameWayEveryTime) {
  std::vector<InputFile> files;
  for (int i = 0; i < 1000; ++i) {
    files.push_back(InputFile{"/share/dir" + std::to_string(i % 7) + "/f" +
                                  std::to_string(i),
                              ""});
  }
  std::multiset<std::string> seen;
  for (uint32_t shard = 0; shard < 4; ++shard) {
    const std::vector<InputFile> part = ShardOf(files, shard, 4);
    EXPECT_GT(part.size(), 200u);  // about a quarter each
    EXPECT_LT(part.size(), 300u);
    for (const InputFile& f : part) seen.insert(f.path);
  }
  EXPECT_EQ(seen.size(), files.size());
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(),
            files.size());
  EXPECT_EQ(ShardOf(files, 0, 1).size(), files.size());
  // FNV-1a of "a" is 0xaf63dc4c8601ec8c: shard 0 of 2, shard 1 of 5.
  EXPECT_EQ(ShardOf({InputFile{"a", ""}}, 0, 2).size(), 1u);
  EXPECT_EQ(ShardOf({InputFile{"a", ""}}, 1, 5).size(), 1u);
  EXPECT_EQ(ShardOf({InputFile{"a", ""}}, 0, 5).size(), 0u);
}

TEST(InputFilesTest, ASourceIsTheAbsoluteNormalizedPath) {
  TempDir tmp;
  const std::string dir = tmp.Sub("d");
  fs::create_directories(dir);
  std::ofstream(dir + "/x.txt") << "x";
  const std::string cwd = fs::current_path().string();
  ASSERT_EQ(::chdir(tmp.path().c_str()), 0);
  auto files = ExpandInputs({"./d/../d/x.txt", "-"});
  ASSERT_EQ(::chdir(cwd.c_str()), 0);
  ASSERT_EQ(files.size(), 2u);
  // Resolved against the working directory of the call: re-derive it.
  EXPECT_EQ(files[1].Source(), "-");
  EXPECT_TRUE(fs::path(files[0].path).is_relative());
  ASSERT_EQ(::chdir(tmp.path().c_str()), 0);
  const std::string source = files[0].Source();
  ASSERT_EQ(::chdir(cwd.c_str()), 0);
  EXPECT_EQ(fs::path(source), fs::path(dir) / "x.txt");
}

}  // namespace
}  // namespace leakhound
