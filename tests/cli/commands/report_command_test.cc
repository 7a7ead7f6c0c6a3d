// `leakhound report` on the real binary over a real SQLite store: the
// figures of the HTML and CSV against what was stored, the policy's
// filters, and --due mailing each [[report]] once per period.
#include "cli/commands/report_command.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "cli/incidents/incident_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Incident Made(const std::string& source, const std::string& severity,
              const std::string& sender, const std::string& rule,
              int64_t age_ms) {
  Incident i;
  i.time_ms = NowUnixMs() - age_ms;
  i.source = source;
  i.kind = "leak";
  i.action = source == "milter" ? "quarantine" : "reject";
  i.sender = sender;
  i.severity = severity;
  i.rules = {{rule, severity, i.action, false, {"memo"}}};
  IncidentMatch m;
  m.document = "memo";
  i.matches = {m};
  return i;
}

class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = IncidentStore::Open(store_);
    ASSERT_TRUE(s.ok()) << s.status();
    std::vector<Incident> batch = {
        Made("milter", "high", "sam@corp.test", "outside", 3'600'000),
        Made("milter", "high", "sam@corp.test", "outside", 7'200'000),
        Made("web", "medium", "alice", "<b>uploads</b>", 3'600'000),
        Made("milter", "low", "=cmd|evil@corp.test", "outside", 3'600'000),
        // Outside the period of a day: not counted.
        Made("milter", "high", "old@corp.test", "outside", 3 * 86'400'000LL)};
    batch[0].override_offer.kind = "justify";
    batch[0].override_offer.rule = "outside";
    batch[0].override_offer.until_ms = NowUnixMs() + 3'600'000;
    ASSERT_TRUE((*s)->Insert(batch).ok());
    IncidentOverride use;
    use.used_by = "sam@corp.test (directory login sam)";
    use.text = "NDA signed, <deal room>";
    use.address = "192.0.2.1";
    use.time_ms = NowUnixMs();
    ASSERT_TRUE((*s)->UseOverride(batch[0].id, use).ok());
    ASSERT_TRUE((*s)->Resolve(batch[1].id, "confirmed", "", "ada").ok());
  }
  TempDir dir_;
  std::string store_ = dir_.Sub("incidents.db");
};

TEST_F(ReportCommandTest, TheFiguresAreTheStoresForThePeriod) {
  RunResult r =
      RunLeakhound({"report", "--period", "1d", "--to", dir_.Sub("r.html"),
                    "--csv", dir_.Sub("r.csv"), "--incidents", store_});
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("4 incidents"));
  const std::string csv = Slurp(dir_.Sub("r.csv"));
  for (const char* row :
       {"total,incidents,4\r\n", "severity,high,2\r\n", "severity,medium,1\r\n",
        "severity,low,1\r\n", "rule,outside,3\r\n", "rule,<b>uploads</b>,1\r\n",
        "channel,mail,3\r\n", "channel,web,1\r\n", "sender,sam@corp.test,2\r\n",
        "sender,'=cmd|evil@corp.test,1\r\n", "documents,memo,4\r\n",
        "review_time,resolved,1\r\n", "review_time,still_open,3\r\n"}) {
    EXPECT_THAT(csv, HasSubstr(row)) << row;
  }
  EXPECT_THAT(csv, HasSubstr("sam@corp.test (directory login sam),"
                             "\"NDA signed, <deal room>\""));
  EXPECT_THAT(csv, Not(HasSubstr("old@corp.test")));
  const std::string html = Slurp(dir_.Sub("r.html"));
  EXPECT_THAT(html, HasSubstr("<b id=\"total\">4</b>"));
  EXPECT_THAT(html, HasSubstr("&lt;b&gt;uploads&lt;/b&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<b>uploads")));
  EXPECT_THAT(html, HasSubstr("NDA signed, &lt;deal room&gt;"));
  EXPECT_THAT(html, HasSubstr("1 resolved (median"));
}

TEST_F(ReportCommandTest, ANamedReportByHandTakesItsFiltersAndSections) {
  const std::string policy = dir_.Sub("policy.toml");
  std::ofstream(policy) << "[[report]]\nname = \"mail only\"\n"
                           "to = [\"ciso@corp.test\"]\nchannels = [\"mail\"]\n"
                           "sections = [\"severity\"]\n";
  RunResult r = RunLeakhound({"report", "--period", "1d", "--policy", policy,
                              "--name", "mail only", "--csv",
                              dir_.Sub("m.csv"), "--incidents", store_});
  ASSERT_EQ(r.exit, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("<title>leakhound report: mail only</title>"));
  const std::string csv = Slurp(dir_.Sub("m.csv"));
  EXPECT_THAT(csv, HasSubstr("total,incidents,3\r\n"));
  EXPECT_THAT(csv, HasSubstr("severity,high,2\r\n"));
  EXPECT_THAT(csv, Not(HasSubstr("channel,")));
  RunResult unknown = RunLeakhound({"report", "--policy", policy, "--name",
                                    "nope", "--incidents", store_});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no [[report]] named 'nope'"));
}

TEST_F(ReportCommandTest, DueReportsAreMailedOncePerPeriodWithTheirFilters) {
  const std::string policy = dir_.Sub("policy.toml");
  std::ofstream(policy) << "[[report]]\nname = \"web weekly\"\n"
                           "to = [\"ciso@corp.test\"]\nperiod = \"weekly\"\n"
                           "channels = [\"web\"]\n"
                           "sections = [\"channel\", \"overrides\"]\n";
  const std::string sendmail = dir_.Sub("sendmail");
  std::ofstream(sendmail) << "#!/bin/sh\nfor a; do to=$a; done\ncat >> "
                          << dir_.Sub("mail-") << "$to\n";
  ::chmod(sendmail.c_str(), 0700);
  auto due = [&] {
    return RunLeakhound({"report", "--due", "--policy", policy, "--sendmail",
                         sendmail, "--incidents", store_});
  };
  RunResult first = due();
  ASSERT_EQ(first.exit, 0) << first.err;
  EXPECT_THAT(first.out,
              HasSubstr("report web weekly: 1 incidents, sent to 1"));
  const std::string mail = Slurp(dir_.Sub("mail-ciso@corp.test"));
  EXPECT_THAT(mail, HasSubstr("Content-Type: multipart/mixed"));
  EXPECT_THAT(mail, HasSubstr("filename=\"leakhound-report.csv\""));
  // The CSV part, decoded: the web channel only, and no mail override.
  const size_t at = mail.find("filename=\"leakhound-report.csv\"");
  const size_t start = mail.find("\r\n\r\n", at) + 4;
  std::string b64 =
      mail.substr(start, mail.find("--leakhound-report", start) - start);
  std::erase_if(b64, [](char c) { return c == '\r' || c == '\n'; });
  std::string csv;
  ASSERT_TRUE(absl::Base64Unescape(b64, &csv));
  EXPECT_THAT(csv, HasSubstr("total,incidents,1\r\n"));
  EXPECT_THAT(csv, HasSubstr("channel,web,1\r\n"));
  EXPECT_THAT(csv, Not(HasSubstr("severity,")));  // not a section asked for
  EXPECT_THAT(csv, Not(HasSubstr("override,")));  // the override was mail's
  // Within its week: not again.
  RunResult second = due();
  ASSERT_EQ(second.exit, 0) << second.err;
  EXPECT_EQ(second.out, "");
  EXPECT_EQ(Slurp(dir_.Sub("mail-ciso@corp.test")), mail);
}

}  // namespace
}  // namespace leakhound
