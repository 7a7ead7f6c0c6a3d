// Drives the real binary: init, stats, list, verify, compact, remove.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_store.h"
#include "nlohmann/json.hpp"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

TEST(AdminCommandsTest, StatsNamesTheGenerationThatEveryChangeIncrements) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  auto generation = [&] {
    return Json::parse(
        RunLeakhound({"stats", "--index", index, "--json"}).out)["generation"];
  };
  EXPECT_EQ(generation(), 0);
  const std::string doc = tmp.Sub("plan.txt");
  std::ofstream(doc) << "The relocation of the archive servers to the Tallinn "
                        "site begins on the fourth of May.\n";
  ASSERT_EQ(RunLeakhound({"add", "--index", index, doc}).exit, 0);
  EXPECT_EQ(generation(), 1);
  ASSERT_EQ(RunLeakhound({"remove", "--index", index, doc}).exit, 0);
  EXPECT_EQ(generation(), 2);
  EXPECT_THAT(RunLeakhound({"stats", "--index", index}).out,
              HasSubstr("generation         2"));
}

TEST(AdminCommandsTest, CommandsWithoutOperandsRefuseStrayArguments) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  for (const char* command : {"list", "stats", "verify", "compact"}) {
    RunResult r = RunLeakhound({command, "--index", index, "extra"});
    EXPECT_EQ(r.exit, 2) << command;
    EXPECT_EQ(r.err,
              absl::StrCat("leakhound ", command,
                           ": unexpected argument 'extra'\nTry 'leakhound ",
                           command, " --help' for the options.\n"));
  }
  RunResult short_index = RunLeakhound({"list", "-d", index});
  EXPECT_EQ(short_index.exit, 0) << short_index.err;
}

TEST(AdminCommandsTest, InitRecordsItsOptionsAndRefusesAnExistingIndex) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  RunResult init = RunLeakhound(
      {"init", "--index", index, "--fpr", "0.01", "--row-capacity", "4096",
       "--fill", "0.5", "--shingle-words", "6", "--packing", "mbf",
       "--row-groups", "128", "--filter-winnow", "4"});
  ASSERT_EQ(init.exit, 0) << init.err;
  EXPECT_THAT(init.out, HasSubstr("filter winnowing window 4"));
  RunResult stats = RunLeakhound({"stats", "--index", index, "--json"});
  ASSERT_EQ(stats.exit, 0) << stats.err;
  Json j = Json::parse(stats.out);
  EXPECT_EQ(j["fpr"], 0.01);
  EXPECT_EQ(j["row_capacity"], 4096);
  EXPECT_EQ(j["fill"], 0.5);
  EXPECT_EQ(j["shingle_words"], 6);
  EXPECT_EQ(j["packing"], "mbf");
  EXPECT_EQ(j["documents"], 0);
  EXPECT_EQ(j["group_rows"], 128);
  EXPECT_EQ(j["filter_winnow"], 4);

  RunResult again = RunLeakhound({"init", "--index", index});
  EXPECT_EQ(again.exit, 2);
  EXPECT_THAT(again.err, HasSubstr("exists and is not an empty directory"));
  RunResult bad = RunLeakhound({"init", "--index", tmp.Sub("x"), "--fpr", "2"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("--fpr must be a number from"));
  RunResult groups =
      RunLeakhound({"init", "--index", tmp.Sub("y"), "--row-groups", "100"});
  EXPECT_EQ(groups.exit, 2);
  EXPECT_THAT(groups.err, HasSubstr("--row-groups must be a multiple of 64"));
  ASSERT_EQ(RunLeakhound({"init", "--index", tmp.Sub("z")}).exit, 0);
  EXPECT_EQ(Json::parse(RunLeakhound({"stats", "--index", tmp.Sub("z"),
                                      "--json"}).out)["group_rows"],
            0);  // the default: one level
}

// The ids of `list --json` on `index`, in order.
std::vector<std::string> ListedIds(const std::string& index) {
  RunResult list = RunLeakhound({"list", "--index", index, "--json"});
  EXPECT_EQ(list.exit, 0) << list.err;
  std::vector<std::string> ids;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    ids.push_back(Json::parse(line)["id"].get<std::string>());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(AdminCommandsTest, SnapshotDuringAStreamOfAddsAndRemovesIsOneWriterState) {
  TempDir tmp;
  const std::string index = tmp.Sub("idx");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  // The stream: step i adds d<i>.txt, and every third step removes the
  // document added two steps before instead. The model's state after k
  // steps is what the writer holds once k steps have committed.
  constexpr int kSteps = 24;
  // A document's id is its path as given to add.
  auto doc = [&](int i) { return tmp.Sub("d" + std::to_string(i) + ".txt"); };
  auto model = [&](int k) {
    std::set<std::string> ids;
    for (int i = 0; i < k; ++i) {
      if (i % 3 == 2) {
        ids.erase(doc(i - 2));
      } else {
        ids.insert(doc(i));
      }
    }
    return std::vector<std::string>(ids.begin(), ids.end());
  };
  for (int i = 0; i < kSteps; ++i) {
    std::string text;
    for (int w = 0; w < 60; ++w) {
      text +=
          "w" + std::to_string(i) + "x" + std::to_string(w * 7919 % 1009) + " ";
    }
    std::ofstream(doc(i)) << text;
  }
  const std::string done_log = tmp.Sub("done");
  const pid_t writer = ::fork();
  if (writer == 0) {
    for (int i = 0; i < kSteps; ++i) {
      const std::vector<std::string> args =
          i % 3 == 2
              ? std::vector<std::string>{"remove", "--index", index, doc(i - 2)}
              : std::vector<std::string>{"add", "--index", index, doc(i)};
      // A writer finding the lock taken (by the snapshot) tries again.
      RunResult r;
      for (int attempt = 0; attempt < 400; ++attempt) {
        r = RunLeakhound(args);
        if (r.exit != 2 || r.err.find("locked by") == std::string::npos) break;
        ::usleep(20000);
      }
      if (r.exit != 0) ::_exit(1);
      std::ofstream(done_log, std::ios::app) << i << "\n";
    }
    ::_exit(0);
  }
  auto steps_done = [&] {
    std::ifstream in(done_log);
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  };
  for (int i = 0; i < 3000 && steps_done() < 6; ++i) ::usleep(10000);
  const int before = steps_done();
  RunResult snap = RunLeakhound(
      {"snapshot", "--index", index, "--wait", "60", tmp.Sub("replica")});
  const int after = steps_done();
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(snap.exit, 0) << snap.err;
  EXPECT_THAT(snap.out, HasSubstr("documents, in " + tmp.Sub("replica")));
  EXPECT_GE(before, 6);

  // The replica holds the state after some k steps that committed while
  // the snapshot ran, and is a sound index a reader scans.
  const std::vector<std::string> replica = ListedIds(tmp.Sub("replica"));
  int matching = -1;
  for (int k = before; k <= after + 1 && k <= kSteps; ++k) {
    if (model(k) == replica) matching = k;
  }
  EXPECT_NE(matching, -1) << "replica is no state of the writer between steps "
                          << before << " and " << after;
  EXPECT_EQ(RunLeakhound({"verify", "--index", tmp.Sub("replica")}).exit, 0);
  ASSERT_FALSE(replica.empty());
  RunResult scan =
      RunLeakhound({"scan", "--index", tmp.Sub("replica"), replica.front()});
  EXPECT_EQ(scan.exit, 1) << scan.out << scan.err;
  // The writer's index went on: it holds the whole stream.
  EXPECT_EQ(ListedIds(index), model(kSteps));
  EXPECT_EQ(
      RunLeakhound({"snapshot", "--index", index, tmp.Sub("replica")}).exit, 2);
}

TEST(AdminCommandsTest, LocationsAreAddedListedAndRemovedAllOrNothing) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  RunResult add = RunLeakhound({"locations", "add", "--index", index,
                                "smb://FS01/Finance/", "/srv/legal"});
  ASSERT_EQ(add.exit, 0) << add.err;
  EXPECT_EQ(add.out, "added     //fs01/finance\nadded     /srv/legal\n");
  RunResult again = RunLeakhound({"locations", "add", "--index", index,
                                  R"(\\fs01\finance)"});
  EXPECT_EQ(again.out, "unchanged //fs01/finance\n");
  RunResult bad = RunLeakhound(
      {"locations", "add", "--index", index, "/srv/hr", "finance"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("'finance' is not a URL"));
  RunResult list =
      RunLeakhound({"locations", "list", "--index", index, "--json"});
  ASSERT_EQ(list.exit, 0) << list.err;
  std::vector<Json> rows;
  std::istringstream in(list.out);
  for (std::string line; std::getline(in, line);)
    rows.push_back(Json::parse(line));
  ASSERT_EQ(rows.size(), 2u);  // /srv/hr was not added
  EXPECT_EQ(rows[0]["key"], "//fs01/finance");
  EXPECT_EQ(rows[0]["given"], "smb://FS01/Finance/");
  EXPECT_EQ(rows[1]["key"], "/srv/legal");
  RunResult missing = RunLeakhound(
      {"locations", "remove", "--index", index, "/srv/legal", "/srv/none"});
  EXPECT_EQ(missing.exit, 2);
  EXPECT_THAT(missing.err, HasSubstr("/srv/none is not protected"));
  RunResult removed =
      RunLeakhound({"locations", "remove", "--index", index, "/SRV/Legal/"});
  EXPECT_EQ(removed.exit, 0) << removed.err;
  RunResult after = RunLeakhound({"locations", "list", "--index", index});
  EXPECT_THAT(after.out, HasSubstr("//fs01/finance"));
  EXPECT_THAT(after.out, Not(HasSubstr("/srv/legal")));
  EXPECT_EQ(RunLeakhound({"verify", "--index", index}).exit, 0);
}

TEST(AdminCommandsTest, IndexFilesAreForTheirOwnerAndTheKeyIsNeverPrinted) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  std::string printed;
  auto run = [&](std::vector<std::string> args) {
    RunResult r = RunLeakhound(args);
    printed += r.out + r.err;
    return r.exit;
  };
  ASSERT_EQ(run({"init", "--index", index}), 0);
  ASSERT_EQ(run({"add", "--index", index, SamplePath("protected")}), 0);
  ASSERT_EQ(run({"locations", "add", "--index", index, "//fs01/hr"}), 0);
  ASSERT_EQ(run({"compact", "--index", index}), 0);
  ASSERT_EQ(run({"rekey", "--index", index}), 0);
  run({"scan", "--index", index, "--json", "--candidates",
       SamplePath("outbound")});
  run({"scan", "--index", index, SamplePath("outbound")});
  for (const char* command : {"list", "stats", "verify"}) {
    run({command, "--index", index});
  }
  run({"stats", "--index", index, "--json"});
  // Every file and directory the commands made is its owner's alone.
  size_t entries = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(index)) {
    ++entries;
    const auto perms = e.status().permissions();
    EXPECT_EQ(perms & (std::filesystem::perms::group_all |
                       std::filesystem::perms::others_all),
              std::filesystem::perms::none)
        << e.path();
  }
  EXPECT_GT(entries, 5u);
  // The fingerprint key (32 bytes) appears in no output, raw or in hex.
  const std::string key = SlurpFile(index + "/key");
  ASSERT_EQ(key.size(), 32u);
  std::string hex;
  for (unsigned char c : key) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  EXPECT_EQ(printed.find(key), std::string::npos);
  EXPECT_EQ(printed.find(hex.substr(0, 16)), std::string::npos);
  EXPECT_GT(printed.size(), 1000u);
}

// An index folder or an incident store that anyone can write is refused,
// in one line saying what to do: otherwise another user could swap the
// key or plant a console admin.
TEST(AdminCommandsTest, AnIndexOrStoreOthersCanWriteIsRefused) {
  TempDir tmp;
  const std::string index = tmp.Sub("index"), store = tmp.Sub("incidents.db");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  ASSERT_EQ(::chmod(index.c_str(), 0777), 0);
  RunResult scan =
      RunLeakhound({"scan", "--index", index, SamplePath("outbound")});
  EXPECT_EQ(scan.exit, 2);
  EXPECT_EQ(scan.err, "leakhound scan: index " + index +
                          " can be written by other users (mode 0777); "
                          "refused: chmod go-w " + index + "\n");
  ASSERT_EQ(::chmod(index.c_str(), 0700), 0);
  EXPECT_EQ(RunLeakhound({"list", "--index", index}).exit, 0);

  ASSERT_EQ(
      RunLeakhound({"console", "user", "list", "--incidents", store}).exit, 0);
  ASSERT_EQ(RunLeakhound({"incidents", "list", "--incidents", store}).exit, 0);
  ASSERT_EQ(::chmod(store.c_str(), 0666), 0);
  RunResult listed = RunLeakhound({"incidents", "list", "--incidents", store});
  EXPECT_EQ(listed.exit, 2);
  EXPECT_THAT(listed.err, HasSubstr("incidents " + store +
                                    " can be written by other users (mode 0666)"));
  RunOptions password;
  password.stdin_text = "eve-password-1\n";
  RunResult user = RunLeakhound({"console", "user", "add", "eve", "--role",
                                 "admin", "--incidents", store},
                                password);
  EXPECT_EQ(user.exit, 2);
  // A store in a folder others can write: they could move it aside and
  // put one with their own admin in its place.
  ASSERT_EQ(::chmod(store.c_str(), 0600), 0);
  const std::string open_dir = tmp.Sub("open");
  std::filesystem::create_directory(open_dir);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  std::filesystem::rename(store, open_dir + "/incidents.db");
  RunResult moved = RunLeakhound(
      {"incidents", "list", "--incidents", open_dir + "/incidents.db"});
  EXPECT_EQ(moved.exit, 2);
  EXPECT_THAT(moved.err, HasSubstr("the folder holding incidents " + open_dir +
                                   " can be written by other users (mode "
                                   "0777); refused: chmod go-w " + open_dir));
  // An index folder in such a folder is refused the same way.
  std::filesystem::rename(index, open_dir + "/index");
  EXPECT_THAT(RunLeakhound({"list", "--index", open_dir + "/index"}).err,
              HasSubstr("the folder holding index " + open_dir +
                        " can be written by other users"));
}

// With --key-file the key lives outside the index folder: the folder (and
// its snapshots) hold only its path, so a copy scanned on a host without
// the key tests no guesses.
TEST(AdminCommandsTest, AKeyFileOutsideTheIndexStaysOutOfItsCopies) {
  TempDir tmp;
  const std::string index = tmp.Sub("index"), keys = tmp.Sub("keys");
  std::filesystem::create_directory(keys);
  ASSERT_EQ(::chmod(keys.c_str(), 0700), 0);
  const std::string key = keys + "/index.key";
  ASSERT_EQ(RunLeakhound({"init", "--index", index, "--key-file", key}).exit, 0);
  EXPECT_FALSE(std::filesystem::exists(index + "/key"));
  EXPECT_EQ(std::filesystem::file_size(key), 32u);
  ASSERT_EQ(RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit,
            0);
  EXPECT_EQ(RunLeakhound({"scan", "--index", index,
                          SamplePath("outbound/email-board-leak.txt")})
                .exit,
            1);
  const std::string copy = tmp.Sub("copy");
  ASSERT_EQ(RunLeakhound({"snapshot", "--index", index, copy}).exit, 0);
  EXPECT_FALSE(std::filesystem::exists(copy + "/key"));
  EXPECT_EQ(RunLeakhound({"scan", "--index", copy,
                          SamplePath("outbound/email-board-leak.txt")})
                .exit,
            1);
  // Elsewhere (the key not installed), the copy opens nothing.
  std::filesystem::rename(key, tmp.Sub("elsewhere.key"));
  RunResult away = RunLeakhound(
      {"scan", "--index", copy, SamplePath("outbound/email-board-leak.txt")});
  EXPECT_EQ(away.exit, 2);
  EXPECT_THAT(away.err, HasSubstr("cannot open " + key));
  // A relative path is refused at init.
  RunResult relative = RunLeakhound(
      {"init", "--index", tmp.Sub("i2"), "--key-file", "rel.key"});
  EXPECT_EQ(relative.exit, 2);
  EXPECT_THAT(relative.err, HasSubstr("an absolute path"));
}

TEST(AdminCommandsTest, StatsCountsDocumentsRowsAndBits) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(
      RunLeakhound({"init", "--index", index, "--row-capacity", "512"}).exit,
      0);
  ASSERT_EQ(
      RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit, 0);
  Json j = Json::parse(RunLeakhound({"stats", "--index", index, "--json"}).out);
  EXPECT_EQ(j["documents"], 5);
  EXPECT_EQ(j["fingerprints"], 1816);  // distinct per document, summed
  EXPECT_EQ(j["rows_in_use"], 4);      // 1816 fingerprints, 512 per row
  int rows = 0;
  for (const Json& n : j["row_fill_deciles"]) rows += n.get<int>();
  EXPECT_EQ(rows, 4);
  EXPECT_NEAR(j["bits_per_fingerprint"].get<double>(),
              4.0 * j["bits"].get<double>() / 1816, 1e-3);
  EXPECT_GT(j["disk_bytes"].get<double>(), 0);
  RunResult human = RunLeakhound({"stats", "--index", index});
  EXPECT_THAT(human.out, HasSubstr("documents          5"));
}

TEST(AdminCommandsTest, VerifyExits1OnDamageAndNamesIt) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  ASSERT_EQ(
      RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit, 0);
  EXPECT_EQ(RunLeakhound({"verify", "--index", index}).exit, 0);
  {
    auto store = IndexStore::Open(index, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok()) << store.status();
    // A fingerprint no document holds, added to its bucket.
    const std::vector<uint32_t> bucket = {CountBucketOf(42)};
    auto read = (*store)->ReadCountBuckets(bucket);
    ASSERT_TRUE(read.ok());
    CountBucketRecord record{{FingerprintCount{42, 3}}};  // ascending: smallest
    const auto& rest = read->front().entries;
    record.entries.insert(record.entries.end(), rest.begin(), rest.end());
    IndexBatch batch;
    batch.PutCountBucket(CountTable::kAll, bucket[0], record);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  RunResult r = RunLeakhound({"verify", "--index", index});
  EXPECT_EQ(r.exit, 1);
  EXPECT_THAT(r.out, HasSubstr("problem: 1 fingerprints have a wrong document "
                               "frequency"));
  EXPECT_THAT(r.out, HasSubstr("index DAMAGED"));
}

TEST(AdminCommandsTest, RemoveUnknownIdIsAnErrorButOthersAreRemoved) {
  TempDir tmp;
  const std::string index = tmp.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  ASSERT_EQ(
      RunLeakhound({"add", "--index", index, SamplePath("protected")}).exit, 0);
  RunResult r = RunLeakhound({"remove", "--index", index, "nope",
                              "protected/pricing-2027.txt"});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("no document with id nope"));
  EXPECT_THAT(r.out, HasSubstr("removed protected/pricing-2027.txt"));
  RunResult list = RunLeakhound({"list", "--index", index});
  EXPECT_THAT(list.out,
              ::testing::Not(HasSubstr("protected/pricing-2027.txt")));
  // Each document's source is listed, the last column.
  EXPECT_THAT(list.out,
              HasSubstr("labels            sensitivity       source\n"));
  EXPECT_THAT(list.out,
              HasSubstr("  " + SamplePath("protected/merger-memo.txt") + "\n"));
}

}  // namespace
}  // namespace leakhound
