// `leakhound policy check` on the real binary: one case per mistake class,
// each reported as FILE:LINE, and the exit codes.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

class PolicyCheckTest : public ::testing::Test {
 protected:
  RunResult Check(const std::string& text, bool with_index = false) {
    const std::string path = dir_.Sub("p.toml");
    std::ofstream(path, std::ios::trunc) << text;
    if (with_index) {
      const std::string index = dir_.Sub("index");
      RunLeakhound({"init", "--index", index});
      const std::string doc = dir_.Sub("memo.txt");
      std::ofstream(doc) << "The board approved the merger with the northern "
                            "supplier on the third of March.\n";
      RunLeakhound({"add", "--index", index, "--label", "confidential", doc});
      const std::string schema = dir_.Sub("customers.toml");
      std::ofstream(schema) << "table = \"customers\"\nmin_matches = 1\n"
                               "[[column]]\nname = \"email\"\ntype = "
                               "\"email\"\nprimary = true\n[[column]]\n"
                               "name = \"name\"\ntype = \"name\"\n";
      const std::string csv = dir_.Sub("customers.csv");
      std::ofstream(csv) << "email,name\nann@x.example,Ann Lee\n";
      RunLeakhound({"records", "add", "--index", index, "--schema", schema, csv});
      return RunLeakhound({"policy", "check", "--index", index, path});
    }
    return RunLeakhound({"policy", "check", path});
  }
  TempDir dir_;
};

constexpr char kRule[] = "[[rule]]\nname = \"a\"\n";

TEST_F(PolicyCheckTest, EveryMistakeClassIsReportedWithItsFileAndLine) {
  const struct {
    std::string text;
    const char* expected;
  } kCases[] = {
      {"internal_domains = [\"x\"\n", "p.toml:"},  // syntax
      {std::string(kRule) + "acton = \"reject\"\n",
       "p.toml:3: unknown key 'acton'"},
      {std::string(kRule) + "severity = 3\n",
       "p.toml:3: 'severity' must be a string"},
      {std::string(kRule) + "action = \"bounce\"\n",
       "p.toml:3: unknown action 'bounce'"},
      {std::string(kRule) + "severity = \"urgent\"\n",
       "p.toml:3: unknown severity 'urgent'"},
      {std::string(kRule) + "mode = \"dry\"\n", "p.toml:3: unknown mode 'dry'"},
      {std::string(kRule) + "[rule.when]\nsenders = [\"bob\"]\n",
       "p.toml:4: malformed address pattern 'bob'"},
      {std::string(kRule) + "[rule.when]\nsenders = [\"group:x\"]\n",
       "p.toml:4: unknown group 'x'"},
      {std::string(kRule) + "[rule.when]\nchannels = [\"fax\"]\n",
       "p.toml:4: unknown channel 'fax'"},
      {"[[rule]]\naction = \"log\"\n", "p.toml:1: a rule needs a name"},
      {std::string(kRule) + "action = \"redirect\"\n", "need a 'reviewer'"},
      {std::string(kRule) + "[rule.when]\nchannels = [\"scan\"]\n"
                            "external_recipient = true\n",
       "p.toml:1: rule 'a' can never match: a scan has no recipients"},
      {std::string(kRule) + "[[rule.unless]]\n",
       "p.toml:1: rule 'a' can never match: an exception without conditions"},
      {"[[identifier]]\nname = \"x\"\nvalidator = \"crc\"\n",
       "p.toml:1: identifier 'x': unknown validator 'crc'"},
      {"[[identifier]]\nname = \"x\"\npattern = \"(open\"\n",
       "p.toml: identifiers: pattern '(open' does not compile"},
      {std::string(kRule) + "[rule.when]\nidentifiers = { passport = 1 }\n",
       "p.toml:1: identifiers: no identifier 'passport'"},
  };
  for (const auto& c : kCases) {
    const RunResult r = Check(c.text);
    EXPECT_EQ(r.exit, 1) << c.text;
    EXPECT_THAT(r.out, HasSubstr(c.expected)) << c.text;
  }
}

TEST_F(PolicyCheckTest, EveryMistakeOfAFileIsReportedNotOnlyTheFirst) {
  const RunResult r =
      Check(std::string(kRule) + "acton = \"reject\"\nseverity = \"urgent\"\n");
  EXPECT_EQ(r.exit, 1);
  EXPECT_THAT(r.out, HasSubstr("p.toml:3: unknown key 'acton'"));
  EXPECT_THAT(r.out, HasSubstr("p.toml:4: unknown severity 'urgent'"));
}

// Issue 65: a file with 12 different mistakes prints 12 lines, in line
// order, each at the line of the bad key; the can-never-match checks run
// past the other errors.
TEST_F(PolicyCheckTest, TwelveMistakesGiveTwelveLinesSortedByLine) {
  std::ofstream(dir_.Sub("team.txt"))
      << "# the team\nann@corp.example\nbob@@corp.example\n";
  const std::string policy = R"(internal_domains = ["corp.example", "counsel..example"]
[groups]
legal = ["ann@corp.example", "group:board"]
board = ["@-bad-.example"]
team = { file = "team.txt" }

[[rule]]
name = "secret out"
when = { labels_any = ["confidential"], recipient_domains = ["http://x.example"] }
action = "reject"

[[rule]]
name = "secret out"
when = { tables = ["customer"] }
action = "reject"

[[rule]]
name = "scan mail"
when = { channels = ["scan"], external_recipient = true }
action = "quarantine"
mode = "sometimes"

[[rule]]
name = "unless all"
when = { min_words = 10 }
unless = [ {} ]
action = "log"

[[destination]]
name = "siem"
type = "syslog"
url = "http://siem.example"
format = "CEF"

[outbox]
max_events = 0
)";
  const RunResult r = Check(policy, /*with_index=*/true);
  EXPECT_EQ(r.exit, 1) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const char* kExpected[] = {
      "p.toml:1: 'internal_domains': 'counsel..example' is not a domain: an "
      "empty label",
      "p.toml:3: group 'legal' holds group:board: a group cannot hold a group",
      "p.toml:4: malformed address pattern '@-bad-.example'",
      "team.txt:3: malformed address pattern 'bob@@corp.example'",
      "p.toml:9: 'recipient_domains': 'http://x.example' is not a domain: a "
      "domain, not a URL",
      "p.toml:12: rule 'secret out' can never match: no protected table "
      "'customer' (the index has: customers)",
      "p.toml:13: a second rule named 'secret out' (the first is at line 7)",
      "p.toml:17: rule 'scan mail' can never match: a scan has no recipients",
      "p.toml:21: unknown mode 'sometimes'",
      "p.toml:23: rule 'unless all' can never match: an exception without "
      "conditions",
      "p.toml:32: destination 'siem': url must be udp://, tcp:// or tls://",
      "p.toml:36: 'max_events' is 0",
  };
  ASSERT_EQ(lines.size(), std::size(kExpected)) << r.out;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_THAT(lines[i], HasSubstr(kExpected[i])) << "line " << i;
  }
}

TEST_F(PolicyCheckTest, GroupsFromFilesAndUnlabelledRulesAreAccepted) {
  std::ofstream(dir_.Sub("legal.txt"))
      << "# counsel\nAnn@Corp.Example\n@counsel.example\n\n";
  const RunResult r = Check(R"(internal_domains = ["corp.example", "bücher.example"]
[groups]
legal = { file = "legal.txt" }
[[rule]]
name = "unlabelled out"
when = { unlabelled = true, external_recipient = true }
unless = [ { senders = ["group:legal"] } ]
action = "quarantine"
[[destination]]
name = "siem"
type = "syslog"
url = "udp://127.0.0.1:514"
format = "LEEF"
)");
  EXPECT_EQ(r.exit, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("p.toml: 1 rule, no mistakes"));
}

TEST_F(PolicyCheckTest, AnUnknownLabelIsOnlyAWarning) {
  const RunResult r = Check(
      std::string(kRule) + "[rule.when]\nlabels_any = [\"confidental\"]\n",
      /*with_index=*/true);
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("p.toml:1: rule 'a': warning: no protected "
                               "document has the label 'confidental'"));
  const RunResult known = Check(
      std::string(kRule) + "[rule.when]\nlabels_any = [\"confidential\"]\n",
      /*with_index=*/true);
  EXPECT_EQ(known.exit, 0);
  EXPECT_THAT(known.out, HasSubstr("p.toml: 1 rule, no mistakes"));
}

TEST_F(PolicyCheckTest, ThePackagedExamplePolicyHasNoMistakes) {
  const RunResult r = RunLeakhound(
      {"policy", "check",
       std::string(test_paths::kSourceDir) + "/cli/dist/policy.toml"});
  EXPECT_EQ(r.exit, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("3 rules, no mistakes"));
}

// The hostile file that overflowed toml++'s stack: exit 2 and a sentence.
TEST_F(PolicyCheckTest, AFileOfFortyThousandDottedKeysIsExitTwoNotACrash) {
  std::string key = "a";
  for (int k = 1; k < 40000; ++k) key += ".a";
  const RunResult r = Check("[" + key + "]\n");
  EXPECT_EQ(r.exit, 2) << r.err.substr(0, 200);
  EXPECT_THAT(r.err, HasSubstr("p.toml:1: a key of more than 8 dotted parts"));
}

// A policy or group file another user can write (or owned by one) decides
// where passwords go: refused in one line, as is a directory in clear.
TEST_F(PolicyCheckTest, FilesOthersCanWriteAndPlaintextDirectoriesAreRefused) {
  const std::string path = dir_.Sub("p.toml");
  std::ofstream(path) << kRule;
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  RunResult r = RunLeakhound({"policy", "check", path});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("policy file " + path +
                               " can be written by other users (mode 0666); "
                               "refused: chmod go-w " + path));
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);

  const std::string group = dir_.Sub("team.txt");
  std::ofstream(group) << "a@corp.example\n";
  ASSERT_EQ(::chmod(group.c_str(), 0646), 0);
  r = Check(std::string("[groups]\nteam = { file = \"team.txt\" }\n") + kRule);
  EXPECT_EQ(r.exit, 1);
  EXPECT_THAT(r.out, HasSubstr("p.toml:2: group file " + group +
                               " can be written by other users (mode 0646)"));
  ASSERT_EQ(::chmod(group.c_str(), 0600), 0);
  // The folder holding it counts too: another user could swap the file.
  const std::string open_dir = dir_.Sub("open");
  std::filesystem::create_directory(open_dir);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  std::ofstream(open_dir + "/p.toml") << kRule;
  r = RunLeakhound({"policy", "check", open_dir + "/p.toml"});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("the folder holding policy file " + open_dir +
                               " can be written by other users (mode 0777)"));

  r = Check("[directory]\nurl = \"ldap://127.0.0.1:389\"\nstart_tls = false\n");
  EXPECT_EQ(r.exit, 1);
  EXPECT_THAT(r.out, HasSubstr("p.toml:3: start_tls = false sends passwords "
                               "in clear"));
  r = Check("[directory]\nurl = \"ldap://127.0.0.1:389\"\n"
            "insecure_plaintext = true\n");
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("warning: [directory] insecure_plaintext: "
                               "passwords cross the wire to "
                               "ldap://127.0.0.1:389 in clear"));
}

TEST_F(PolicyCheckTest, AMissingFileIsAnError) {
  const RunResult r = RunLeakhound({"policy", "check", dir_.Sub("none.toml")});
  EXPECT_EQ(r.exit, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot read"));
}

// docs/records.md's [[identifier]] example, as written there, is a policy
// that works: its iban_account counts an IBAN near "account", and a rule
// on it acts (it never counted before issue 67: the built-in iban's match
// hid it).
TEST(RecordsDocsTest, TheIdentifierExampleOfTheDocsCountsAndDecides) {
  std::ifstream docs(std::string(test_paths::kSourceDir) + "/docs/records.md");
  std::stringstream whole;
  whole << docs.rdbuf();
  const std::string text = whole.str();
  const size_t name = text.find("name = \"iban_account\"");
  ASSERT_NE(name, std::string::npos);
  const size_t begin = text.rfind("```toml\n", name) + 8;
  const size_t end = text.find("```", name);
  TempDir dir;
  const std::string policy = dir.Sub("p.toml");
  std::ofstream(policy) << text.substr(begin, end - begin)
                        << "\n[[rule]]\nname = \"accounts\"\naction = "
                           "\"reject\"\n[rule.when]\nidentifiers = { "
                           "iban_account = 1 }\n";
  const std::string mail = dir.Sub("pay.txt");
  std::ofstream(mail) << "Please pay to account DE89 3704 0044 0532 0130 00 "
                         "by Friday, ref EMP-123456.\n";
  const std::string index = dir.Sub("index");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  RunResult r = RunLeakhound(
      {"scan", "--index", index, "--policy", policy, "--json", mail});
  EXPECT_EQ(r.exit, 1) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(j["identifiers"]["iban_account"]["distinct"], 1) << r.out;
  EXPECT_EQ(j["identifiers"]["employee_id"]["distinct"], 1) << r.out;
  EXPECT_EQ(j["identifiers"]["iban"]["distinct"], 1) << r.out;
}

// scan --policy on the sample corpus: the memo is confidential, the
// incident report public; a file quoting three confidential documents
// steps up to high.
class ScanPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string sample =
        std::string(test_paths::kSourceDir) + "/corpus/sample/";
    ASSERT_EQ(RunLeakhound({"init", "--index", index_}).exit, 0);
    for (const char* f :
         {"merger-memo.txt", "pricing-2027.txt", "supplier-contract-zh.txt"}) {
      ASSERT_EQ(RunLeakhound({"add", "--index", index_, "--label",
                              "confidential", sample + "protected/" + f})
                    .exit,
                0);
    }
    ASSERT_EQ(RunLeakhound({"add", "--index", index_, "--label", "public",
                            sample + "protected/incident-report.txt"})
                  .exit,
              0);
    std::ofstream(policy_) << R"(
[[rule]]
name = "confidential"
action = "quarantine"
steps = [ { documents = 3, severity = "high" } ]
[rule.when]
labels_any = ["confidential"]
[[rule]]
name = "public"
mode = "monitor"
action = "tag"
severity = "info"
[rule.when]
labels_any = ["public"]
)";
    std::ofstream three(three_);
    for (const char* f : {"email-board-leak.txt", "obfuscated-pricing-leak.txt",
                          "wechat-zh-leak.txt"}) {
      three << SlurpFile(sample + "outbound/" + f) << "\n\n";
    }
    board_ = sample + "outbound/email-board-leak.txt";
    public_ = sample + "outbound/mail-docx-attachment-leak.eml";
  }
  TempDir dir_;
  const std::string index_ = dir_.Sub("index");
  const std::string policy_ = dir_.Sub("policy.toml");
  const std::string three_ = dir_.Sub("three.txt");
  std::string board_, public_;
};

TEST_F(ScanPolicyTest, JsonGainsSeverityRulesAndAction) {
  const RunResult r =
      RunLeakhound({"scan", "--index", index_, "--policy", policy_, "--json",
                    board_, three_, public_});
  EXPECT_EQ(r.exit, 1) << r.err;
  std::istringstream in(r.out);
  std::vector<nlohmann::json> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["severity"], "medium");
  EXPECT_EQ(lines[0]["action"], "quarantine");
  EXPECT_EQ(lines[0]["rules"][0]["rule"], "confidential");
  EXPECT_EQ(lines[1]["severity"], "high");
  EXPECT_EQ(lines[2]["severity"], "info");
  EXPECT_EQ(lines[2]["action"], "log");
  EXPECT_EQ(lines[2]["rules"][0]["monitor"], true);
}

TEST_F(ScanPolicyTest, ExitOneOnlyWhenAnEnforcingRuleReachesTheFailSeverity) {
  auto exit_of = [&](const std::string& file, const char* severity) {
    return RunLeakhound({"scan", "--index", index_, "--policy", policy_,
                         "--fail-severity", severity, "-q", file})
        .exit;
  };
  EXPECT_EQ(exit_of(board_, "medium"), 1);
  EXPECT_EQ(exit_of(board_, "high"), 0);
  EXPECT_EQ(exit_of(three_, "high"), 1);
  // The public quote matches only a monitor rule: it never fails a scan.
  EXPECT_EQ(exit_of(public_, "info"), 0);
  // Without --policy, any leak is exit 1 as before.
  EXPECT_EQ(RunLeakhound({"scan", "--index", index_, "-q", public_}).exit, 1);
  EXPECT_EQ(RunLeakhound(
                {"scan", "--index", index_, "--fail-severity", "low", board_})
                .exit,
            2);
}

TEST_F(ScanPolicyTest, ExplainSaysWhichRulesMatchWhyAndTheDecision) {
  const std::string mail = dir_.Sub("out.eml");
  std::ofstream(mail) << "From: Alex <alex@corp.test>\r\nTo: bob@example.test, "
                         "\"Ann\" <ann@corp.test>\r\nSubject: numbers\r\n\r\n"
                      << SlurpFile(three_);
  const RunResult r = RunLeakhound(
      {"policy", "explain", "--index", index_, "--policy", policy_, mail});
  EXPECT_EQ(r.exit, 1) << r.err;  // the decision is not log
  EXPECT_THAT(r.out, HasSubstr("channel mail, sender alex@corp.test, "
                               "recipients bob@example.test, ann@corp.test"));
  EXPECT_THAT(r.out, HasSubstr("labels confidential"));
  EXPECT_THAT(r.out, HasSubstr("rule 'confidential' (line 2, quarantine): yes"));
  EXPECT_THAT(r.out, HasSubstr("rule 'public' (line 8, monitor, would tag): no: "
                               "not enough matched documents"));
  EXPECT_THAT(r.out, HasSubstr("decision: quarantine by rule 'confidential', "
                               "severity high"));
  // The envelope as given overrides the headers.
  const RunResult scan = RunLeakhound(
      {"policy", "explain", "--index", index_, "--policy", policy_,
       "--channel", "scan", board_});
  EXPECT_THAT(scan.out, HasSubstr("channel scan, sender (none)"));
  EXPECT_THAT(scan.out, HasSubstr("severity medium"));
}

TEST_F(ScanPolicyTest, RecordedScanIncidentsKeepTheDecision) {
  const std::string store = dir_.Sub("incidents");
  ASSERT_EQ(RunLeakhound({"scan", "--index", index_, "--policy", policy_,
                          "--record", "--incidents", store, "-q", three_})
                .exit,
            1);
  const RunResult r = RunLeakhound(
      {"incidents", "export", "--format", "jsonl", "--incidents", store});
  ASSERT_EQ(r.exit, 0) << r.err;
  const nlohmann::json i = nlohmann::json::parse(r.out);
  EXPECT_EQ(i["severity"], "high");
  EXPECT_EQ(i["policy"], policy_);
  EXPECT_THAT(i["rules"].get<std::string>(), HasSubstr("confidential (high"));
  // The listing has them too ("rules":"" for every incident before).
  const RunResult listed =
      RunLeakhound({"incidents", "list", "--json", "--incidents", store});
  ASSERT_EQ(listed.exit, 0) << listed.err;
  const nlohmann::json l = nlohmann::json::parse(listed.out.substr(0, listed.out.find('\n')));
  EXPECT_THAT(l["rules"].get<std::string>(), HasSubstr("confidential (high"));
  // Which documents made the rule fire (three confidential ones).
  EXPECT_THAT(i["rules"].get<std::string>(),
              HasSubstr("protected/merger-memo.txt, "));
  EXPECT_THAT(i["rules"].get<std::string>(), HasSubstr("(high, quarantine) on "));
}

}  // namespace
}  // namespace leakhound
