// The console's handlers of cases (console_impl.h, docs/console.md
// "Cases"): one incident's assign, comment and escalate, and the bulk
// actions of the list.
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/console/console_impl.h"

namespace leakhound {

absl::Status CaseAction(IncidentStore& store, const std::string& action,
                        int64_t id, const HttpRequest& req,
                        const std::string& who) {
  if (action == "assign") {
    return store.Assign(
        id, std::string(absl::StripAsciiWhitespace(req.Field("owner"))), who);
  }
  if (action == "comment") {
    return store.AddComment(
        id, std::string(absl::StripAsciiWhitespace(req.Field("text"))), who);
  }
  const std::string to(absl::StripAsciiWhitespace(req.Field("to")));
  if (to.empty()) return absl::InvalidArgumentError("escalate to whom?");
  return store.Escalate(id, to, req.Field("reason"), who);
}

void ConsoleServerImpl::Bulk(const HttpRequest& req, HttpResponse& res) {
  auto s = Authorize(req, res, "reviewer");
  if (!s) return;
  const std::string who = "console:" + s->user;
  const std::string action = req.Field("action");
  const std::string to(absl::StripAsciiWhitespace(req.Field("to")));
  std::vector<int64_t> ids;
  for (const auto& [name, value] : req.form) {
    int64_t id = 0;
    if (name.starts_with("id-") && value == "yes" &&
        absl::SimpleAtoi(name.substr(3), &id) && ids.size() < 1000) {
      ids.push_back(id);
    }
  }
  if (ids.empty()) {
    return Fail(res, *s, absl::InvalidArgumentError("tick some incidents"));
  }
  size_t done = 0;
  absl::Status st;
  absl::MutexLock lock(&store_mu);
  for (const int64_t id : ids) {
    if (action == "take") {
      st = store->Assign(id, s->user, who);
    } else if (action == "assign" && !to.empty()) {
      st = store->Assign(id, to, who);
    } else if (action == "resolve") {
      st = store->Resolve(id, req.Field("status"), req.Field("note"), who);
    } else if (action == "escalate" && !to.empty()) {
      st = store->Escalate(id, to, req.Field("note"), who);
    } else {
      st = absl::InvalidArgumentError("unknown bulk action, or no owner/whom");
    }
    if (!st.ok()) break;
    ++done;
  }
  log(absl::StrCat(LogField(who), ": bulk ", LogField(action), " of ", done,
                   " incidents"));
  if (!st.ok()) {
    return Fail(
        res, *s,
        absl::Status(st.code(), absl::StrCat(done, " of ", ids.size(),
                                             " done, then: ", st.message())));
  }
  res.SetRedirect(absl::StrCat("/incidents?done=bulk&n=", done), 303);
}

}  // namespace leakhound
