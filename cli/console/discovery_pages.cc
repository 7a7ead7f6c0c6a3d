#include "cli/console/discovery_pages.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/gateway/html_text.h"
#include "cli/incidents/incident.h"

namespace leakhound {
namespace {

constexpr const char* kStates[] = {"open",       "quarantining", "quarantined",
                                   "restricted", "restored",     "closed"};

std::string Link(const DiscoveryFilter& f, const std::string& key,
                 const std::string& value) {
  DiscoveryFilter next = f;
  if (key == "folder") next.folder = value;
  if (key == "owner") next.owner = value;
  return absl::StrCat(
      "/discovery?target=", Url(next.target), "&amp;folder=", Url(next.folder),
      "&amp;owner=", Url(next.owner), "&amp;state=", Url(next.state));
}

void AppendRuns(const std::vector<DiscoverRun>& runs, std::string* out) {
  if (runs.empty()) {
    *out +=
        "<p>No discovery run yet (<code>leakhound discover run</code>, "
        "or the leakhound-discover timer).</p>";
    return;
  }
  *out +=
      "<table id=\"discover-runs\"><thead><tr><th>Target</th><th>Last "
      "run</th><th>Seconds</th><th>Files</th><th>Read</th><th>New "
      "findings</th><th>Closed</th><th>Errors</th></tr></thead><tbody>";
  for (const DiscoverRun& r : runs) {
    // A run writes its row as it goes: unfinished, it is running (or was
    // killed), and shows how far it got.
    const std::string took =
        r.finished_ms == 0
            ? std::string("running")
            : absl::StrFormat(
                  "%.1f",
                  static_cast<double>(r.finished_ms - r.started_ms) / 1000);
    absl::StrAppend(out, "<tr><td>", Html(r.target), "</td><td>",
                    Html(FormatTime(r.started_ms)), "</td><td class=\"took\">",
                    took, "</td><td>", r.seen, "</td><td>", r.read, " of ",
                    r.to_read, "</td><td>", r.findings, "</td><td>", r.closed,
                    "</td><td", r.errors > 0 ? " class=\"bad\"" : "", ">",
                    r.errors, "</td></tr>");
  }
  *out += "</tbody></table>";
}

void AppendFilterForm(const DiscoveryView& view, std::string* out) {
  const DiscoveryFilter& f = view.filter;
  std::set<std::string> targets;
  for (const DiscoverRun& r : view.runs) targets.insert(r.target);
  absl::StrAppend(out,
                  "<form method=\"get\" action=\"/discovery\" "
                  "id=\"discovery-filter\"><label>Target <select "
                  "name=\"target\"><option value=\"\">any</option>");
  for (const std::string& t : targets) {
    absl::StrAppend(out, "<option", t == f.target ? " selected" : "", ">",
                    Html(t), "</option>");
  }
  absl::StrAppend(out,
                  "</select></label> <label>State <select "
                  "name=\"state\"><option value=\"\">any</option>");
  for (const char* s : kStates) {
    absl::StrAppend(out, "<option", f.state == s ? " selected" : "", ">", s,
                    "</option>");
  }
  absl::StrAppend(out,
                  "</select></label> <label>Owner <input name=\"owner\" "
                  "value=\"",
                  Html(f.owner),
                  "\"></label> <label>Folder <input name=\"folder\" "
                  "value=\"",
                  Html(f.folder),
                  "\"></label> <button type=\"submit\">Show</button></form>");
}

void AppendTree(const DiscoveryView& view,
                const std::vector<DiscoverFinding>& shown, std::string* out) {
  const auto folders = FolderCounts(shown);
  if (folders.empty()) return;
  // Nested lists: each folder inside the nearest folder above it.
  *out += "<h2>Folders</h2><ul id=\"folder-tree\" class=\"tree\">";
  std::vector<std::string> open;
  for (const auto& [folder, count] : folders) {
    while (!open.empty() && folder.rfind(open.back() + "/", 0) != 0) {
      open.pop_back();
      *out += "</ul></li>";
    }
    const std::string name =
        open.empty() ? folder : folder.substr(open.back().size() + 1);
    absl::StrAppend(out, "<li><a href=\"", Link(view.filter, "folder", folder),
                    "\">", Html(name), "</a> <b>", count, "</b><ul>");
    open.push_back(folder);
  }
  for (size_t i = 0; i < open.size(); ++i) *out += "</ul></li>";
  *out += "</ul>";
}

void AppendOwners(const DiscoveryView& view,
                  const std::vector<DiscoverFinding>& shown, std::string* out) {
  std::map<std::string, size_t> owners;
  for (const DiscoverFinding& f : shown) ++owners[f.owner];
  if (owners.empty()) return;
  *out +=
      "<h2>Owners</h2><table id=\"owners\"><thead><tr><th>Owner</th>"
      "<th>Findings</th></tr></thead><tbody>";
  for (const auto& [owner, count] : owners) {
    absl::StrAppend(out, "<tr><td><a href=\"",
                    Link(view.filter, "owner", owner), "\">", Html(owner),
                    "</a></td><td>", count, "</td></tr>");
  }
  *out += "</tbody></table>";
}

void AppendFinding(const PageContext& ctx, const DiscoverFinding& f,
                   std::string* out) {
  absl::StrAppend(
      out, "<tr id=\"finding-", Html(f.reference),
      "\"><td><a href=\"/incidents/", f.incident_id, "\">", Html(f.reference),
      "</a></td><td>", Html(f.target), "</td><td><code>", Html(f.path),
      "</code></td><td>", Html(f.owner), ":", Html(f.group), "</td><td>",
      absl::StrFormat("%04o", f.mode), "</td><td>", Html(f.exposure),
      "</td><td>", Html(f.remediation), "</td><td class=\"state\">",
      Html(f.state), "</td><td>", Html(f.detail), "</td><td>");
  if (RoleAtLeast(ctx.role, "admin") &&
      (f.state == "quarantined" || f.state == "restricted")) {
    absl::StrAppend(out, "<form method=\"post\" action=\"/discovery/",
                    Html(f.reference), "/restore\">", CsrfField(ctx),
                    "<button type=\"submit\">Restore</button></form>");
  }
  *out += "</td></tr>";
}

}  // namespace

bool InFilter(const DiscoverFinding& f, const DiscoveryFilter& filter) {
  if (!filter.target.empty() && f.target != filter.target) return false;
  if (!filter.owner.empty() && f.owner != filter.owner) return false;
  if (!filter.state.empty() && f.state != filter.state) return false;
  if (filter.folder.empty()) return true;
  const std::string prefix =
      filter.folder.back() == '/' ? filter.folder : filter.folder + "/";
  return f.path.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::pair<std::string, size_t>> FolderCounts(
    const std::vector<DiscoverFinding>& findings) {
  if (findings.empty()) return {};
  // The tree starts at the deepest folder that holds them all.
  std::string common = findings[0].path.substr(0, findings[0].path.rfind('/'));
  for (const DiscoverFinding& f : findings) {
    while (!common.empty() && f.path.rfind(common + "/", 0) != 0) {
      common = common.substr(0, common.rfind('/'));
    }
  }
  std::map<std::string, size_t> counts;
  for (const DiscoverFinding& f : findings) {
    for (size_t slash = f.path.find('/', common.size() + 1);
         slash != std::string::npos; slash = f.path.find('/', slash + 1)) {
      ++counts[f.path.substr(0, slash)];
    }
    if (!common.empty() || f.path.find('/', 1) != std::string::npos) {
      ++counts[common.empty() ? "/" : common];
    }
  }
  return {counts.begin(), counts.end()};
}

std::string DiscoveryPage(const PageContext& ctx, const DiscoveryView& view) {
  std::string body;
  if (!view.done.empty()) {
    absl::StrAppend(&body, "<p class=\"done\" id=\"done\">", Html(view.done),
                    "</p>");
  }
  AppendRuns(view.runs, &body);
  AppendFilterForm(view, &body);
  std::vector<DiscoverFinding> shown;
  for (const DiscoverFinding& f : view.findings) {
    if (InFilter(f, view.filter)) shown.push_back(f);
  }
  AppendTree(view, shown, &body);
  AppendOwners(view, shown, &body);
  absl::StrAppend(&body, "<h2>Findings (", shown.size(), ")</h2>");
  if (shown.empty()) {
    body += "<p>No finding matches.</p>";
    return Layout(&ctx, "Discovery", body);
  }
  body +=
      "<table id=\"findings\"><thead><tr><th>Incident</th><th>Target"
      "</th><th>Path</th><th>Owner</th><th>Mode</th><th>Exposure</th>"
      "<th>Remediation</th><th>State</th><th>Detail</th><th></th></tr>"
      "</thead><tbody>";
  for (const DiscoverFinding& f : shown) AppendFinding(ctx, f, &body);
  body += "</tbody></table>";
  return Layout(&ctx, "Discovery", body);
}

}  // namespace leakhound
