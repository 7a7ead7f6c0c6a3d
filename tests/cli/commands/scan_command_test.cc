// Drives the real leakhound binary: index the sample corpus, scan, remove,
// scan again, compact, verify; the JSON Lines contract; exit codes; and
// the bad-input suite.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/formats/text_extractor.h"
#include "engine/content_digest.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

std::vector<Json> JsonLines(const std::string& out) {
  std::vector<Json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(Json::parse(line));  // throws (fails the test) if invalid
  }
  return lines;
}

class ScanCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = tmp_.Sub("index");
    RunResult init = RunLeakhound({"init", "--index", index_});
    ASSERT_EQ(init.exit, 0) << init.err;
    RunResult add =
        RunLeakhound({"add", "--index", index_, SamplePath("protected")});
    ASSERT_EQ(add.exit, 0) << add.err;
  }

  RunResult Scan(std::vector<std::string> args,
                 const RunOptions& options = {}) {
    args.insert(args.begin(), {"scan", "--index", index_});
    return RunLeakhound(args, options);
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = tmp_.Sub(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // Writes `files` (name, text) into a new folder `dir` and adds it to the
  // index.
  void Protect(const std::string& dir,
               const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string folder = tmp_.Sub(dir);
    std::filesystem::create_directories(folder);
    for (const auto& [name, text] : files) {
      std::ofstream(folder + "/" + name) << text;
    }
    RunResult add = RunLeakhound({"add", "--index", index_, folder});
    ASSERT_EQ(add.exit, 0) << add.err;
  }

  TempDir tmp_;
  std::string index_;
};

TEST_F(ScanCommandTest, SampleOutboundHasFiveLeaksTwoCleanFilesInOrder) {
  RunResult r = Scan({"--json", SamplePath("outbound")});
  EXPECT_EQ(r.exit, 1) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 7u);
  std::vector<std::string> verdicts, paths;
  for (const Json& j : lines) {
    verdicts.push_back(j["verdict"]);
    paths.push_back(std::filesystem::path(std::string(j["path"])).filename());
  }
  EXPECT_THAT(paths, ::testing::ElementsAre(
                         "email-board-leak.txt",
                         "mail-doc-attachment-leak.eml",
                         "mail-docx-attachment-leak.eml",
                         "newsletter-ja-clean.txt",
                         "obfuscated-pricing-leak.txt",
                         "support-reply-clean.txt", "wechat-zh-leak.txt"));
  EXPECT_THAT(verdicts, ::testing::ElementsAre("leak", "leak", "leak", "clean",
                                               "leak", "clean", "leak"));
  EXPECT_EQ(lines[0]["matches"][0]["doc_id"], "protected/merger-memo.txt");
  EXPECT_EQ(lines[1]["matches"][0]["doc_id"],
            "protected/supplier-contract-zh.txt");
  EXPECT_EQ(lines[1]["matches"][0]["part"], "supplier-terms.doc");
  EXPECT_EQ(lines[2]["matches"][0]["doc_id"], "protected/incident-report.txt");
  EXPECT_EQ(lines[2]["matches"][0]["part"], "call-prep.docx");
  EXPECT_EQ(lines[4]["matches"][0]["doc_id"], "protected/pricing-2027.txt");
  EXPECT_EQ(lines[6]["matches"][0]["doc_id"],
            "protected/supplier-contract-zh.txt");
  // With --json the summary goes to standard error, never standard output.
  EXPECT_THAT(r.err, HasSubstr("7 files scanned: 5 leaked, 2 clean"));
}

TEST_F(ScanCommandTest, JsonRecordFollowsTheSchemaWithOffsetsIntoBothTexts) {
  const std::string mail = SamplePath("outbound/email-board-leak.txt");
  RunResult r = Scan({"--json", mail});
  ASSERT_EQ(r.exit, 1) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  const Json& j = lines[0];
  const std::string text = SlurpFile(mail);
  EXPECT_EQ(j["path"], mail);
  EXPECT_EQ(j["bytes"], text.size());
  EXPECT_GT(j["words"].get<int>(), 100);
  EXPECT_GE(j["elapsed_ms"].get<double>(), 0);
  EXPECT_GE(j["candidates"].get<int>(), 1);
  EXPECT_FALSE(j.contains("error"));
  const Json& m = j["matches"][0];
  EXPECT_GE(m["matched_words"].get<int>(), 55);
  EXPECT_GT(m["coverage_of_source"].get<double>(), 0.1);
  EXPECT_LT(m["coverage_of_source"].get<double>(), 0.25);
  EXPECT_GT(m["coverage_of_scanned"].get<double>(), 0.4);
  EXPECT_EQ(m["part"], "") << "the mail's own text";
  // The file is a mail: its extracted text is the subject, a blank line and
  // the body (the headers are not text of the message).
  const std::string extracted = "you did not hear this from me\n\n" +
                                text.substr(text.find("\n\n") + 2);
  const Json& p = m["passages"][0];
  EXPECT_EQ(p["part"], "");
  const size_t start = p["start"], end = p["end"];
  EXPECT_EQ(extracted.substr(start, 10), "Valuation.");
  EXPECT_EQ(extracted.substr(end - 7, 7), "dollars");
  const std::string memo = SlurpFile(SamplePath("protected/merger-memo.txt"));
  const size_t source_start = p["source_start"];
  EXPECT_EQ(memo.substr(source_start, 10), "Valuation.");
  EXPECT_EQ(p["words"], m["matched_words"]);
}

TEST_F(ScanCommandTest, CandidatesListsEveryProposedDocumentOnlyWhenAsked) {
  const std::string leak = SamplePath("outbound/email-board-leak.txt");
  const std::vector<Json> plain = JsonLines(Scan({"--json", leak}).out);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].contains("candidate_ids"));
  const std::vector<Json> with =
      JsonLines(Scan({"--json", "--candidates", leak}).out);
  ASSERT_EQ(with.size(), 1u);
  const Json& ids = with[0]["candidate_ids"];
  EXPECT_EQ(ids.size(), with[0]["candidates"].get<size_t>());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "protected/merger-memo.txt"),
            ids.end());
}

TEST_F(ScanCommandTest, HumanReportShowsVerdictsDocumentsAndPassageLines) {
  RunResult r = Scan({SamplePath("outbound/email-board-leak.txt"),
                      SamplePath("outbound/support-reply-clean.txt")});
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("LEAK "));
  EXPECT_THAT(r.out, HasSubstr("protected/merger-memo.txt: "));
  EXPECT_THAT(r.out, HasSubstr("lines 8-13, "));  // of the mail's text
  EXPECT_THAT(r.out, HasSubstr("\"Valuation. Our advisers value Calloway"));
  EXPECT_THAT(r.out, HasSubstr("clean  " +
                               SamplePath("outbound/support-reply-clean.txt")));
  EXPECT_THAT(r.out, Not(HasSubstr("\033[")));  // not a terminal: no color
}

TEST_F(ScanCommandTest, RemoveScanCompactVerifyAndAddAgain) {
  const std::string mail = SamplePath("outbound/email-board-leak.txt");
  ASSERT_EQ(Scan({mail}).exit, 1);
  RunResult removed = RunLeakhound({"remove", "--index", index_,
                                    "protected/merger-memo.txt"});
  ASSERT_EQ(removed.exit, 0) << removed.err;
  EXPECT_THAT(removed.out, HasSubstr("removed protected/merger-memo.txt"));
  RunResult after = Scan({"--json", mail});
  EXPECT_EQ(after.exit, 0) << after.err;
  EXPECT_EQ(JsonLines(after.out)[0]["verdict"], "clean");
  // The other leaks are still found.
  EXPECT_EQ(Scan({SamplePath("outbound/wechat-zh-leak.txt")}).exit, 1);

  RunResult compact = RunLeakhound({"compact", "--index", index_});
  EXPECT_EQ(compact.exit, 0) << compact.err;
  RunResult verify = RunLeakhound({"verify", "--index", index_});
  EXPECT_EQ(verify.exit, 0) << verify.out << verify.err;
  EXPECT_THAT(verify.out, HasSubstr("index OK: 4 documents"));

  RunResult again = RunLeakhound({"add", "--index", index_, "--id", "memo-v2",
                                  SamplePath("protected/merger-memo.txt")});
  ASSERT_EQ(again.exit, 0) << again.err;
  RunResult found = Scan({"--json", mail});
  EXPECT_EQ(found.exit, 1);
  EXPECT_EQ(JsonLines(found.out)[0]["matches"][0]["doc_id"], "memo-v2");
}

// A leak reached only through a symlink inside the scanned tree is skipped
// by default (the tree is what was asked for) and found with
// --follow-symlinks.
TEST_F(ScanCommandTest, SymlinksInATreeAreFollowedOnlyWhenAsked) {
  const std::string tree = tmp_.Sub("share");
  std::filesystem::create_directories(tree);
  Write("share/clean.txt",
        SlurpFile(SamplePath("outbound/support-reply-clean.txt")));
  std::filesystem::create_symlink(SamplePath("outbound/email-board-leak.txt"),
                                  tree + "/board.txt");
  RunResult plain = Scan({"--json", tree});
  EXPECT_EQ(plain.exit, 0) << plain.err;
  EXPECT_EQ(JsonLines(plain.out).size(), 1u);
  RunResult followed = Scan({"--json", "--follow-symlinks", tree});
  EXPECT_EQ(followed.exit, 1) << followed.err;
  ASSERT_EQ(JsonLines(followed.out).size(), 2u);
  EXPECT_EQ(JsonLines(followed.out)[0]["path"], tree + "/board.txt");
}

TEST_F(ScanCommandTest, StandardInputIsScannedAsDash) {
  RunOptions in;
  in.stdin_text = SlurpFile(SamplePath("outbound/obfuscated-pricing-leak.txt"));
  RunResult r = Scan({"--json", "-"}, in);
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_EQ(JsonLines(r.out)[0]["path"], "-");
}

TEST_F(ScanCommandTest, AStrayNulByteDoesNotHideALeakedPassage) {
  // A NUL and a control byte pasted into a leaking text: still text, still
  // a leak (not "binary data", which would be an error, not a finding).
  std::string text =
      SlurpFile(SamplePath("outbound/obfuscated-pricing-leak.txt"));
  text.insert(text.size() / 3, std::string("\0\x1f", 2));
  RunResult r = Scan({"--json", Write("pasted.txt", text)});
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_EQ(JsonLines(r.out)[0]["verdict"], "leak");
}

TEST_F(ScanCommandTest, IndexComesFromTheEnvironment) {
  RunOptions env;
  env.env = {{"LEAKHOUND_INDEX", index_}};
  RunResult r = RunLeakhound(
      {"scan", SamplePath("outbound/wechat-zh-leak.txt")}, env);
  EXPECT_EQ(r.exit, 1) << r.err;
}

TEST_F(ScanCommandTest, MinWordsDecidesShortPassages) {
  // Twelve words of the incident report inside a note.
  const std::string note = Write(
      "note.txt",
      "Hi team, FYI: the secret scanning service did not cover repositories "
      "outside our own organisation. Thanks!");
  EXPECT_EQ(Scan({note}).exit, 0);  // default 15 words
  EXPECT_EQ(Scan({"--min-words", "10", note}).exit, 1);
  RunResult low = Scan({"--min-words", "9", note});
  EXPECT_EQ(low.exit, 2);
  EXPECT_THAT(low.err, HasSubstr("--min-words must be a whole number from 10"));
}

TEST_F(ScanCommandTest, MinDistinctiveWordsIgnoresTextOnlyATemplateShares) {
  // Three protected forms share a 40-word header; each has its own body.
  const std::string header =
      "Regional procurement office, form revision eleven. Complete every "
      "field in block capitals, attach the signed approval of your cost "
      "centre manager, and return the form to the procurement desk no later "
      "than five working days before the order date stated below.";
  const char* bodies[] = {
      "Laboratory glassware for the Lisbon site: forty beakers, twelve "
      "burettes and a replacement fume cupboard sash, delivered to the "
      "north loading bay before the spring inventory count begins.",
      "Fleet tyres for the Rotterdam depot: sixty winter tyres for the "
      "delivery vans, fitted on site by the contractor during the two "
      "night shifts agreed with the depot supervisor in October.",
      "Office furniture for the Tallinn branch: eighteen height adjustable "
      "desks and matching chairs, assembled by the supplier and checked by "
      "facilities before the new analysts arrive in January."};
  std::vector<std::pair<std::string, std::string>> forms;
  for (int i = 0; i < 3; ++i) {
    forms.emplace_back("form-" + std::to_string(i) + ".txt",
                       header + "\n\n" + bodies[i] + "\n");
  }
  ASSERT_NO_FATAL_FAILURE(Protect("forms", forms));

  // The header alone matches all three, with no distinctive word.
  const std::string copy = Write("header.txt", "Hi,\n\n" + header + "\n");
  RunResult r = Scan({"--json", copy});
  ASSERT_EQ(r.exit, 1) << r.err;
  Json record = JsonLines(r.out).at(0);
  ASSERT_EQ(record["matches"].size(), 3u);
  for (const Json& m : record["matches"]) {
    EXPECT_EQ(m["distinctive_words"], 0) << m.dump();
  }
  // Under the rule it is no leak.
  r = Scan({"--json", "--min-distinctive-words", "5", copy});
  EXPECT_EQ(r.exit, 0) << r.out;
  EXPECT_TRUE(JsonLines(r.out).at(0)["matches"].empty());
  // The header and one form's body: that form only, its body distinctive.
  const std::string leak =
      Write("leak.txt", header + "\n\n" + std::string(bodies[1]) + "\n");
  r = Scan({"--json", "--min-distinctive-words", "5", leak});
  ASSERT_EQ(r.exit, 1) << r.err;
  record = JsonLines(r.out).at(0);
  ASSERT_EQ(record["matches"].size(), 1u);
  EXPECT_THAT(record["matches"][0]["doc_id"].get<std::string>(),
              HasSubstr("form-1.txt"));
  EXPECT_GE(record["matches"][0]["distinctive_words"].get<int>(), 25);
  // Out of range: a usage error.
  RunResult bad = Scan({"--min-distinctive-words", "10001", copy});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("--min-distinctive-words must be a whole "
                                 "number from 0 to 10000"));
}

TEST_F(ScanCommandTest, WordChecksFindAPassageRewordedNearItsEnds) {
  // A protected memo of 96 words; the outbound text quotes its first 30
  // with words 5, 12, 19 and 26 (1-based) replaced: the matched shingles
  // hold words 6-25, 20 words, under --min-words 22.
  const std::string memo =
      "Quarterly pricing review for the northern region. The distributor "
      "discount rises from eleven to fourteen percent on every pallet order "
      "placed before the end of March, and the freight surcharge for island "
      "deliveries is waived for accounts above two hundred thousand euros. "
      "Sales managers may not disclose these terms to resellers outside the "
      "approved list. Finance will publish the revised rate card after the "
      "board signs the budget, and until then the old card stays in force "
      "for every quotation sent to customers in the southern and western "
      "regions of the network.";
  ASSERT_NO_FATAL_FAILURE(
      Protect("memos", {{"pricing-memo.txt", memo + "\n"}}));
  const std::string reworded =
      "Quarterly pricing review for a northern region. The distributor "
      "discount rises by eleven to fourteen percent on every crate order "
      "placed before the end of April, and the freight surcharge";
  const std::string mail =
      Write("mail.txt",
            "Hello Sam,\n\nas promised: " + reworded + ".\n\nCheers, Kim\n");
  RunResult r = Scan({"--json", "--no-word-checks", mail});
  EXPECT_EQ(r.exit, 0) << r.out;
  r = Scan({"--json", mail});
  ASSERT_EQ(r.exit, 1) << r.err;
  const Json record = JsonLines(r.out).at(0);
  ASSERT_EQ(record["matches"].size(), 1u);
  EXPECT_THAT(record["matches"][0]["doc_id"].get<std::string>(),
              HasSubstr("pricing-memo.txt"));
}

TEST_F(ScanCommandTest, ThreadsDoNotChangeResultsOrOrder) {
  RunResult one = Scan({"--json", "--threads", "1", SamplePath("outbound"),
                        SamplePath("protected")});
  RunResult four = Scan({"--json", "--threads", "4", SamplePath("outbound"),
                         SamplePath("protected")});
  ASSERT_EQ(one.exit, 1);
  ASSERT_EQ(four.exit, 1);
  std::vector<Json> a = JsonLines(one.out), b = JsonLines(four.out);
  ASSERT_EQ(a.size(), 12u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i].erase("elapsed_ms");
    b[i].erase("elapsed_ms");
    EXPECT_EQ(a[i], b[i]) << i;
  }
}

// --- bad input -------------------------------------------------------------

TEST_F(ScanCommandTest, MissingIndexIsOneLineErrorExit2) {
  RunResult r = RunLeakhound({"scan", "--index", tmp_.Sub("nope"),
                              SamplePath("outbound")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_EQ(r.err, "leakhound scan: no leakhound index at " + tmp_.Sub("nope") +
                       " (create one with: leakhound init --index " +
                       tmp_.Sub("nope") + ")\n");
  EXPECT_EQ(r.out, "");
  RunResult none = RunLeakhound({"scan", SamplePath("outbound")});
  EXPECT_EQ(none.exit, 2);
  EXPECT_THAT(none.err, HasSubstr("no index given"));
}

TEST_F(ScanCommandTest, BinaryEmptyAndMissingFilesAreReportedPerFile) {
  const std::string binary =
      Write("image.bin", std::string("\x01\x02\0\0x", 5));
  const std::string pdf = Write("doc.pdf", "%PDF-1.7\n%binary\n");
  const std::string empty = Write("empty.txt", "");
  RunResult r = Scan({"--json", binary, pdf, empty, tmp_.Sub("missing.txt"),
                      SamplePath("outbound/email-board-leak.txt")});
  EXPECT_EQ(r.exit, 2) << "an unscannable file makes the run an error";
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0]["verdict"], "error");
  EXPECT_THAT(std::string(lines[0]["error"]),
              HasSubstr("binary data (data): unsupported format"));
  EXPECT_EQ(lines[1]["verdict"], "error");
  EXPECT_THAT(std::string(lines[1]["error"]),
              HasSubstr("malformed or truncated PDF"));
  EXPECT_EQ(lines[2]["verdict"], "clean");
  EXPECT_EQ(lines[2]["words"], 0);
  EXPECT_EQ(lines[3]["verdict"], "error");
  EXPECT_EQ(lines[3]["error"], "No such file or directory");
  EXPECT_EQ(lines[4]["verdict"], "leak") << "later files are still scanned";
  RunResult clean_empty = Scan({empty});
  EXPECT_EQ(clean_empty.exit, 0);
}

TEST_F(ScanCommandTest,
       UnreadableFilesInADirectoryAreListedNamedOnesAreErrors) {
  const std::string dir = tmp_.Sub("share");
  std::filesystem::create_directories(dir);
  const std::string binary = dir + "/tool.bin";
  std::ofstream(binary, std::ios::binary)
      << std::string("LHB\x00\x01\x02\x03", 7) + std::string(300, '\x01');
  std::filesystem::copy_file(SamplePath("outbound/email-board-leak.txt"),
                             dir + "/board.txt");
  // A directory walk: the binary file is listed, the leak decides.
  RunResult walk = Scan({"--json", dir});
  EXPECT_EQ(walk.exit, 1) << walk.err;
  std::vector<Json> lines = JsonLines(walk.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["verdict"], "leak");
  EXPECT_EQ(lines[1]["path"], binary);
  EXPECT_EQ(lines[1]["verdict"], "clean");
  ASSERT_EQ(lines[1]["skipped"].size(), 1u);
  EXPECT_EQ(lines[1]["skipped"][0]["part"], "");
  EXPECT_EQ(lines[1]["skipped"][0]["class"], "unsupported");
  // Named on the command line, it is an error unless skipping is asked.
  RunResult named = Scan({"--json", binary});
  EXPECT_EQ(named.exit, 2);
  EXPECT_EQ(JsonLines(named.out)[0]["verdict"], "error");
  RunResult skip = Scan({"--on-unreadable", "skip", binary});
  EXPECT_EQ(skip.exit, 0) << skip.err;
  EXPECT_THAT(skip.out, HasSubstr("skipped " + binary + " (unsupported)"));
  RunResult strict = Scan({"--on-unreadable", "error", dir});
  EXPECT_EQ(strict.exit, 2);
  RunResult bad = Scan({"--on-unreadable", "maybe", dir});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("--on-unreadable wants skip or error"));
}

// A 1 x 1 PNG (the signature, IHDR, IDAT and IEND chunks).
std::string PngOfOnePixel() {
  static const unsigned char kPng[] = {
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
      0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
      0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
      0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
      0x02, 0x00, 0x01, 0x54, 0xa2, 0x4f, 0x5d, 0x00, 0x00, 0x00, 0x00, 0x49,
      0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  return std::string(reinterpret_cast<const char*>(kPng), sizeof kPng);
}

TEST_F(ScanCommandTest, AnImageWithOcrOffIsListedAsNoText) {
  RunResult no_ocr = Scan({"--json", "--ocr", "off", "--on-unreadable", "skip",
                           Write("shot.png", PngOfOnePixel())});
  EXPECT_EQ(no_ocr.exit, 0) << no_ocr.err;
  EXPECT_EQ(JsonLines(no_ocr.out)[0]["skipped"][0]["class"], "no-text");
  RunResult bad = Scan({"--ocr", "maybe", SamplePath("outbound")});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err, HasSubstr("--ocr wants on or off"));
}

TEST_F(ScanCommandTest, InvalidUtf8StillFindsTheLeakAndWarns) {
  std::string text = SlurpFile(SamplePath("outbound/email-board-leak.txt"));
  text.insert(text.find("Valuation") + 30, "\xC3\x28");  // ill-formed
  text.insert(
      0, "caf\xC3\xA9 na\xC3\xAFve r\xC3\xA9sum\xC3\xA9 d\xC3\xA9j\xC3\xA0 ");
  const std::string path = Write("broken.txt", text);
  RunResult r = Scan({"--json", path});
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_EQ(JsonLines(r.out)[0]["matches"][0]["doc_id"],
            "protected/merger-memo.txt");
  EXPECT_THAT(r.err, HasSubstr(path + ": 1 ill-formed UTF-8 sequences"));
}

TEST_F(ScanCommandTest, LegacyEncodedTextIsDecodedBeforeScanning) {
  // A Latin-1 file (not valid UTF-8) quoting the pricing guidance.
  const std::string path = Write(
      "latin1.txt",
      "R\xE9sum\xE9 des n\xE9gociations, tr\xE8s confidentiel.\n"
      "STRATEGIC ACCOUNTS. For the twelve accounts on the strategic list, "
      "including Northwind Logistics, Harbor Health Partners and the State "
      "Transit Authority, we will hold 2026 prices for one more year\n");
  RunResult r = Scan({"--json", path});
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_EQ(JsonLines(r.out)[0]["matches"][0]["doc_id"],
            "protected/pricing-2027.txt");
  EXPECT_THAT(r.err, Not(HasSubstr("ill-formed")));  // decoded, not repaired
}

TEST_F(ScanCommandTest, FileOverTheSizeLimitIsAnErrorNotAHang) {
  const std::string big = tmp_.Sub("big.txt");
  {
    std::ofstream(big) << "x";
    ASSERT_EQ(::truncate(big.c_str(), 200LL << 20), 0);  // 200 MB, sparse
  }
  RunResult r = Scan({"--json", big});
  EXPECT_EQ(r.exit, 2);
  EXPECT_EQ(JsonLines(r.out)[0]["error"],
            "larger than the limit of 67108864 bytes (--max-file-size)");
  RunResult raised = Scan({"--json", "--max-file-size", "300000000", big});
  EXPECT_EQ(raised.exit, 2);
  EXPECT_THAT(std::string(JsonLines(raised.out)[0]["error"]),
              HasSubstr("binary data"));  // 200 MB of NUL bytes
}

TEST_F(ScanCommandTest, UnreadableFileIsReportedAndOthersScanned) {
  const std::string secret = Write("secret.txt", "some words here and more");
  ASSERT_EQ(::chmod(secret.c_str(), 0), 0);
  RunOptions as;
  if (::geteuid() == 0) {
    // Root reads anything: run as nobody, with the index handed over.
    std::filesystem::path root = tmp_.path();
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      ASSERT_EQ(::chown(e.path().c_str(), 65534, 65534), 0);
    }
    ASSERT_EQ(::chown(root.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chown(secret.c_str(), 0, 0), 0);
    as.uid = 65534;
  }
  RunResult r = Scan({"--json", secret,
                      SamplePath("outbound/wechat-zh-leak.txt")}, as);
  EXPECT_EQ(r.exit, 2) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.err;
  EXPECT_EQ(lines[0]["error"], "Permission denied");
  EXPECT_EQ(lines[1]["verdict"], "leak");
}

// `scan --summary` ends with totals per protected document, where leaks
// were found and what was left unread; one last line with --json.
TEST_F(ScanCommandTest, SummaryTotalsLeaksByDocumentPartAndUnreadClass) {
  std::string data;
  for (int i = 0; i < 300; ++i) data += std::string("LHB\0\1\2\3", 7);
  const std::string blob = Write("blob.bin", data);  // no format known
  const std::string outbound = SamplePath("outbound");
  RunResult r =
      Scan({"--json", "--summary", "--on-unreadable", "skip", outbound, blob});
  EXPECT_EQ(r.exit, 1) << r.err;
  const std::vector<Json> lines = JsonLines(r.out);
  ASSERT_FALSE(lines.empty());
  const Json& summary = lines.back().at("summary");
  uint64_t files_leaked = 0, leaking_parts = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i]["verdict"] != "leak") continue;
    ++files_leaked;
    std::set<std::string> parts;
    for (const Json& m : lines[i]["matches"]) parts.insert(m["part"]);
    leaking_parts += parts.size();
  }
  EXPECT_GT(files_leaked, 2u);
  EXPECT_EQ(summary["leaking_parts"]["text"].get<uint64_t>() +
                summary["leaking_parts"]["members"].get<uint64_t>(),
            leaking_parts);
  EXPECT_GT(summary["leaking_parts"]["members"].get<uint64_t>(), 0u);
  EXPECT_EQ(summary["unread_parts"]["unsupported"], 1);
  // The contract leaks in two files: first, as the most files.
  EXPECT_EQ(summary["documents"][0]["doc_id"],
            "protected/supplier-contract-zh.txt");
  EXPECT_EQ(summary["documents"][0]["files"], 2);
  RunResult human = Scan({"--summary", outbound});
  EXPECT_THAT(human.out, HasSubstr("Leaked documents ("));
  EXPECT_THAT(human.out,
              HasSubstr("protected/supplier-contract-zh.txt  2 files"));
  EXPECT_THAT(Scan({outbound}).out, Not(HasSubstr("Leaked documents")));
}

// Rows of a protected table are reported in record terms: per table, how
// many rows of which columns, the first rows with masked values and how
// many more; the summary counts tables beside documents.
TEST_F(ScanCommandTest, RecordsAreReportedInRecordTermsCappedAndSummed) {
  const std::string schema =
      Write("customers.toml",
            "table = \"customers\"\nmin_matches = 1\n[[column]]\nname = "
            "\"email\"\ntype = \"email\"\nprimary = true\n[[column]]\n"
            "name = \"name\"\ntype = \"name\"\n");
  std::string csv = "email,name\n", quoted;
  const char* kNames[] = {"Ann Lee",   "Bob Ray",  "Cy Twombly", "Di Prima",
                          "Ed Ruscha", "Flo Kemp", "Gus Dahl"};
  for (int i = 0; i < 7; ++i) {
    const std::string row =
        absl::StrCat("client", i, "@example.org,", kNames[i], "\n");
    csv += row;
    absl::StrAppend(&quoted, "Contact ", kNames[i], " at client", i,
                    "@example.org today.\n");
  }
  ASSERT_EQ(RunLeakhound({"records", "add", "--index", index_, "--schema",
                          schema, Write("customers.csv", csv)})
                .exit,
            0);
  const std::string out = Write("list.txt", quoted);
  RunResult r = Scan({"--summary", out});
  EXPECT_EQ(r.exit, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("records: 7 rows of table customers in this "
                               "file (columns email, name)"));
  EXPECT_THAT(r.out, HasSubstr("(4 more rows)"));
  EXPECT_THAT(r.out, Not(HasSubstr("client0@example.org")));  // masked
  EXPECT_THAT(r.out, Not(HasSubstr("% of the document")));
  EXPECT_THAT(r.out, HasSubstr("Protected tables matched (1):\n  customers  "
                               "7 rows in 1 file"));
  RunResult json = Scan({"--json", "--summary", out});
  const Json summary = JsonLines(json.out).back().at("summary");
  EXPECT_EQ(summary["tables"][0]["table"], "customers");
  EXPECT_EQ(summary["tables"][0]["rows"], 7);
}

// `scan --record` takes the file's SHA-256 and headers from the bytes it
// extracted: standard input, which cannot be read twice, gets them too.
TEST_F(ScanCommandTest, RecordingStandardInputKeepsTheHashOfTheBytesRead) {
  RunOptions piped;
  piped.stdin_text =
      "From: eve@corp.test\r\nTo: bob@example.test\r\nSubject: pack\r\n\r\n" +
      SlurpFile(SamplePath("outbound/email-board-leak.txt"));
  const std::string store = tmp_.Sub("incidents.db");
  RunResult r = Scan({"--record", "--incidents", store, "-"}, piped);
  EXPECT_EQ(r.exit, 1) << r.err;
  RunResult listed =
      RunLeakhound({"incidents", "list", "--json", "--incidents", store});
  ASSERT_EQ(listed.exit, 0) << listed.err;
  const Json incident = JsonLines(listed.out).at(0);
  std::string hex;
  for (const char c : ContentDigest(piped.stdin_text)) {
    hex += absl::StrFormat("%02x", static_cast<unsigned char>(c));
  }
  EXPECT_EQ(incident["sha256"], hex);
  EXPECT_EQ(incident["sender"], "eve@corp.test");
}

// `scan --record` of a mail records its sender, recipients, subject and
// Message-ID from its headers (encoded words decoded), as the milter
// records the SMTP envelope.
TEST_F(ScanCommandTest, RecordingAMailKeepsItsHeaders) {
  const std::string mail = Write(
      "board.eml",
      "From: \"Eve Example\" <eve@corp.test>\r\n"
      "To: bob@example.test, Carol <carol@example.test>\r\n"
      "Cc: dan@example.test\r\n"
      "Subject: =?UTF-8?Q?Q3_board_pack_=E2=80=93_draft?=\r\n"
      "Message-ID: <pack-1@corp.test>\r\n\r\n" +
          SlurpFile(SamplePath("outbound/email-board-leak.txt")));
  const std::string store = tmp_.Sub("incidents.db");
  RunResult r = Scan({"--record", "--incidents", store, mail});
  EXPECT_EQ(r.exit, 1) << r.err;
  RunResult listed =
      RunLeakhound({"incidents", "list", "--json", "--incidents", store});
  ASSERT_EQ(listed.exit, 0) << listed.err;
  const Json incident = JsonLines(listed.out).at(0);
  EXPECT_EQ(incident["sender"], "eve@corp.test");
  EXPECT_EQ(incident["recipients"],
            Json::array({"bob@example.test", "carol@example.test",
                         "dan@example.test"}));
  EXPECT_EQ(incident["subject"], "Q3 board pack \u2013 draft");
  // Incidents are found by any one recipient, in any case.
  auto count = [&](const std::string& recipient) {
    return JsonLines(RunLeakhound({"incidents", "list", "--json", "--recipient",
                                   recipient, "--incidents", store})
                         .out)
        .size();
  };
  EXPECT_EQ(count("CAROL@example.test"), 1u);
  EXPECT_EQ(count("carol@example"), 0u);
  // The list's columns stay aligned whatever the length of a path: the
  // documents start where their heading does.
  RunResult human = RunLeakhound({"incidents", "list", "--incidents", store});
  std::istringstream lines(human.out);
  std::string heading, row;
  std::getline(lines, heading);
  std::getline(lines, row);
  EXPECT_EQ(row.find("protected/merger-memo.txt"), heading.find("DOCUMENTS"))
      << human.out;
}

// A file name cannot forge output: its newline and escape sequences are
// shown escaped, in the verdict lines and in error lines alike.
TEST_F(ScanCommandTest, ControlCharactersInFileNamesAreShownEscaped) {
  const std::string leak = Write(
      "x\nclean  fine.txt\x1b[2J.txt",
      SlurpFile(SamplePath("outbound/email-board-leak.txt")));
  const std::string missing = tmp_.Sub("gone\rclean.txt");
  RunResult r = Scan({"--color", "never", leak, missing});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.out, HasSubstr("LEAK   " + tmp_.path() +
                               "/x\\x0aclean  fine.txt\\x1b[2J.txt"));
  EXPECT_THAT(r.out, Not(HasSubstr("\nclean  fine.txt")));
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_THAT(r.out,
              HasSubstr("ERROR  " + tmp_.path() + "/gone\\x0dclean.txt: "));
}

// What a new admin met (issue 49): a file without words is clean "with no
// text to scan", an empty folder is named on standard error, and the
// summary speaks plainly unless -v asks for the engine's counts.
TEST_F(ScanCommandTest, NoTextAndEmptyFoldersAreSaidAndTheSummaryIsPlain) {
  const std::string blank = Write("blank.txt", "  \n\n  \n");
  std::filesystem::create_directories(tmp_.Sub("empty"));
  RunResult r = Scan({"--color", "never", blank, tmp_.Sub("empty")});
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("clean  " + blank + "  (no text to scan)\n"));
  EXPECT_EQ(r.err, "leakhound scan: " + tmp_.Sub("empty") +
                       ": no files in it to scan\n");
  EXPECT_THAT(r.out,
              HasSubstr("1 file scanned: 0 leaked, 1 clean, 0 errors\n"));
  RunResult verbose = Scan({"-v", SamplePath("outbound")});
  EXPECT_THAT(verbose.out, HasSubstr(" dropped by verification; "));
  EXPECT_THAT(Scan({SamplePath("outbound")}).out,
              Not(HasSubstr("dropped by verification")));
  // Every command that takes an index says -d in its help.
  for (const char* command : {"scan", "add", "list", "remove", "rekey"}) {
    EXPECT_THAT(RunLeakhound({command, "--help"}).out,
                HasSubstr("-d, --index DIR"))
        << command;
  }
  RunResult version = RunLeakhound({"version", "--help"});
  EXPECT_EQ(version.exit, 0);
  EXPECT_THAT(version.out, HasSubstr("usage: leakhound version"));
}

TEST_F(ScanCommandTest, UsageErrorsExit2WithOneLineAndWhereHelpIs) {
  RunResult unknown = Scan({"--bogus", "x"});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_EQ(unknown.err,
            "leakhound scan: unknown option --bogus\n"
            "Try 'leakhound scan --help' for the options.\n");
  EXPECT_THAT(Scan({"-z", "x"}).err, HasSubstr("unknown option -z\n"));
  EXPECT_THAT(Scan({"--json=yes", "x"}).err,
              HasSubstr("option --json takes no value\n"));
  EXPECT_THAT(Scan({"x", "--threads"}).err,
              HasSubstr("option --threads needs a value\n"));
  EXPECT_THAT(Scan({"x", "-j"}).err, HasSubstr("option -j needs a value\n"));
  EXPECT_THAT(Scan({"--color", "sometimes", "x"}).err,
              HasSubstr("--color wants auto, always or never"));
  RunResult help = Scan({"-h"});
  EXPECT_EQ(help.exit, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: leakhound scan"));
  EXPECT_THAT(help.out,
              HasSubstr("--max-file-size N    bytes of the file, and of any "
                        "member unpacked (default " +
                        std::to_string(ExtractionLimits{}.max_input_bytes) +
                        ")"));
}

TEST_F(ScanCommandTest, PipedTextIsScannedWhenNoPathIsGiven) {
  RunOptions piped;
  piped.stdin_text = SlurpFile(SamplePath("outbound/email-board-leak.txt"));
  RunResult r = Scan({"--json"}, piped);
  EXPECT_EQ(r.exit, 1) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["path"], "-");
  EXPECT_EQ(lines[0]["verdict"], "leak");
}

TEST_F(ScanCommandTest, ShortOptionsQuietAndLeaksOnlyFollowClamscanAndRipgrep) {
  const std::string outbound = SamplePath("outbound");
  RunResult quiet =
      RunLeakhound({"scan", "-q", "-d", index_, "-j", "2", outbound});
  EXPECT_EQ(quiet.exit, 1);
  EXPECT_EQ(quiet.out, "");
  RunResult leaks =
      RunLeakhound({"scan", "-i", "-r", "--index", index_, "--json", outbound});
  EXPECT_EQ(leaks.exit, 1);
  std::vector<Json> lines = JsonLines(leaks.out);
  EXPECT_EQ(lines.size(), 5u);  // of 7 files, 2 clean
  for (const Json& l : lines) EXPECT_EQ(l["verdict"], "leak");
  EXPECT_THAT(leaks.err,
              HasSubstr("7 files scanned: 5 leaked, 2 clean, 0 errors"));
}

TEST_F(ScanCommandTest, ColorIsForTerminalsUnlessAskedFor) {
  const std::string leak = SamplePath("outbound/email-board-leak.txt");
  EXPECT_THAT(Scan({"--color", "always", leak}).out, HasSubstr("\033["));
  EXPECT_THAT(Scan({"--color", "never", leak}).out, Not(HasSubstr("\033[")));
  RunOptions no_color;
  no_color.env = {{"NO_COLOR", "1"}};
  EXPECT_THAT(Scan({leak}, no_color).out, Not(HasSubstr("\033[")));
}

TEST_F(ScanCommandTest, SkippedSymlinksAreCountedAndCountsArePlural) {
  const std::string dir = tmp_.Sub("links");
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(SamplePath("outbound/email-board-leak.txt").c_str(),
                      (dir + "/leak.txt").c_str()), 0);
  RunResult r = Scan({dir});
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 files scanned"));
  EXPECT_THAT(r.out,
              HasSubstr("1 symlink skipped (--follow-symlinks follows them)"));
  RunResult one = Scan({SamplePath("outbound/email-board-leak.txt")});
  EXPECT_THAT(one.out,
              HasSubstr("1 file scanned: 1 leaked, 0 clean, 0 errors"));
}

// A real mail with the leak inside a .docx attachment and a zip holding it
// (built by corpus/make_formats.py): the match names the part, in JSON and
// in the human report; a protected .docx is read by add.
TEST_F(ScanCommandTest, LeakInsideAnAttachmentNamesItsPart) {
  const std::string mail = tmp_.Sub("mail.eml"), zip = tmp_.Sub("bundle.zip");
  const std::string leak = SamplePath("outbound/obfuscated-pricing-leak.txt");
  const std::string make = std::string("/usr/bin/python3 ") +
                           test_paths::kSourceDir + "/corpus/make_formats.py ";
  ASSERT_EQ(std::system((make + "eml-docx " + leak + " " + mail).c_str()), 0);
  ASSERT_EQ(std::system((make + "zip " + leak + " " + zip).c_str()), 0);
  RunResult r = Scan({"--json", mail, zip});
  ASSERT_EQ(r.exit, 1) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["path"], mail);
  EXPECT_EQ(lines[0]["verdict"], "leak");
  EXPECT_EQ(lines[0]["matches"][0]["doc_id"], "protected/pricing-2027.txt");
  EXPECT_EQ(lines[0]["matches"][0]["part"], "report.docx");
  EXPECT_EQ(lines[0]["matches"][0]["passages"][0]["part"], "report.docx");
  EXPECT_EQ(lines[1]["matches"][0]["part"], "docs/notes.txt");
  RunResult human = Scan({mail});
  EXPECT_THAT(human.out, HasSubstr("of " + mail + "!/report.docx\n"));

  // The same .docx protected, then its text found in plain text.
  const std::string docx = tmp_.Sub("memo.docx");
  const std::string memo = SamplePath("protected/merger-memo.txt");
  ASSERT_EQ(std::system((make + "docx " + memo + " " + docx).c_str()), 0);
  const std::string fresh = tmp_.Sub("fresh-index");
  ASSERT_EQ(RunLeakhound({"init", "--index", fresh}).exit, 0);
  RunResult add = RunLeakhound({"add", "--index", fresh, docx});
  ASSERT_EQ(add.exit, 0) << add.err;
  RunResult found = RunLeakhound(
      {"scan", "--index", fresh, SamplePath("outbound/email-board-leak.txt")});
  EXPECT_EQ(found.exit, 1) << found.out << found.err;
  EXPECT_THAT(found.out, HasSubstr(docx + ": "));
}

TEST_F(ScanCommandTest, ProtectedLocationsAreTheirOwnKindOfFinding) {
  RunResult add = RunLeakhound({"locations", "add", "--index", index_,
                                "https://wiki.corp.example/finance/",
                                R"(\\fs01\hr)"});
  ASSERT_EQ(add.exit, 0) << add.err;
  const std::string text =
      "Numbers: https://wiki.corp.example/Finance/q3.xlsx (draft).\n"
      "Old copy on \\\\FS01\\HR\\pay\\2027.xlsx\n";
  const std::string plain = Write("note.txt", text);
  const std::string clean =
      Write("clean.txt",
            "See https://wiki.corp.example/finance-public "
            "and \\\\fs01\\hrx\\a.txt\n");
  RunResult r = Scan({"--json", plain, clean});
  ASSERT_EQ(r.exit, 1) << r.err;
  std::vector<Json> lines = JsonLines(r.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["verdict"], "leak");
  ASSERT_EQ(lines[0]["matches"].size(), 2u);
  const Json& first = lines[0]["matches"][0];
  EXPECT_EQ(first["kind"], "location");
  EXPECT_EQ(first["prefix"], "//wiki.corp.example/finance");
  EXPECT_EQ(first["location"], "//wiki.corp.example/finance/q3.xlsx");
  EXPECT_EQ(
      text.substr(first["start"].get<size_t>(),
                  first["end"].get<size_t>() - first["start"].get<size_t>()),
      "https://wiki.corp.example/Finance/q3.xlsx");
  EXPECT_EQ(lines[0]["matches"][1]["prefix"], "//fs01/hr");
  EXPECT_EQ(lines[1]["verdict"], "clean");

  // Inside a mail's attachment, alongside a document leak.
  const std::string mail = tmp_.Sub("mail.eml");
  const std::string make = std::string("/usr/bin/python3 ") +
                           test_paths::kSourceDir + "/corpus/make_formats.py ";
  ASSERT_EQ(std::system((make + "eml-docx " + plain + " " + mail).c_str()), 0);
  RunResult m = Scan({"--json", mail});
  ASSERT_EQ(m.exit, 1) << m.err;
  const std::vector<Json> mail_lines = JsonLines(m.out);
  const Json& in_mail = mail_lines[0]["matches"][0];
  EXPECT_EQ(in_mail["kind"], "location");
  EXPECT_EQ(in_mail["part"], "report.docx");
  RunResult human = Scan({plain});
  EXPECT_THAT(human.out, HasSubstr("(2 protected locations)"));
  EXPECT_THAT(human.out,
              HasSubstr("location under //fs01/hr: line 2 of this file: "
                        "\"\\\\FS01\\HR\\pay\\2027.xlsx\""));
  // Behind a link's text in an HTML mail.
  const std::string html_mail = Write(
      "link.eml",
      "From: a@example.com\r\nTo: b@example.org\r\nSubject: plan\r\n"
      "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
      "<p>Here is <a href=\"https://wiki.corp.example/finance/q3\">the "
      "plan</a>.</p>\r\n");
  RunResult linked = Scan({"--json", html_mail});
  EXPECT_EQ(linked.exit, 1) << linked.out << linked.err;
  const std::vector<Json> link_lines = JsonLines(linked.out);
  ASSERT_EQ(link_lines.size(), 1u);
  ASSERT_FALSE(link_lines[0]["matches"].empty());
  EXPECT_EQ(link_lines[0]["matches"][0]["location"],
            "//wiki.corp.example/finance/q3");
  // Behind a hyperlink's text in a .docx (an external relationship).
  const std::string docx = tmp_.Sub("linked.docx");
  const std::string script = Write(
      "make_linked_docx.py",
      "import sys, docx, docx.opc.constants as C\n"
      "from docx.oxml.shared import OxmlElement, qn\n"
      "d = docx.Document()\n"
      "p = d.add_paragraph('The numbers are in ')\n"
      "r = d.part.relate_to('https://wiki.corp.example/finance/q3/numbers',\n"
      "                     C.RELATIONSHIP_TYPE.HYPERLINK, is_external=True)\n"
      "h = OxmlElement('w:hyperlink'); h.set(qn('r:id'), r)\n"
      "run = OxmlElement('w:r'); t = OxmlElement('w:t'); t.text = 'the wiki'\n"
      "run.append(t); h.append(run); p._p.append(h)\n"
      "d.save(sys.argv[1])\n");
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script + " " + docx).c_str()),
            0);
  RunResult office = Scan({"--json", docx});
  EXPECT_EQ(office.exit, 1) << office.out << office.err;
  const std::vector<Json> office_lines = JsonLines(office.out);
  ASSERT_EQ(office_lines.size(), 1u);
  ASSERT_FALSE(office_lines[0]["matches"].empty());
  EXPECT_EQ(office_lines[0]["matches"][0]["location"],
            "//wiki.corp.example/finance/q3/numbers");
  // Document matches say their kind too.
  RunResult doc = Scan({"--json", SamplePath("outbound/email-board-leak.txt")});
  EXPECT_EQ(JsonLines(doc.out)[0]["matches"][0]["kind"], "document");
}

}  // namespace
}  // namespace leakhound
