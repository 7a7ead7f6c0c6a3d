#include "cli/console/console_pages.h"

#include <gtest/gtest.h>

#include "cli/console/fleet_pages.h"

namespace leakhound {
namespace {

Incident Hostile() {
  Incident i;
  i.id = 42;
  i.time_ms = 1795564800000;
  i.source = "milter";
  i.kind = "leak";
  i.action = "quarantine";
  i.mail_state = "held";
  i.sender = "\"><img src=x onerror=alert(1)>@evil.test";
  i.subject = "<script>alert('subject')</script>";
  IncidentMatch m;
  m.document = "memo<b>";
  m.labels = {"<i>board</i>"};
  m.snippet = "<script>before</script>LEAKED <b>TEXT</b><script>after</script>";
  m.snippet_begin = 23;
  m.snippet_end = 41;
  i.matches = {m};
  i.documents = {"memo<b>"};
  return i;
}

const PageContext kReviewer{"rita", "reviewer", "tok123"};
const PageContext kViewer{"vic", "viewer", "tok456"};

TEST(ConsolePagesTest, AnIncidentsOutsideTextRendersInert) {
  const std::string page =
      IncidentPage(kReviewer, Hostile(), {}, "", HeldMailView{});
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&#39;subject&#39;)"),
            std::string::npos);
  // The passage is marked, its own markup escaped inside the mark.
  EXPECT_NE(page.find("<mark>LEAKED &lt;b&gt;TEXT&lt;/b&gt;</mark>"),
            std::string::npos);
  const std::string list =
      IncidentListPage(kReviewer, {{}, {Hostile()}, 0, false});
  EXPECT_EQ(list.find("<script"), std::string::npos);
  EXPECT_EQ(list.find("<img"), std::string::npos);
}

TEST(ConsolePagesTest, ReviewFormsCarryTheCsrfTokenAndNeedTheReviewerRole) {
  const std::string reviewer =
      IncidentPage(kReviewer, Hostile(), {}, "", HeldMailView{});
  EXPECT_NE(reviewer.find("action=\"/incidents/42/resolve\""),
            std::string::npos);
  EXPECT_NE(reviewer.find("action=\"/incidents/42/release\""),
            std::string::npos);
  EXPECT_NE(reviewer.find("action=\"/incidents/42/allow\""), std::string::npos);
  size_t forms = 0, tokens = 0;
  for (size_t at = 0;
       (at = reviewer.find("method=\"post\"", at)) != std::string::npos; ++at) {
    ++forms;
  }
  for (size_t at = 0; (at = reviewer.find("name=\"csrf\" value=\"tok123\"",
                                          at)) != std::string::npos;
       ++at) {
    ++tokens;
  }
  EXPECT_EQ(forms, tokens);
  const std::string viewer =
      IncidentPage(kViewer, Hostile(), {}, "", HeldMailView{});
  EXPECT_EQ(viewer.find("/resolve"), std::string::npos);
  EXPECT_EQ(viewer.find("/release"), std::string::npos);
  EXPECT_EQ(viewer.find("/allow"), std::string::npos);
}

TEST(ConsolePagesTest, ListPagingKeepsTheFilterAndEscapesIt) {
  IncidentListView view;
  view.query = {{"sender", "a&b\"<x>"}, {"status", "open"}};
  view.page = 1;
  view.more = true;
  const std::string page = IncidentListPage(kViewer, view);
  EXPECT_NE(
      page.find("href=\"/incidents?sender=a%26b%22%3Cx%3E&amp;status=open\""),
      std::string::npos);
  EXPECT_NE(page.find("sender=a%26b%22%3Cx%3E&amp;status=open&amp;page=2"),
            std::string::npos);
  EXPECT_NE(page.find("value=\"a&amp;b&quot;&lt;x&gt;\""), std::string::npos);
}

TEST(ConsolePagesTest, AWebIncidentShowsItsRequestAndTheChannelFilter) {
  Incident i;
  i.id = 7;
  i.source = "web";
  i.kind = "leak";
  i.action = "reject";
  i.method = "POST";
  i.url = "https://chat.example.net/v1?<x>";
  i.client = "10.1.2.3";  // no proxy user: the client address stands
  i.recipients = {"chat.example.net"};
  const std::string list = IncidentListPage(kViewer, {{}, {i}, 0, false});
  EXPECT_NE(list.find("<td>10.1.2.3</td><td>chat.example.net</td><td>POST "
                      "https://chat.example.net/v1?&lt;x&gt;</td>"),
            std::string::npos)
      << list;
  EXPECT_NE(list.find("<option>web</option>"), std::string::npos);
  const std::string page = IncidentPage(kViewer, i, {}, "", HeldMailView{});
  EXPECT_NE(page.find("<th>Method</th><td>POST</td>"), std::string::npos);
  EXPECT_NE(page.find("<th>URL</th><td>https://chat.example.net/v1?&lt;x&gt;"),
            std::string::npos);
}

// A records incident reads in record terms: the row and its columns, its
// values masked, never "% of the document"; the list names the recipients.
TEST(ConsolePagesTest, ARecordsIncidentShowsRowsAndColumnsAndTheRecipients) {
  Incident i;
  i.id = 9;
  i.source = "milter";
  i.kind = "leak";
  i.action = "reject";
  i.sender = "alex@corp.test";
  i.recipients = {"bob@example.test", "eve@example.test", "ann@corp.test"};
  IncidentMatch m;
  m.document = "table customers";
  m.source = "row 17";
  m.labels = {"card", "name"};
  m.words = 2;
  m.snippet = "4111 **** **** 1111 | A** L**";
  m.snippet_end = static_cast<uint32_t>(m.snippet.size());
  i.matches = {m};
  i.documents = {"table customers"};
  const std::string page = IncidentPage(kViewer, i, {}, "", HeldMailView{});
  EXPECT_NE(page.find("row 17 matched: columns card, name"), std::string::npos)
      << page;
  EXPECT_EQ(page.find("% of the document"), std::string::npos);
  EXPECT_EQ(page.find("labels card"), std::string::npos);
  const std::string list = IncidentListPage(kViewer, {{}, {i}, 0, false});
  EXPECT_NE(list.find("<th>To</th>"), std::string::npos);
  EXPECT_NE(list.find("<td>bob@example.test (+2)</td>"), std::string::npos);
}

TEST(ConsolePagesTest, TheDashboardDrawsEveryActionAndEscapesNames) {
  DashboardView view;
  view.days = 3;
  view.first_day = 100;
  view.per_day = {
      {100, "reject", 4}, {101, "quarantine", 2}, {102, "reject", 1}};
  view.top_documents = {{"<doc>", 5}};
  view.top_senders = {{"a@b.test", 7}};
  const std::string page = DashboardPage(kViewer, view);
  EXPECT_NE(page.find("7 incidents in the last 3 days"), std::string::npos);
  EXPECT_NE(page.find("reject: 4"), std::string::npos);
  EXPECT_NE(page.find("quarantine: 2"), std::string::npos);
  EXPECT_NE(page.find("&lt;doc&gt;: 5"), std::string::npos);
  EXPECT_EQ(page.find("<doc>"), std::string::npos);
}

TEST(ConsolePagesTest, TheDashboardShowsTheOutboxAndFlagsALateDestination) {
  DashboardView view;
  view.now_ms = 10'000'000;
  EXPECT_NE(DashboardPage(kViewer, view).find("No SIEM or webhook"),
            std::string::npos);
  OutboxDestinationState ok;
  ok.name = "siem";
  ok.delivered = 42;
  OutboxDestinationState late;
  late.name = "<hook>";
  late.pending = 7;
  late.oldest_pending_ms = view.now_ms - 600'000;
  late.retried = 3;
  late.last_error = "webhook <x>: HTTP status 503";
  late.last_error_ms = view.now_ms - 1000;  // no delivery since
  // An error a delivery followed is not shown.
  ok.last_error = "syslog down";
  ok.last_error_ms = view.now_ms - 50'000;
  ok.last_delivery_ms = view.now_ms - 40'000;
  view.outbox = {ok, late};
  const std::string page = DashboardPage(kViewer, view);
  EXPECT_NE(page.find("<tr><td>siem</td><td>0</td><td>-</td><td>42</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<tr class=\"alert\"><td>&lt;hook&gt;</td><td>7</td>"
                      "<td>600 s</td>"),
            std::string::npos);
  EXPECT_NE(page.find("webhook &lt;x&gt;: HTTP status 503"), std::string::npos);
  EXPECT_EQ(page.find("syslog down"), std::string::npos);
  EXPECT_EQ(page.find("<hook>"), std::string::npos);
}

TEST(ConsolePagesTest, OnlyAdminsSeeDocumentChanges) {
  DocumentsView view;
  view.rows = {{"memo", "/p/memo", {"board"}, 100, 0}};
  view.total = 1;
  EXPECT_EQ(DocumentsPage(kReviewer, view, "").find("/documents/remove"),
            std::string::npos);
  const std::string admin = DocumentsPage({"ada", "admin", "t"}, view, "");
  EXPECT_NE(admin.find("/documents/remove"), std::string::npos);
  EXPECT_NE(admin.find("/documents/add"), std::string::npos);
}

TEST(ConsolePagesTest, DocumentPagesLinkByCursorWithTheSearchEscaped) {
  DocumentsView view;
  view.rows = {{"a&b", "/p/a", {}, 1, 0}};
  view.total = 1000;
  view.query = "a&b";
  view.from = "a";
  view.next = "z<1>";
  const std::string page = DocumentsPage(kReviewer, view, "");
  EXPECT_NE(page.find("href=\"/documents?from=z%3C1%3E&amp;q=a%26b\""),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("href=\"/documents?q=a%26b\">&larr; first page"),
            std::string::npos);
  EXPECT_NE(page.find("1000 documents protected"), std::string::npos);
  view.from.clear();
  view.next.clear();
  const std::string only = DocumentsPage(kReviewer, view, "");
  EXPECT_EQ(only.find("first page"), std::string::npos);
  EXPECT_EQ(only.find("next &rarr;"), std::string::npos);
}

TEST(ConsolePagesTest, RolesRankViewerReviewerAdmin) {
  EXPECT_TRUE(RoleAtLeast("admin", "reviewer"));
  EXPECT_TRUE(RoleAtLeast("reviewer", "reviewer"));
  EXPECT_FALSE(RoleAtLeast("viewer", "reviewer"));
  EXPECT_FALSE(RoleAtLeast("root", "viewer"));
  EXPECT_FALSE(RoleAtLeast("", "viewer"));
}

}  // namespace
}  // namespace leakhound
