// The console's Discovery handlers (console_impl.h, docs/discover.md): the
// Discovery page and an admin's restore of a finding's file.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/console/console_impl.h"
#include "cli/console/discovery_pages.h"
#include "cli/discover/finding_restore.h"

namespace leakhound {

void ConsoleServerImpl::Discovery(const HttpRequest& req, HttpResponse& res) {
  auto s = Authenticate(req, res);
  if (!s) return;
  DiscoveryView view;
  const auto field = [&req](const char* key) {
    return std::string(absl::StripAsciiWhitespace(req.Query(key)));
  };
  view.filter = {field("target"), field("folder"), field("owner"),
                 field("state")};
  if (req.Query("done") == "restored") {
    view.done = absl::StrCat("Restored ", field("reference"), ".");
  }
  {
    absl::MutexLock lock(&store_mu);
    auto runs = store->LatestDiscoverRuns();
    if (!runs.ok()) return Fail(res, *s, runs.status());
    auto findings = store->Findings(view.filter.target, {});
    if (!findings.ok()) return Fail(res, *s, findings.status());
    view.runs = *std::move(runs);
    view.findings = *std::move(findings);
  }
  SendHtml(res, 200, DiscoveryPage(Context(*s), view));
}

void ConsoleServerImpl::DiscoveryRestore(const HttpRequest& req,
                                         HttpResponse& res) {
  auto s = Authorize(req, res, "admin");
  if (!s) return;
  const std::string who = "console:" + s->user;
  const std::string reference = req.matches[1];
  absl::StatusOr<std::string> said;
  {
    absl::MutexLock lock(&store_mu);
    said = RestoreFinding(*store, reference, who);
  }
  if (!said.ok()) return Fail(res, *s, said.status());
  log(absl::StrCat(LogField(who), ": restored ", LogField(*said)));
  res.SetRedirect(
      absl::StrCat("/discovery?done=restored&reference=", Url(reference)), 303);
}

}  // namespace leakhound
