#include "cli/console/fleet_pages.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/console/page_layout.h"
#include "cli/gateway/html_text.h"

namespace leakhound {
namespace {

// The flags of one node, as words a reader acts on.
std::string FlagCell(const NodeAssessment& a, const NodesView& view) {
  std::vector<std::string> flags;
  if (a.silent) {
    flags.push_back(
        absl::StrCat("silent for ", AgeText(a.node.heartbeat_ms, view.now_ms)));
  }
  if (a.behind) {
    flags.push_back(absl::StrCat("index generation ", a.node.index_generation,
                                 ", the writer's is ",
                                 view.fleet.reference_generation));
  }
  if (a.other_policy) {
    flags.push_back(absl::StrCat(
        "enforces ",
        a.node.policy_version > 0
            ? absl::StrCat("v", a.node.policy_version)
            : absl::StrCat("a local policy (",
                           a.node.policy_digest.substr(0, 12), ")"),
        ", not the published v", view.fleet.published_version));
  }
  if (flags.empty()) return "<td class=\"ok\">ok</td>";
  return absl::StrCat("<td class=\"error\">", Html(absl::StrJoin(flags, "; ")),
                      "</td>");
}

}  // namespace

std::string AgeText(int64_t since_ms, int64_t now_ms) {
  if (since_ms == 0) return "never";
  const int64_t s = std::max<int64_t>(0, (now_ms - since_ms) / 1000);
  if (s < 120) return absl::StrCat(s, " s");
  if (s < 7200) return absl::StrCat(s / 60, " min");
  if (s < 172800) return absl::StrCat(s / 3600, " h");
  return absl::StrCat(s / 86400, " d");
}

std::string NodesPage(const PageContext& ctx, const NodesView& view) {
  const FleetAssessment& f = view.fleet;
  std::string body = absl::StrCat(
      "<p>The writer's index generation: <b id=\"reference-generation\">",
      f.reference_generation, "</b>. Published policy: <b id=\"published\">",
      f.published_version == 0 ? std::string("none")
                               : absl::StrCat("v", f.published_version),
      "</b>. A node is flagged when silent for ",
      view.thresholds.silent_ms / 1000,
      " s, behind the writer's generation "
      "for ",
      view.thresholds.behind_ms / 60000,
      " min, or enforcing another policy.</p>");
  if (f.nodes.empty()) {
    body += "<p>No node has reported to this desk.</p>";
    return Layout(&ctx, "Nodes", body);
  }
  body +=
      "<table id=\"nodes\"><thead><tr><th>Node</th><th>Role</th><th>Version"
      "</th><th>Host</th><th>Up since</th><th>Last heard</th><th>Index "
      "generation</th><th>Documents</th><th>Policy</th><th>Spool</th><th>"
      "State</th></tr></thead><tbody>";
  for (const NodeAssessment& a : f.nodes) {
    const NodeState& n = a.node;
    absl::StrAppend(
        &body, "<tr id=\"node-", Html(n.name), "\"><td>", Html(n.name),
        "</td><td>", Html(n.role), "</td><td>", Html(n.version), "</td><td>",
        Html(n.host), "</td><td>", Html(FormatTime(n.started_ms)), "</td><td>",
        Html(AgeText(n.heartbeat_ms, view.now_ms)), " ago</td><td>",
        n.index_generation, "</td><td>", n.index_documents, "</td><td>",
        n.policy_version > 0 ? absl::StrCat("v", n.policy_version) : "file",
        " <code>", Html(n.policy_digest.substr(0, 12)), "</code></td><td>",
        n.spool_depth,
        n.spool_depth > 0
            ? absl::StrCat(" (oldest ", AgeText(n.spool_oldest_ms, view.now_ms),
                           ")")
            : "",
        "</td>", FlagCell(a, view), "</tr>");
  }
  body += "</tbody></table>";
  return Layout(&ctx, "Nodes", body);
}

void AppendMailRequests(const Incident& incident, const HeldMailView& view,
                        std::string* out) {
  if (view.requests.empty()) return;
  absl::StrAppend(out, "<h2>Requests to ", Html(incident.node),
                  "</h2><ul class=\"audit\" id=\"mail-requests\">");
  for (const MailRequest& r : view.requests) {
    std::string state = r.state;
    if (r.state == "pending") {
      state = view.node_heartbeat_ms == 0
                  ? absl::StrCat("pending: ", incident.node,
                                 " has never reported to the desk; the "
                                 "request waits for it")
                  : absl::StrCat(
                        "pending: waits for ", incident.node, " (last heard ",
                        AgeText(view.node_heartbeat_ms, view.now_ms), " ago)");
    } else if (r.state == "running") {
      state = absl::StrCat("running on ", incident.node);
    } else {
      state = absl::StrCat(r.state, " ", FormatTime(r.done_ms), ": ", r.detail);
    }
    absl::StrAppend(out, "<li class=\"request-", Html(r.state), "\">",
                    Html(FormatTime(r.time_ms)), " ", Html(r.requested_by),
                    " asked to ", Html(r.action), " - ", Html(state), "</li>");
  }
  *out += "</ul>";
}

void AppendPolicyVersions(const std::vector<PolicyVersion>& versions,
                          const std::vector<NodeState>& nodes,
                          std::string* out) {
  if (versions.empty()) return;
  std::map<std::string, std::vector<std::string>> running;
  for (const NodeState& n : nodes) {
    if (n.role != "writer") running[n.policy_digest].push_back(n.name);
  }
  *out +=
      "<h2>Published versions</h2><table id=\"policy-versions\"><thead><tr>"
      "<th>Version</th><th>Published (UTC)</th><th>By</th><th>SHA-256</th>"
      "<th>Comment</th><th>Run by</th></tr></thead><tbody>";
  for (const PolicyVersion& v : versions) {
    const auto it = running.find(v.digest);
    absl::StrAppend(
        out, "<tr><td>v", v.version, "</td><td>", Html(FormatTime(v.time_ms)),
        "</td><td>", Html(v.author), "</td><td><code>",
        Html(v.digest.substr(0, 12)), "</code></td><td>", Html(v.comment),
        "</td><td>",
        it == running.end() ? "-" : Html(absl::StrJoin(it->second, ", ")),
        "</td></tr>");
  }
  *out += "</tbody></table>";
}

}  // namespace leakhound
