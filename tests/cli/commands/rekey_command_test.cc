// Drives the real binary: `leakhound rekey` rebuilds under a fresh key
// from the re-read sources, refuses (changing nothing) when a source is
// gone or changed, and survives SIGKILL at any moment.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "index/index_store.h"
#include "shingler/shingler.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Json = nlohmann::json;

class RekeyCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = tmp_.Sub("index");
    sources_ = tmp_.Sub("protected");
    fs::copy(SamplePath("protected"), sources_);
    ASSERT_EQ(Run({"init"}).exit, 0);
    RunResult add = Run({"add", sources_});
    ASSERT_EQ(add.exit, 0) << add.err;
    const std::string allow = tmp_.Sub("disclaimer.txt");
    std::ofstream(allow) << "This message is confidential and intended only "
                            "for its addressee; if you received it by "
                            "mistake, delete it and tell the sender.\n";
    ASSERT_EQ(Run({"allow", "add", allow}).exit, 0);
    ASSERT_EQ(Run({"locations", "add", "//fs01/hr"}).exit, 0);
  }

  RunResult Run(std::vector<std::string> args) {
    args.insert(args.begin() + (args[0] == "allow" || args[0] == "locations" ||
                                        args[0] == "records"
                                    ? 2
                                    : 1),
                {"--index", index_});
    return RunLeakhound(args);
  }
  std::string Key() const { return SlurpFile(index_ + "/key"); }
  std::string Ids() {
    return Run({"list", "--json"}).out;  // one line per document, id order
  }
  std::set<std::string> Leaks() {
    RunResult r = RunLeakhound(
        {"scan", "--index", index_, "--json", SamplePath("outbound")});
    std::set<std::string> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      const Json j = Json::parse(line);
      for (const Json& m : j["matches"]) {
        out.insert(j["path"].get<std::string>() + " " +
                   m["kind"].get<std::string>() + " " +
                   m.value("doc_id", m.value("prefix", "")));
      }
    }
    return out;
  }
  bool LeftoverSibling() const {
    for (const auto& e : fs::directory_iterator(tmp_.path())) {
      if (e.path().filename().string().starts_with("index.rekey-")) return true;
    }
    return false;
  }

  TempDir tmp_;
  std::string index_, sources_;
};

// An index built by an older shingler version is refused by every command
// but rekey, whose message says so; rekey rebuilds it with this version,
// and then it finds what it found before.
TEST_F(RekeyCommandTest, RekeyBringsAnIndexOfAnOlderShinglerVersionUpToDate) {
  const std::set<std::string> leaks = Leaks();
  ASSERT_FALSE(leaks.empty());
  const std::string ids = Ids();
  {
    auto store = IndexStore::Open(index_, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok()) << store.status();
    MetadataRecord meta = (*store)->metadata();
    meta.shingler_version = kShinglerVersion - 1;
    IndexBatch batch;
    batch.PutMetadata(meta);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  RunResult scan =
      RunLeakhound({"scan", "--index", index_, SamplePath("outbound")});
  EXPECT_EQ(scan.exit, 2);
  EXPECT_THAT(scan.err, HasSubstr("leakhound rekey"));
  RunResult add = Run({"add", SamplePath("outbound/email-board-leak.txt")});
  EXPECT_EQ(add.exit, 2);

  RunResult rekey = Run({"rekey"});
  ASSERT_EQ(rekey.exit, 0) << rekey.err;
  EXPECT_EQ(Ids(), ids);
  EXPECT_EQ(Leaks(), leaks);
  EXPECT_EQ(Run({"verify"}).exit, 0);
}

TEST_F(RekeyCommandTest, ANewKeyKeepsDocumentsAllowListLocationsAndMatches) {
  const std::string key = Key();
  const std::set<std::string> leaks = Leaks();
  ASSERT_FALSE(leaks.empty());
  const std::string allow_before = Run({"allow", "list"}).out;
  RunResult rekey = Run({"rekey"});
  ASSERT_EQ(rekey.exit, 0) << rekey.err;
  EXPECT_THAT(rekey.out,
              HasSubstr("5 documents, 1 allow-list entries, 1 locations and "
                        "0 protected tables under a new key"));
  EXPECT_NE(Key(), key);
  EXPECT_EQ(Key().size(), key.size());
  EXPECT_EQ(Leaks(), leaks);
  EXPECT_EQ(Run({"allow", "list"}).out, allow_before);
  EXPECT_THAT(Run({"locations", "list"}).out, HasSubstr("//fs01/hr"));
  EXPECT_EQ(Run({"verify"}).exit, 0);
  EXPECT_FALSE(LeftoverSibling());
  EXPECT_EQ(fs::status(index_).permissions() & fs::perms::all,
            fs::perms::owner_all);
}

TEST_F(RekeyCommandTest, AGoneOrChangedSourceIsNamedAndNothingChanges) {
  const std::string key = Key(), ids = Ids();
  std::ofstream(sources_ + "/merger-memo.txt", std::ios::app) << "edited\n";
  fs::remove(sources_ + "/pricing-2027.txt");
  RunResult rekey = Run({"rekey"});
  EXPECT_EQ(rekey.exit, 2);
  EXPECT_THAT(rekey.err,
              HasSubstr("merger-memo.txt has changed since it was added"));
  EXPECT_THAT(rekey.err,
              HasSubstr("pricing-2027.txt: No such file or directory"));
  EXPECT_THAT(rekey.err, HasSubstr("2 of 6 protected sources cannot be read "
                                   "again as they were added"));
  EXPECT_EQ(Key(), key);
  EXPECT_EQ(Ids(), ids);
  EXPECT_EQ(Run({"verify"}).exit, 0);
  EXPECT_FALSE(LeftoverSibling());
}

TEST_F(RekeyCommandTest, ADocumentAddedFromStandardInputCannotBeReadAgain) {
  RunOptions in;
  in.stdin_text = "A pasted memo about the quarterly numbers of the northern "
                  "region, its hires and its open positions.";
  RunResult add =
      RunLeakhound({"add", "--index", index_, "--id", "pasted", "-"}, in);
  ASSERT_EQ(add.exit, 0) << add.err;
  RunResult rekey = Run({"rekey"});
  EXPECT_EQ(rekey.exit, 2);
  EXPECT_THAT(rekey.err, HasSubstr("pasted: it was added from standard input"));
}

TEST_F(RekeyCommandTest, SigkillAtAnyMomentLeavesOneWholeIndex) {
  const std::string key = Key(), ids = Ids();
  const std::set<std::string> leaks = Leaks();
  // How long one rekey takes here (CI machines are slower): the kills
  // below land in the first and in the second such span, so that runs are
  // cut off before the swap and others get through it.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(Run({"rekey"}).exit, 0);
  const auto span = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  std::mt19937_64 rng(20261123);
  int rekeyed = 0, kept = 0;
  for (int iter = 0; iter < 12; ++iter) {
    const std::string before = Key();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      std::vector<std::string> args = {test_paths::kBinary, "rekey", "--index",
                                       index_};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const uint64_t window = static_cast<uint64_t>(span);
    const uint64_t delay = (iter % 2 == 0 ? 0 : 2 * window) + rng() % window;
    ::usleep(static_cast<useconds_t>(delay));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    (Key() == before ? kept : rekeyed) += 1;
    RunResult verify = Run({"verify"});
    ASSERT_EQ(verify.exit, 0) << "iteration " << iter << ": " << verify.out
                              << verify.err;
    EXPECT_EQ(Ids(), ids) << "iteration " << iter;
    EXPECT_EQ(Leaks(), leaks) << "iteration " << iter;
    // A run cut off leaves at most a sibling directory to delete.
    for (const auto& e : fs::directory_iterator(tmp_.path())) {
      if (e.path().filename().string().starts_with("index.rekey-")) {
        fs::remove_all(e.path());
      }
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(rekeyed, 0);
  EXPECT_NE(Key(), key);
}

// A protected table keeps only keyed hashes, so rekey hashes it again
// from its file; without the file nothing changes.
TEST_F(RekeyCommandTest, TablesAreHashedAgainFromTheirFilesOrNothingChanges) {
  const std::string schema = tmp_.Sub("s.toml");
  std::ofstream(schema) << "table = \"cards\"\n[[column]]\nname = \"card\"\n"
                           "type = \"card\"\nprimary = true\n[[column]]\n"
                           "name = \"name\"\ntype = \"name\"\n[[column]]\n"
                           "name = \"born\"\ntype = \"date\"\n";
  const std::string table = tmp_.Sub("cards.tsv");
  std::ofstream(table) << "born\tname\tcard\n1985-03-02\tJohn Smith\t"
                          "4111111111111111\n";
  ASSERT_EQ(Run({"records", "add", "--schema", schema, table}).exit, 0);
  const std::string mail = tmp_.Sub("out.txt");
  std::ofstream(mail) << "John Smith, 4111 1111 1111 1111, 2 March 1985\n";
  auto records = [&] {
    return RunLeakhound({"scan", "--index", index_, "--json", mail}).out;
  };
  ASSERT_THAT(records(), HasSubstr("\"kind\":\"record\""));
  const std::string key = Key();
  RunResult rekey = Run({"rekey"});
  ASSERT_EQ(rekey.exit, 0) << rekey.err;
  EXPECT_THAT(rekey.out, HasSubstr("and 1 protected tables under a new key"));
  EXPECT_NE(Key(), key);
  EXPECT_THAT(records(), HasSubstr("\"kind\":\"record\""));

  const std::string rekeyed = Key();
  fs::remove(table);
  rekey = Run({"rekey"});
  EXPECT_EQ(rekey.exit, 2);
  EXPECT_THAT(rekey.err, HasSubstr("table cards cannot be hashed again"));
  EXPECT_EQ(Key(), rekeyed);
  EXPECT_THAT(records(), HasSubstr("\"kind\":\"record\""));
  EXPECT_FALSE(LeftoverSibling());
}

}  // namespace
}  // namespace leakhound
