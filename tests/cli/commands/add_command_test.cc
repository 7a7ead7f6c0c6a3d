// Drives the real binary: add (ids, --id, labels, replace/unchanged/
// duplicate, --from-list, a second writer) and allow (add, list, remove).
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/text_extractor.h"
#include "engine/protected_index.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

class AddCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = tmp_.Sub("index");
    ASSERT_EQ(RunLeakhound({"init", "--index", index_}).exit, 0);
  }
  RunResult Run(std::vector<std::string> args, const RunOptions& o = {}) {
    args.insert(args.begin() + 1, {"--index", index_});
    return RunLeakhound(args, o);
  }
  std::vector<Json> List() {
    RunResult r = Run({"list", "--json"});
    EXPECT_EQ(r.exit, 0) << r.err;
    std::vector<Json> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      out.push_back(Json::parse(line));
    return out;
  }
  TempDir tmp_;
  std::string index_;
};

// A file's id is its folder's name and its path below it, so that two
// folders holding the same relative path give two ids.
TEST_F(AddCommandTest, DirectoryIdsAreTheFolderAndPathAndLabelsAreStored) {
  RunResult r = Run({"add", "--label", "board", "--label", "q3",
                     SamplePath("protected")});
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("5 added, 0 replaced, 0 unchanged"));
  std::vector<Json> docs = List();
  ASSERT_EQ(docs.size(), 5u);
  EXPECT_EQ(docs[1]["id"], "protected/merger-memo.txt");
  EXPECT_EQ(docs[1]["source"], SamplePath("protected/merger-memo.txt"));
  EXPECT_EQ(docs[1]["labels"], Json::array({"board", "q3"}));
  EXPECT_GT(docs[1]["shingles"].get<int>(), 300);
}

TEST_F(AddCommandTest, ReAddingIsUnchangedReplacedOrDuplicate) {
  const std::string memo = SamplePath("protected/merger-memo.txt");
  ASSERT_EQ(Run({"add", "--id", "memo", memo}).exit, 0);
  EXPECT_THAT(Run({"add", "--id", "memo", memo}).out,
              HasSubstr("unchanged memo"));
  RunResult dup = Run({"add", "--id", "copy", memo});
  EXPECT_EQ(dup.exit, 0);
  EXPECT_THAT(dup.out,
              HasSubstr("duplicate copy: same text as memo, not added"));
  const std::string edited = tmp_.Sub("memo.txt");
  std::ofstream(edited) << SlurpFile(memo)
                        << "\nAddendum: the board met again.\n";
  EXPECT_THAT(Run({"add", "--id", "memo", edited}).out,
              HasSubstr("replaced  memo"));
  EXPECT_EQ(List().size(), 1u);
}

TEST_F(AddCommandTest, IdNeedsExactlyOneFile) {
  RunResult r = Run({"add", "--id", "x", SamplePath("protected")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("--id needs exactly one file"));
  EXPECT_EQ(List().size(), 0u);
}

TEST_F(AddCommandTest,
       StandardInputNeedsAnIdSoASecondPipeCannotReplaceTheFirst) {
  RunOptions piped;
  piped.stdin_text = SlurpFile(SamplePath("protected/merger-memo.txt"));
  RunResult bare = Run({"add", "-"}, piped);
  EXPECT_EQ(bare.exit, 2);
  EXPECT_THAT(bare.err, HasSubstr("standard input (-) needs --id ID"));
  EXPECT_EQ(List().size(), 0u);
  RunResult named = Run({"add", "--id", "memo", "-"}, piped);
  EXPECT_EQ(named.exit, 0) << named.err;
  ASSERT_EQ(List().size(), 1u);
  EXPECT_EQ(List()[0]["id"], "memo");
}

TEST_F(AddCommandTest, HelpStatesTheFileSizeLimitInForce) {
  RunResult help = RunLeakhound({"add", "--help"});
  EXPECT_EQ(help.exit, 0);
  EXPECT_THAT(help.out,
              HasSubstr("--max-file-size N    bytes of the file, and of any "
                        "member unpacked (default " +
                        std::to_string(ExtractionLimits{}.max_input_bytes) +
                        ")"));
}

TEST_F(AddCommandTest, FromListReadsPathsFromStandardInput) {
  RunOptions in;
  in.stdin_text = SamplePath("protected/pricing-2027.txt") + "\n" +
                  SamplePath("protected/incident-report.txt") + "\n";
  RunResult r = Run({"add", "--from-list", "-"}, in);
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(List().size(), 2u);
}

TEST_F(AddCommandTest, BadFilesFailAloneAndTheIndexStaysSound) {
  const std::string empty = tmp_.Sub("empty.txt");
  std::ofstream(empty).flush();
  const std::string binary = tmp_.Sub("blob.bin");
  std::ofstream(binary, std::ios::binary) << std::string("\0\1\2\3", 4);
  RunResult r = Run({"add", empty, binary,
                     SamplePath("protected/pricing-2027.txt")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr(empty + ": no words to fingerprint"));
  EXPECT_THAT(r.err, HasSubstr(binary + ": binary data"));
  EXPECT_THAT(r.out, HasSubstr("1 added"));
  EXPECT_EQ(Run({"verify"}).exit, 0);
}

TEST_F(AddCommandTest, SecondWriterIsRefusedInOneLine) {
  auto writer = ProtectedIndex::Open(index_, OpenMode::kWrite);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RunResult r = Run({"add", SamplePath("protected/pricing-2027.txt")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("leakhound add: "));
  EXPECT_THAT(r.err, HasSubstr("locked"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  // Readers are not blocked by the writer.
  EXPECT_EQ(Run({"list"}).exit, 0);
}

TEST_F(AddCommandTest, AllowListedDisclaimerStopsMatchingAndCanBeRemoved) {
  const std::string disclaimer =
      "This message is intended only for the addressee and may contain "
      "information that is privileged and confidential. If you received it in "
      "error, please notify the sender and delete it.";
  const std::string doc = tmp_.Sub("policy.txt");
  std::ofstream(doc) << SlurpFile(SamplePath("protected/pricing-2027.txt"))
                     << "\n" << disclaimer << "\n";
  ASSERT_EQ(Run({"add", doc}).exit, 0);
  const std::string mail = tmp_.Sub("mail.txt");
  std::ofstream(mail) << "Hello Sam, see you Friday.\n\n" << disclaimer << "\n";
  const std::string allow = tmp_.Sub("disclaimer.txt");
  std::ofstream(allow) << disclaimer << "\n";

  EXPECT_EQ(Run({"scan", mail}).exit, 1);
  RunResult added = Run({"allow", "add", "--name", "disclaimer", allow});
  ASSERT_EQ(added.exit, 0) << added.err;
  EXPECT_THAT(added.out, HasSubstr("added     allow-list entry disclaimer"));
  RunResult scan = Run({"scan", "-v", mail});  // -v: the engine's counts
  EXPECT_EQ(scan.exit, 0) << scan.out;
  EXPECT_THAT(scan.out, HasSubstr("allow-listed fingerprints"));
  EXPECT_THAT(Run({"allow", "list", "--json"}).out,
              HasSubstr("{\"name\":\"disclaimer\""));
  ASSERT_EQ(Run({"allow", "remove", "disclaimer"}).exit, 0);
  EXPECT_EQ(Run({"scan", mail}).exit, 1);
  RunResult unknown = Run({"allow", "remove", "disclaimer"});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no allow-list entry named disclaimer"));
}

// Real files of the source tree (documentation and sources), copied under
// `dir` with `tag` appended to each (so copies under other tags are not
// duplicate content); returns their paths.
std::vector<std::string> CopySourceFiles(const std::string& dir,
                                         const std::string& tag = "") {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  fs::create_directories(dir);
  for (const char* sub : {"docs", "engine", "index", "cli", "shingler"}) {
    for (const auto& e :
         fs::directory_iterator(fs::path(test_paths::kSourceDir) / sub)) {
      if (!e.is_regular_file()) continue;
      const std::string to = (fs::path(dir) / (std::string(sub) + "_" +
                                               e.path().filename().string()))
                                 .string();
      fs::copy_file(e.path(), to);
      if (!tag.empty()) std::ofstream(to, std::ios::app) << "\n" << tag << "\n";
      out.push_back(to);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> Printed(const std::string& out, const std::string& word) {
  std::set<std::string> ids;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(word + " ", 0) != 0) continue;
    std::istringstream fields(line);
    std::string verb, id;
    fields >> verb >> id;
    ids.insert(id);
  }
  return ids;
}

TEST_F(AddCommandTest, BatchedAddReportsEveryFileInInputOrder) {
  const std::vector<std::string> files = CopySourceFiles(tmp_.Sub("src"));
  ASSERT_GT(files.size(), 40u);
  std::vector<std::string> args = {"add", "--threads", "2", "--batch-bytes",
                                   "30000"};
  args.insert(args.end(), files.begin(), files.end());
  RunResult r = Run(args);
  ASSERT_EQ(r.exit, 0) << r.err;
  std::vector<std::string> order;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("added ", 0) == 0) {
      std::istringstream fields(line);
      std::string verb, id;
      fields >> verb >> id;
      order.push_back(id);
    }
  }
  EXPECT_EQ(order, files);
  EXPECT_EQ(List().size(), files.size());
  EXPECT_EQ(Run({"verify"}).exit, 0);
  // The same files again, in one batch: all unchanged, nothing written.
  args[4] = "100000000";
  RunResult again = Run(args);
  EXPECT_EQ(again.exit, 0) << again.err;
  EXPECT_EQ(Printed(again.out, "unchanged").size(), files.size());
}

TEST_F(AddCommandTest, BatchBytesMustBePositive) {
  RunResult r = Run({"add", "--batch-bytes", "0",
                     SamplePath("protected/pricing-2027.txt")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("batch-bytes"));
}

// Crash safety of batched adds, as a user runs them: leakhound add is killed
// with SIGKILL at random moments. Every file it reported as added must be
// in the index afterwards, and the index must verify clean.
TEST_F(AddCommandTest, EveryReportedFileSurvivesSigkillOfABatchedAdd) {
  std::mt19937_64 rng(20261122);
  constexpr int kIterations = 12;
  int partial = 0;  // runs cut off after some files were reported
  // How long one whole add of such a set takes here (sanitized or loaded
  // machines are slower): the kills land within that span.
  std::vector<std::string> warm = CopySourceFiles(tmp_.Sub("warm"), "warm");
  const std::vector<std::string> warm_more =
      CopySourceFiles(tmp_.Sub("warmb"), "warmb");
  warm.insert(warm.end(), warm_more.begin(), warm_more.end());
  warm.insert(warm.begin(), {"add", "--batch-bytes", "20000"});
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(Run(warm).exit, 0);
  const auto span = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
  for (int iter = 0; iter < kIterations; ++iter) {
    const std::string run = "run" + std::to_string(iter);
    std::vector<std::string> files = CopySourceFiles(tmp_.Sub(run), run);
    const std::vector<std::string> more =
        CopySourceFiles(tmp_.Sub(run + "b"), run + "b");
    files.insert(files.end(), more.begin(), more.end());
    const std::string out = tmp_.Sub("out" + std::to_string(iter));
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(fd, 1);
      ::dup2(null_fd, 2);
      std::vector<std::string> args = {test_paths::kBinary, "add",   "--index",
                                       index_,           "--batch-bytes",
                                       "20000"};
      args.insert(args.end(), files.begin(), files.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::usleep(static_cast<useconds_t>(span / 20 + rng() % span));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    const std::set<std::string> reported = Printed(SlurpFile(out), "added");
    if (WIFSIGNALED(status) && !reported.empty() &&
        reported.size() < files.size()) {
      ++partial;
    }

    RunResult verify = Run({"verify"});
    ASSERT_EQ(verify.exit, 0) << "iteration " << iter << ": " << verify.out;
    std::set<std::string> stored;
    for (const Json& doc : List()) stored.insert(doc["id"].get<std::string>());
    for (const std::string& id : reported) {
      EXPECT_TRUE(stored.contains(id)) << "iteration " << iter << ": " << id;
    }
  }
  // Enough runs must really have been cut off mid-way.
  EXPECT_GE(partial, kIterations / 3);
}

// A tmpfs of `megabytes` mounted on a fresh directory for one test, and
// unmounted by its destructor. Needs root (CI runs as root); a test without
// one skips and says so.
class SmallDisk {
 public:
  SmallDisk(const std::string& dir, int megabytes)
      : dir_(dir), options_(absl::StrCat("size=", megabytes, "m,mode=0700")) {
    std::filesystem::create_directories(dir_);
    mounted_ =
        ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options_.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  bool SetReadOnly(bool read_only) {
    return ::mount(nullptr, dir_.c_str(), nullptr,
                   MS_REMOUNT | (read_only ? MS_RDONLY : 0),
                   options_.c_str()) == 0;
  }

 private:
  const std::string dir_;
  const std::string options_;
  bool mounted_ = false;
};

// Distinct files of random words (no two share a shingle), in `dir`.
void WriteRandomTexts(const std::string& dir, int files, int words) {
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(static_cast<uint64_t>(files) * 31 +
                      static_cast<uint64_t>(words));
  for (int f = 0; f < files; ++f) {
    std::ofstream out(absl::StrCat(dir, "/t", 1000 + f, ".txt"));
    for (int w = 0; w < words; ++w) {
      std::string word;
      for (int c = 0; c < 3 + static_cast<int>(rng() % 6); ++c) {
        word += static_cast<char>('a' + rng() % 26);
      }
      out << word << ((w % 12 == 11) ? "\n" : " ");
    }
  }
}

// Lines of `text` containing `needle`.
size_t CountLines(const std::string& text, std::string_view needle) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    n += line.find(needle) != std::string::npos ? 1 : 0;
  }
  return n;
}

// The ids `leakhound list` prints for `index`.
std::set<std::string> ListedIds(const std::string& index) {
  RunResult list = RunLeakhound({"list", "--index", index, "--json"});
  EXPECT_EQ(list.exit, 0) << list.err;
  std::set<std::string> ids;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    ids.insert(Json::parse(line)["id"].get<std::string>());
  }
  return ids;
}

// The disk fills in the middle of an add: one line says so and what it
// cost, the exit code is 2, every document reported added is in the index
// and nothing else is, verify finds no damage, and once space is freed the
// same index takes more documents.
TEST(AddFaultTest, FullDiskIsReportedOnceAndLosesNoAcknowledgedDocument) {
  TempDir tmp;
  SmallDisk disk(tmp.Sub("disk"), 12);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs (not root)";
  const std::string index = tmp.Sub("disk") + "/index";
  const std::string filler = tmp.Sub("disk") + "/filler";
  std::ofstream(filler) << std::string(2 << 20, 'x');  // freed later
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  WriteRandomTexts(tmp.Sub("texts"), 300, 6000);  // 12 MB of words
  RunResult add = RunLeakhound({"add", "--index", index, "--batch-bytes",
                                "500000", tmp.Sub("texts")});
  EXPECT_EQ(add.exit, 2) << add.err;
  EXPECT_EQ(CountLines(add.err, "No space left on device"), 1u) << add.err;
  EXPECT_THAT(add.err, HasSubstr("were not added and the index is as before"));
  EXPECT_EQ(std::count(add.err.begin(), add.err.end(), '\n'), 1) << add.err;
  std::set<std::string> reported;
  std::istringstream out(add.out);
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("added ", 0) == 0) {
      reported.insert(line.substr(10, line.find(' ', 10) - 10));
    }
  }
  ASSERT_GT(reported.size(), 0u);   // some batches made it
  ASSERT_LT(reported.size(), 300u);  // and the disk did fill
  EXPECT_EQ(ListedIds(index), reported);
  RunResult verify = RunLeakhound({"verify", "--index", index});
  EXPECT_EQ(verify.exit, 0) << verify.out << verify.err;

  std::filesystem::remove(filler);
  WriteRandomTexts(tmp.Sub("more"), 2, 300);
  RunResult more = RunLeakhound({"add", "--index", index, tmp.Sub("more")});
  EXPECT_EQ(more.exit, 0) << more.err;
  EXPECT_EQ(RunLeakhound({"verify", "--index", index}).exit, 0);
}

// Fills the file system holding `filler` (a new file) to the last byte,
// then frees `spare` bytes of it.
void FillDiskBut(const std::string& filler, off_t spare) {
  const int fd = ::open(filler.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  const std::string chunk(1 << 16, 'x');
  off_t size = 0;
  for (;;) {
    const ssize_t n = ::write(fd, chunk.data(), chunk.size());
    if (n <= 0) break;
    size += n;
  }
  for (;;) {  // the last partial page
    if (::write(fd, chunk.data(), 1) != 1) break;
    ++size;
  }
  ASSERT_EQ(::ftruncate(fd, std::max<off_t>(0, size - spare)), 0);
  ::close(fd);
}


// The disk fills while `remove`, `compact` and `rekey` write: each is run
// with the disk full but for 0 bytes, 4 KiB, ... until it succeeds. Each
// run either succeeds, with the change made, or exits 2 with one line and
// the index as it was; `verify` is clean after every run and the sample's
// leaks are still found.
TEST(AddFaultTest, FullDiskDuringRemoveCompactAndRekeyLosesNothing) {
  TempDir tmp;
  SmallDisk disk(tmp.Sub("disk"), 40);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs (not root)";
  const std::string index = tmp.Sub("disk") + "/index";
  const std::string filler = tmp.Sub("disk") + "/filler";
  ASSERT_EQ(
      RunLeakhound({"init", "--index", index, "--row-capacity", "512"}).exit,
      0);
  ASSERT_EQ(
      RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit, 0);
  WriteRandomTexts(tmp.Sub("texts"), 40, 3000);
  ASSERT_EQ(RunLeakhound({"add", "--index", index, tmp.Sub("texts")}).exit, 0);
  const std::set<std::string> all = ListedIds(index);
  ASSERT_EQ(all.size(), 45u);

  // Each step: its command, and what the index holds after it. `remove`
  // removes each id in a commit of its own: after a failure the index
  // lacks exactly the ids it reported removed.
  std::set<std::string> without = all;
  without.erase("texts/t1003.txt");
  without.erase("texts/t1004.txt");
  const std::vector<std::string> steps[] = {
      {"remove", "--index", index, "texts/t1003.txt", "texts/t1004.txt"},
      {"compact", "--index", index},
      {"rekey", "--index", index},
  };
  int failed = 0;
  for (const std::vector<std::string>& step : steps) {
    bool done = false;
    for (off_t spare : {0, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
                        4 << 20, 12 << 20, 24 << 20}) {
      SCOPED_TRACE(step[0] + " with " + std::to_string(spare) + " bytes free");
      const std::set<std::string> before = ListedIds(index);
      std::vector<std::string> args = step;
      if (step[0] == "remove") {  // the ids still there
        args.resize(3);
        for (const char* id : {"texts/t1003.txt", "texts/t1004.txt"}) {
          if (before.contains(id)) args.push_back(id);
        }
      }
      FillDiskBut(filler, spare);
      const RunResult run = RunLeakhound(args);
      std::filesystem::remove(filler);
      std::set<std::string> expected = before;
      std::istringstream out(run.out);
      for (std::string line; std::getline(out, line);) {
        if (line.rfind("removed ", 0) == 0) {
          expected.erase(line.substr(8, line.find(' ', 8) - 8));
        }
      }
      EXPECT_EQ(ListedIds(index), expected) << run.out << run.err;
      if (run.exit == 0) {
        EXPECT_EQ(expected, without);
        done = true;
      } else {
        ++failed;
        EXPECT_EQ(run.exit, 2) << run.err;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1)
            << run.err;
        EXPECT_THAT(run.err, HasSubstr("No space left on device"));
      }
      RunResult verify = RunLeakhound({"verify", "--index", index});
      EXPECT_EQ(verify.exit, 0) << verify.out << verify.err;
      RunResult scan =
          RunLeakhound({"scan", "--index", index, SamplePath("outbound")});
      EXPECT_EQ(scan.exit, 1) << scan.err;
      if (done) break;
    }
    EXPECT_TRUE(done) << step[0] << " never succeeded";
  }
  // Rekey leaves no half-built sibling behind when the disk fills.
  for (const auto& e : std::filesystem::directory_iterator(tmp.Sub("disk"))) {
    EXPECT_EQ(e.path().filename().string().find(".rekey-"), std::string::npos)
        << e.path();
  }
  std::printf(
      "full disk: %d runs of remove, compact and rekey failed cleanly\n",
      failed);
  EXPECT_GT(failed, 0);
}

// An index on read-only media: a writer is refused in one line with exit
// code 2 and changes nothing; scan and verify, which only read, work.
TEST(AddFaultTest, ReadOnlyIndexRefusesWritersInOneLineAndStillScans) {
  TempDir tmp;
  SmallDisk disk(tmp.Sub("disk"), 16);
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs (not root)";
  const std::string index = tmp.Sub("disk") + "/index";
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  ASSERT_EQ(
      RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit, 0);
  ASSERT_TRUE(disk.SetReadOnly(true));
  RunResult add =
      RunLeakhound({"add", "--index", index, SamplePath("outbound")});
  EXPECT_EQ(add.exit, 2);
  EXPECT_EQ(std::count(add.err.begin(), add.err.end(), '\n'), 1) << add.err;
  EXPECT_THAT(add.err, HasSubstr("Read-only file system"));
  RunResult remove = RunLeakhound({"remove", "--index", index, "anything"});
  EXPECT_EQ(remove.exit, 2);
  EXPECT_EQ(std::count(remove.err.begin(), remove.err.end(), '\n'), 1)
      << remove.err;
  RunResult scan =
      RunLeakhound({"scan", "--index", index, SamplePath("outbound")});
  EXPECT_EQ(scan.exit, 1) << scan.err;  // the sample's leaks are found
  RunResult verify = RunLeakhound({"verify", "--index", index});
  EXPECT_EQ(verify.exit, 0) << verify.out << verify.err;
  EXPECT_THAT(verify.out, HasSubstr("5 documents"));
  ASSERT_TRUE(disk.SetReadOnly(false));
}

}  // namespace
}  // namespace leakhound
