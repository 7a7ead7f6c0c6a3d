// `leakhound sync` through the real binary, against a real folder that
// changes between runs.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

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
  return std::string(test_paths::kSourceDir) + "/corpus/sample/protected/" + name;
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
  EXPECT_THAT(first.out, HasSubstr("add share/board/merger-memo.txt\n"));
  EXPECT_THAT(
      first.out,
      HasSubstr(
          "3 added, 0 replaced, 0 removed, 0 unchanged, 0 skipped, 0 failed"));

  RunResult again = Sync();
  EXPECT_EQ(
      again.out,
      "0 added, 0 replaced, 0 removed, 3 unchanged, 0 skipped, 0 failed\n");

  // The folder changes: one file edited, one deleted, one new.
  std::ofstream(share_ + "/board/pricing-2027.txt", std::ios::app)
      << "\nAddendum: the regional discount rises to 14 percent in March.\n";
  std::filesystem::remove(share_ + "/incident-report.txt");
  std::filesystem::copy_file(Sample("supplier-contract-zh.txt"),
                             share_ + "/board/supplier-contract-zh.txt");
  RunResult dry = Sync({"--dry-run"});
  EXPECT_EQ(dry.exit, 0) << dry.err;
  EXPECT_THAT(dry.out,
              HasSubstr("would replace share/board/pricing-2027.txt\n"));
  EXPECT_THAT(dry.out, HasSubstr("would remove share/incident-report.txt"));
  EXPECT_THAT(dry.out,
              HasSubstr("would add share/board/supplier-contract-zh.txt\n"));
  EXPECT_THAT(List(), HasSubstr("incident-report.txt"));  // nothing changed

  RunResult changed = Sync();
  EXPECT_EQ(changed.exit, 0) << changed.err;
  EXPECT_THAT(
      changed.out,
      HasSubstr(
          "1 added, 1 replaced, 1 removed, 1 unchanged, 0 skipped, 0 failed"));
  const std::string listed = List();
  EXPECT_THAT(listed, Not(HasSubstr("incident-report.txt")));
  EXPECT_THAT(listed, HasSubstr("share/board/supplier-contract-zh.txt"));
  EXPECT_EQ(
      Sync().out,
      "0 added, 0 replaced, 0 removed, 3 unchanged, 0 skipped, 0 failed\n");

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
  RunResult missing =
      RunLeakhound({"sync", "--index", index_, tmp_.Sub("nope")});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_THAT(missing.err, HasSubstr("no such file or directory"));
  EXPECT_THAT(List(), HasSubstr("incident-report.txt"));
}


// Two folders holding the same relative path (issue 48): both files are
// protected, under ids that start with their folder's name, and neither
// add nor sync makes them take turns. A third folder of the same name is
// refused, not allowed to replace the first.
TEST_F(SyncCommandTest, TwoFoldersWithTheSameRelativePathsAreBothProtected) {
  const std::string a = tmp_.Sub("a"), b = tmp_.Sub("b");
  std::filesystem::create_directories(a);
  std::filesystem::create_directories(b);
  std::filesystem::copy_file(Sample("merger-memo.txt"), a + "/notes.txt");
  std::filesystem::copy_file(Sample("pricing-2027.txt"), b + "/notes.txt");
  RunResult added = RunLeakhound({"add", "--index", index_, a, b});
  ASSERT_EQ(added.exit, 0) << added.err;
  EXPECT_THAT(added.out, HasSubstr("added     a/notes.txt"));
  EXPECT_THAT(added.out, HasSubstr("added     b/notes.txt"));
  for (int run = 0; run < 2; ++run) {
    RunResult sync = RunLeakhound({"sync", "--index", index_, a, b});
    EXPECT_EQ(sync.exit, 0) << sync.err;
    EXPECT_EQ(sync.out,
              "0 added, 0 replaced, 0 removed, 2 unchanged, 0 skipped, 0 "
              "failed\n");
  }
  for (const auto& [file, id] :
       {std::pair{a, "a/notes.txt"}, {b, "b/notes.txt"}}) {
    const std::string probe = tmp_.Sub("probe.txt");
    std::ofstream(probe) << SlurpFile(file + "/notes.txt");
    RunResult scan = RunLeakhound({"scan", "--index", index_, "--json", probe});
    EXPECT_EQ(scan.exit, 1) << scan.err;
    EXPECT_THAT(scan.out, HasSubstr(std::string("\"doc_id\":\"") + id + "\""));
  }
  const std::string other = tmp_.Sub("other/a");
  std::filesystem::create_directories(other);
  std::filesystem::copy_file(Sample("incident-report.txt"),
                             other + "/notes.txt");
  RunResult clash = RunLeakhound({"add", "--index", index_, other});
  EXPECT_EQ(clash.exit, 2);
  EXPECT_THAT(clash.err,
              HasSubstr(other + "/notes.txt: id a/notes.txt is already "
                                "protected from " + a + "/notes.txt"));
  RunResult sync = RunLeakhound({"sync", "--index", index_, a, b});
  EXPECT_EQ(sync.out,
            "0 added, 0 replaced, 0 removed, 2 unchanged, 0 skipped, 0 "
            "failed\n");
}

// An 8x8 white PNG (written by zlib and struct): an image without text.
constexpr unsigned char kBlankPng[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
    0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08,
    0x08, 0x00, 0x00, 0x00, 0x00, 0xe1, 0x64, 0xe1, 0x57, 0x00, 0x00, 0x00,
    0x0e, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0x0f, 0x05, 0x0c,
    0x94, 0x31, 0x00, 0xf7, 0xc0, 0x3f, 0xc1, 0xaf, 0x5c, 0x0f, 0xcd, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

// A real share (issue 48): a PNG, an ELF, random bytes, a FIFO and a
// folder of mode 000, as an unprivileged user. The binaries and the FIFO
// are listed as skipped and never fail a run; the folder is an error in
// add, sync and scan alike, sync keeps its document, scan never calls the
// share clean, and a FIFO named on the command line is refused at once.
TEST_F(SyncCommandTest, AShareWithBinariesAndAnUnreadableFolder) {
  const std::string root = tmp_.Sub("real"), share = root + "/share";
  const std::string index = root + "/index";
  std::filesystem::create_directories(share + "/closed");
  std::filesystem::copy_file(Sample("merger-memo.txt"),
                             share + "/closed/memo.txt");
  std::filesystem::copy_file(Sample("research-plan-ja.txt"),
                             share + "/plan.txt");
  std::ofstream(share + "/image.png", std::ios::binary)
      .write(reinterpret_cast<const char*>(kBlankPng), sizeof kBlankPng);
  std::filesystem::copy_file("/bin/true", share + "/program");
  {
    std::ofstream random(share + "/random.bin", std::ios::binary);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 4096; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      random.put(static_cast<char>(x));
    }
  }
  ASSERT_EQ(::mkfifo((share + "/pipe").c_str(), 0644), 0);
  RunOptions as;
  if (::geteuid() == 0) {  // root reads any folder: run as nobody
    ASSERT_EQ(::chown(tmp_.path().c_str(), 65534, 65534), 0);
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      ASSERT_EQ(::chown(e.path().c_str(), 65534, 65534), 0);
    }
    ASSERT_EQ(::chown(root.c_str(), 65534, 65534), 0);
    as.uid = 65534;
  }
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--index", index});
    return RunLeakhound(args, as);
  };
  ASSERT_EQ(RunLeakhound({"init", "--index", index}, as).exit, 0);
  RunResult added = run({"add", share});
  EXPECT_EQ(added.exit, 0) << added.err;
  EXPECT_THAT(added.out,
              HasSubstr("skipped   " + share + "/image.png (no-text: "));
  EXPECT_THAT(added.out,
              HasSubstr("skipped   " + share + "/program (no-text: ELF"));
  for (const char* name : {"image.png", "program", "random.bin", "pipe"}) {
    EXPECT_THAT(added.out, HasSubstr("skipped   " + share + "/" + name + " ("));
  }
  EXPECT_THAT(added.out,
              HasSubstr("skipped   " + share + "/pipe (unsupported: a FIFO"));
  EXPECT_THAT(added.out,
              HasSubstr("2 added, 0 replaced, 0 unchanged, 0 duplicates, "
                        "4 skipped, 0 failed"));

  ASSERT_EQ(::chmod((share + "/closed").c_str(), 0), 0);
  RunResult synced = run({"sync", "--ocr", "off", share});
  EXPECT_EQ(synced.exit, 2);
  EXPECT_THAT(synced.err,
              HasSubstr(share + "/closed: cannot read the directory: "
                                "Permission denied"));
  EXPECT_THAT(synced.out,
              HasSubstr("0 added, 0 replaced, 0 removed, 1 unchanged, "
                        "4 skipped, 1 failed"));
  RunResult listed = run({"list"});
  EXPECT_THAT(listed.out, HasSubstr("share/closed/memo.txt"));
  EXPECT_THAT(listed.out, HasSubstr("share/plan.txt"));

  RunResult again = run({"add", "--ocr", "off", share});
  EXPECT_EQ(again.exit, 2);
  EXPECT_THAT(again.err,
              HasSubstr(share + "/closed: cannot read the directory"));
  RunResult strict =
      run({"add", "--ocr", "off", "--on-unreadable", "error", share});
  EXPECT_EQ(strict.exit, 2);
  EXPECT_THAT(strict.err, HasSubstr(share + "/random.bin: "));

  RunResult scanned = run({"scan", "--ocr", "off", share});
  EXPECT_EQ(scanned.exit, 2);
  EXPECT_THAT(scanned.out, HasSubstr("1 error"));
  EXPECT_THAT(scanned.out, Not(HasSubstr("0 errors")));

  RunResult fifo = run({"scan", share + "/pipe"});
  EXPECT_EQ(fifo.exit, 2);
  EXPECT_THAT(fifo.out + fifo.err,
              HasSubstr("a FIFO (named pipe), not a regular file"));
  ::chmod((share + "/closed").c_str(), 0755);
}

}  // namespace
}  // namespace leakhound
