// ConsolePages: the web console's HTML, rendered on the server and usable
// without JavaScript (docs/console.md): login, the incident list with its
// filters and paging, an incident with its passages highlighted in their
// context, the protected documents, the dashboard, and a message page.
// Every value from outside is escaped (html_text.h); every form that
// changes state carries the session's CSRF token. No protected text is
// ever shown: only the outbound snippets recorded with the incident.
//
// Thread-safety: pure functions of their arguments.
#ifndef LEAKHOUND_CLI_CONSOLE_CONSOLE_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_CONSOLE_PAGES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/console/page_layout.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

struct IncidentListView {
  // The filter as the user typed it (echoed in the form, in the links).
  std::map<std::string, std::string> query;
  std::vector<Incident> rows;
  size_t page = 0;    // from 0
  bool more = false;  // an older page exists
  std::string done = "";  // a notice of what was just done ("" none)
};

struct DocumentRow {
  std::string id;
  std::string source;
  std::vector<std::string> labels;
  uint64_t bytes = 0;
  int64_t added_ms = 0;
  // Its sensitivity labels (docs/labels.md), by name (their id when the
  // file names none).
  std::vector<std::string> sensitivity = {};
};

// One page of the protected documents: in id order, or those whose id
// contains `query` in id-text order; pages are cursors (`from`, `next`),
// so a page costs its rows, not the index's size.
struct DocumentsView {
  std::string query;  // a substring of the document's id
  std::vector<DocumentRow> rows;
  size_t total = 0;  // documents protected
  uint64_t generation = 0;
  std::string from;  // where this page starts ("": the first page)
  std::string next;  // where the next one starts ("": this is the last)
  bool index_available = true;
};

struct DashboardView {
  int days = 30;
  int64_t first_day = 0;  // Unix day of the first column
  std::vector<DayCount> per_day;
  std::vector<NamedCount> top_documents;
  std::vector<NamedCount> top_senders;
  std::vector<NamedCount> per_severity;
  // The outbox to the SIEMs and webhooks (docs/siem.md), per destination.
  std::vector<OutboxDestinationState> outbox;
  int64_t now_ms = 0;
};

// The policy in force, read-only: its file's text and per rule the
// incidents recorded under it (all time).
struct PolicyView {
  std::string path;   // "": the console was given no policy file
  std::string text;   // the file as read
  std::string error;  // the file does not read or parse (FILE:LINE)
  // What `policy check` warns of (policy_lint.h), e.g. a directory spoken
  // to in clear.
  std::vector<std::string> warnings;
  struct Rule {
    std::string name, mode, action, severity;
    int line = 0;
    int64_t incidents = 0;
  };
  std::vector<Rule> rules;
  // The versions published to the desk and the nodes (docs/fleet.md).
  std::vector<PolicyVersion> versions;
  std::vector<NodeState> nodes;
};

inline constexpr size_t kIncidentsPerPage = 50;
inline constexpr size_t kDocumentsPerPage = 100;

std::string LoginPage(const std::string& csrf, const std::string& error,
                      const std::string& next);
std::string IncidentListPage(const PageContext& ctx,
                             const IncidentListView& view);
// `done`: the action just carried out ("resolved", "released", ...), shown
// as a notice; "" for none.
// `mail`: the held-mail requests made through the desk (fleet_pages.h).
struct HeldMailView;
// `comments`: the case's (case_pages.h).
std::string IncidentPage(const PageContext& ctx, const Incident& incident,
                         const std::vector<AuditEntry>& audit,
                         const std::string& done, const HeldMailView& mail,
                         const std::vector<CaseComment>& comments = {});
std::string DocumentsPage(const PageContext& ctx, const DocumentsView& view,
                          const std::string& done);
std::string DashboardPage(const PageContext& ctx, const DashboardView& view);
std::string PolicyPage(const PageContext& ctx, const PolicyView& view);
// `ctx` may be null (not logged in).
std::string MessagePage(const PageContext* ctx, const std::string& title,
                        const std::string& message);

// The console's style sheet (served at /console.css).
extern const char kConsoleCss[];

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_PAGES_H_
