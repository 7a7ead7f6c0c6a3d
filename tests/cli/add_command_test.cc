// Drives the real binary: add (ids, --id, labels, replace/unchanged/
// duplicate, --from-list, a second writer) and allow (add, list, remove).
#include <signal.h>
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

#include "cli/formats/text_extractor.h"
#include "engine/protected_index.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/run_leakhound.h"
#include "tests/temp_dir.h"

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
    for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
    return out;
  }
  TempDir tmp_;
  std::string index_;
};

TEST_F(AddCommandTest, DirectoryIdsAreRelativePathsAndLabelsAreStored) {
  RunResult r = Run({"add", "--label", "board", "--label", "q3",
                     SamplePath("protected")});
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("5 added, 0 replaced, 0 unchanged"));
  std::vector<Json> docs = List();
  ASSERT_EQ(docs.size(), 5u);
  EXPECT_EQ(docs[1]["id"], "merger-memo.txt");
  EXPECT_EQ(docs[1]["source"], SamplePath("protected/merger-memo.txt"));
  EXPECT_EQ(docs[1]["labels"], Json::array({"board", "q3"}));
  EXPECT_GT(docs[1]["shingles"].get<int>(), 300);
}

TEST_F(AddCommandTest, ReAddingIsUnchangedReplacedOrDuplicate) {
  const std::string memo = SamplePath("protected/merger-memo.txt");
  ASSERT_EQ(Run({"add", "--id", "memo", memo}).exit, 0);
  EXPECT_THAT(Run({"add", "--id", "memo", memo}).out, HasSubstr("unchanged memo"));
  RunResult dup = Run({"add", "--id", "copy", memo});
  EXPECT_EQ(dup.exit, 0);
  EXPECT_THAT(dup.out, HasSubstr("duplicate copy: same text as memo, not added"));
  const std::string edited = tmp_.Sub("memo.txt");
  std::ofstream(edited) << SlurpFile(memo) << "\nAddendum: the board met again.\n";
  EXPECT_THAT(Run({"add", "--id", "memo", edited}).out, HasSubstr("replaced  memo"));
  EXPECT_EQ(List().size(), 1u);
}

TEST_F(AddCommandTest, IdNeedsExactlyOneFile) {
  RunResult r = Run({"add", "--id", "x", SamplePath("protected")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("--id needs exactly one file"));
  EXPECT_EQ(List().size(), 0u);
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
  RunResult scan = Run({"scan", mail});
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
         fs::directory_iterator(fs::path(LEAKHOUND_SOURCE_DIR) / sub)) {
      if (!e.is_regular_file()) continue;
      const std::string to =
          (fs::path(dir) / (std::string(sub) + "_" + e.path().filename().string()))
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
      std::vector<std::string> args = {LEAKHOUND_BINARY, "add",   "--index",
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

}  // namespace
}  // namespace leakhound
