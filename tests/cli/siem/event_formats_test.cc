// CEF, LEEF and the webhook's JSON of an outbox event: pinned text.
#include "cli/siem/event_formats.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/incidents/incident.h"
#include "cli/incidents/outbox_event.h"
#include "nlohmann/json.hpp"

namespace leakhound {
namespace {

OutboxEvent HostileLeak() {
  OutboxEvent e;
  e.seq = 42;
  e.id = "00112233445566778899aabbccddeeff";
  e.time_ms = 1795812060266;
  e.type = "incident";
  e.incident_id = 7;
  e.incident_ms = 1795812060261;
  e.reference = "LH-ABCDEFGHJK";
  e.kind = "leak";
  e.channel = "mail";
  e.action = "reject";
  e.severity = "high";
  e.policy = "/etc/leakhound/policy.toml";
  e.rules = {{"external", "high", "reject", false}};
  e.sender = "a@corp.test";
  e.recipients = {"x@example.org", "y@example.org"};
  e.recipient_count = 2;
  e.subject = "Q3|plan=final\\draft\nBcc: evil\r\tend";
  e.client = "192.0.2.7";
  e.documents = {"board/memo.txt"};
  e.words = 58;
  e.snippets = {{"board/memo.txt", "the outbound text"}};
  return e;
}

TEST(EventFormatsTest, CefEscapesHeaderAndExtensionToTheSpec) {
  EXPECT_EQ(CefHeaderEscape("a|b\\c\nd"), "a\\|b\\\\c d");
  EXPECT_EQ(CefValueEscape("a=b\\c\nd\re|f"), "a\\=b\\\\c\\nd\\re|f");
}

TEST(EventFormatsTest, LeefNeverLetsAValueCarryTheDelimiterOrALineBreak) {
  EXPECT_EQ(LeefValueEscape("a\tb\\c\nd\re=f|g"), "a\\tb\\\\c\\nd\\re=f|g");
}

TEST(EventFormatsTest, ControlCharactersAndBadUtf8AreMadeSafe) {
  EXPECT_EQ(CefValueEscape(std::string("a\0b\x1b[31m\xff", 9)),
            "a b [31m\xEF\xBF\xBD");
}

TEST(EventFormatsTest, AnIncidentAsCef) {
  EventFormatOptions o;
  o.console_url = "https://dlp.corp.test/";
  EXPECT_EQ(CefMessage(HostileLeak(), o),
            "CEF:0|leakhound|leakhound|" LEAKHOUND_VERSION
            "|incident:leak|Protected text leaving|9|rt=1795812060261 cat=mail "
            "act=reject suser=a@corp.test duser=x@example.org,y@example.org "
            "src=192.0.2.7 msg=Q3|plan\\=final\\\\draft\\nBcc: evil\\r end "
            "externalId=LH-ABCDEFGHJK cs1Label=policy "
            "cs1=/etc/leakhound/policy.toml cs2Label=rules cs2=external "
            "cs3Label=documents cs3=board/memo.txt cs4Label=consoleLink "
            "cs4=https://dlp.corp.test/incidents?reference\\=LH-ABCDEFGHJK "
            "cs5Label=eventId cs5=00112233445566778899aabbccddeeff "
            "flexString2Label=severity flexString2=high cn1Label=words cn1=58 "
            "cn2Label=incidentId cn2=7 cn3Label=sequence cn3=42");
}

TEST(EventFormatsTest, AnIncidentAsLeef) {
  EXPECT_EQ(LeefMessage(HostileLeak(), {}),
            "LEEF:2.0|leakhound|leakhound|" LEAKHOUND_VERSION
            "|incident:leak|x09|devTime=2026-11-27T20:41:00.261+0000\t"
            "devTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSZ\tsev=9\tcat=mail\t"
            "action=reject\tusrName=a@corp.test\t"
            "recipients=x@example.org,y@example.org\tsrc=192.0.2.7\t"
            "subject=Q3|plan=final\\\\draft\\nBcc: evil\\r\\tend\t"
            "reference=LH-ABCDEFGHJK\tpolicy=/etc/leakhound/policy.toml\t"
            "rules=external\tdocuments=board/memo.txt\t"
            "eventId=00112233445566778899aabbccddeeff\tseverity=high\t"
            "words=58\tincidentId=7\tsequence=42");
}

TEST(EventFormatsTest, SnippetsTravelOnlyWhenTheDestinationAsks) {
  const OutboxEvent e = HostileLeak();
  EXPECT_EQ(CefMessage(e, {}).find("the outbound text"), std::string::npos);
  EXPECT_EQ(LeefMessage(e, {}).find("the outbound text"), std::string::npos);
  EXPECT_EQ(WebhookBody(e, {}).find("the outbound text"), std::string::npos);
  EventFormatOptions with;
  with.include_snippets = true;
  EXPECT_NE(
      CefMessage(e, with).find("flexString1=board/memo.txt: the outbound text"),
      std::string::npos);
  EXPECT_NE(
      LeefMessage(e, with).find("\tsnippets=board/memo.txt: the outbound text"),
      std::string::npos);
  EXPECT_NE(WebhookBody(e, with).find("the outbound text"), std::string::npos);
}

TEST(EventFormatsTest, SeveritiesMapToEachScale) {
  OutboxEvent e = HostileLeak();
  const std::pair<const char*, std::pair<int, int>> kCases[] = {
      {"info", {1, 6}},
      {"low", {3, 5}},
      {"medium", {6, 4}},
      {"high", {9, 2}},
      {"", {3, 4}}};
  for (const auto& [severity, scaled] : kCases) {
    e.severity = severity;
    EXPECT_EQ(ScaledSeverity(e), scaled.first) << severity;
    EXPECT_EQ(SyslogSeverity(e), scaled.second) << severity;
  }
  e.type = "review";
  e.review = "resolved";
  EXPECT_EQ(ScaledSeverity(e), 1);
  EXPECT_EQ(SyslogSeverity(e), 6);
  EXPECT_EQ(EventClass(e), "review:resolved");
}

TEST(EventFormatsTest, TheWebhookBodyIsTheEventWithItsEnvelope) {
  OutboxEvent e = HostileLeak();
  e.type = "review";
  e.review = "resolved";
  e.user = "ada";
  e.status = "confirmed";
  e.note = "checked";
  EventFormatOptions o;
  o.console_url = "https://dlp.corp.test";
  const nlohmann::json j = nlohmann::json::parse(WebhookBody(e, o));
  EXPECT_EQ(j["schema"], "leakhound.webhook/1");
  EXPECT_EQ(j["id"], e.id);
  EXPECT_EQ(j["sequence"], 42);
  EXPECT_EQ(j["class"], "review:resolved");
  EXPECT_EQ(j["severity_scaled"], 1);
  EXPECT_EQ(j["link"],
            "https://dlp.corp.test/incidents?reference=LH-ABCDEFGHJK");
  EXPECT_EQ(j["reference"], "LH-ABCDEFGHJK");
  EXPECT_EQ(j["subject"], e.subject);
  EXPECT_EQ(j["recipients"].size(), 2u);
  EXPECT_EQ(j["rules"][0]["rule"], "external");
  EXPECT_FALSE(j.contains("snippets"));
  EXPECT_EQ(j["user"], "ada");
  EXPECT_EQ(j["status"], "confirmed");
  EXPECT_EQ(j["note"], "checked");
}

// An incident built from records evidence: its events say the rows in
// record terms, never as a document.
TEST(EventFormatsTest, RowsOfAProtectedTableTravelInRecordTerms) {
  Incident i;
  i.id = 3;
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  IncidentMatch row;
  row.document = "table customers";
  row.source = "row 17";
  row.labels = {"card", "name"};
  i.matches = {row, row};
  i.matches[1].labels = {"email"};
  const OutboxEvent e = IncidentEvent(i);
  EXPECT_TRUE(e.documents.empty());
  ASSERT_EQ(e.records.size(), 1u);
  EXPECT_EQ(e.records[0], "2 rows of table customers (columns card, email, name)");
  EXPECT_EQ(e.rows, 2u);
  EventFormatOptions o;
  const std::string leef = LeefMessage(e, o);
  EXPECT_NE(leef.find("\trecords=2 rows of table customers (columns card, "
                      "email, name)"),
            std::string::npos)
      << leef;
  const std::string cef = CefMessage(e, o);
  EXPECT_NE(cef.find("flexNumber1Label=rows flexNumber1=2"), std::string::npos)
      << cef;
  EXPECT_EQ(cef.find("cs3="), std::string::npos);
}

TEST(EventFormatsTest, DiscoveryFindingsAndRemediationsAreNamed) {
  OutboxEvent e = HostileLeak();
  e.channel = "discover";
  EXPECT_NE(CefMessage(e, {}).find("|Protected content at rest|"),
            std::string::npos);
  e.type = "review";
  for (const auto& [review, name] :
       std::vector<std::pair<std::string, std::string>>{
           {"quarantined", "File at rest quarantined"},
           {"restricted", "File at rest restricted"},
           {"owner-notified", "File owner notified"},
           {"closed", "Finding at rest closed"},
           {"restored", "Remediation undone"}}) {
    e.review = review;
    EXPECT_NE(CefMessage(e, {}).find("|" + name + "|"), std::string::npos)
        << review;
  }
}

TEST(EventFormatsTest, AWebIncidentNamesItsHostAndUrl) {
  OutboxEvent e = HostileLeak();
  e.channel = "web";
  e.recipients = {"files.example.org"};
  e.method = "POST";
  e.url = "https://files.example.org/upload?a=b";
  e.client = "proxy-host";
  const std::string cef = CefMessage(e, {});
  EXPECT_NE(cef.find(" dhost=files.example.org "), std::string::npos);
  EXPECT_NE(cef.find(" shost=proxy-host "), std::string::npos);
  EXPECT_NE(cef.find(" requestMethod=POST request=https://files.example.org/"
                     "upload?a\\=b "),
            std::string::npos);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

TEST(EventFormatsOverrideTest,
     ASendersOverrideIsNamedAndCarriesItsJustification) {
  OutboxEvent e;
  e.seq = 7;
  e.id = "0123456789abcdef0123456789abcdef";
  e.time_ms = 1795812060266;
  e.type = "review";
  e.review = "overridden";
  e.reference = "LH-ABCDEFGHJK";
  e.user = "sam@corp.test (directory login sam)";
  e.note = "NDA signed | see=deal room";
  EventFormatOptions o;
  const std::string cef = CefMessage(e, o);
  EXPECT_NE(cef.find("|Sender override used|"), std::string::npos) << cef;
  EXPECT_NE(cef.find("reason=NDA signed | see\\=deal room"), std::string::npos)
      << cef;
  EXPECT_EQ(EventClass(e), "review:overridden");
  e.review = "override-revoked";
  EXPECT_NE(CefMessage(e, o).find("|Sender override revoked|"),
            std::string::npos);
}

}  // namespace
}  // namespace leakhound
