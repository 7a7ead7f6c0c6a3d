// The console's parts of a case (docs/console.md, "Cases"): an incident's
// owner, workflow, escalation and comments with the forms that change
// them, and the bulk actions of the incident list. Fragments of the
// pages console_pages.h renders; every value escaped.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_CASE_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_CASE_PAGES_H_

#include <string>
#include <vector>

#include "cli/console/page_layout.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

// The case of `i`: workflow, owner, escalation and `comments`; for a
// reviewer the take, assign, escalate and comment forms.
void AppendCaseSection(const PageContext& ctx, const Incident& i,
                       const std::vector<CaseComment>& comments,
                       std::string* out);

// The list row's box that puts incident `id` in the bulk form (a
// reviewer's), and the bulk form itself: take, assign to, resolve as or
// escalate every ticked incident.
std::string BulkBox(const PageContext& ctx, int64_t id);
std::string BulkForm(const PageContext& ctx);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CASE_PAGES_H_
