// Drives the real binary: add (ids, --id, labels, replace/unchanged/
// duplicate, --from-list, a second writer) and allow (add, list, remove).
#include <filesystem>
#include <fstream>
#include <string>

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

}  // namespace
}  // namespace leakhound
