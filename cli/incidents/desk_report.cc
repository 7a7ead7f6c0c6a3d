#include "cli/incidents/desk_report.h"

#include <algorithm>
#include <map>

namespace leakhound {
namespace {

bool Allowed(const std::vector<std::string>& allowed, const std::string& v) {
  return allowed.empty() ||
         std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

// `counts` most first (then by name), at most `n`.
std::vector<NamedCount> Top(const std::map<std::string, int64_t>& counts,
                            size_t n) {
  std::vector<NamedCount> out;
  for (const auto& [name, count] : counts) out.push_back({name, count});
  std::stable_sort(out.begin(), out.end(),
                   [](const NamedCount& a, const NamedCount& b) {
                     return a.count > b.count;
                   });
  if (out.size() > n) out.resize(n);
  return out;
}

int64_t Percentile(std::vector<int64_t>& v, int percent) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) * static_cast<size_t>(percent) / 100];
}

}  // namespace

bool ReportSpec::Wants(const std::string& section) const {
  return sections.empty() ||
         std::find(sections.begin(), sections.end(), section) != sections.end();
}

absl::StatusOr<DeskReport> BuildDeskReport(IncidentStore& store,
                                           const ReportSpec& spec) {
  DeskReport r;
  r.spec = spec;
  std::map<std::string, int64_t> severity, rule, channel, sender, document;
  std::vector<int64_t> review;
  IncidentFilter f;
  f.since_ms = spec.since_ms;
  f.until_ms = spec.until_ms;
  absl::Status st = store.ForEach(
      f,
      [&](const Incident& i) -> absl::Status {
        const std::string sev = i.severity.empty() ? "none" : i.severity;
        if (!Allowed(spec.channels, ChannelOf(i.source)) ||
            !Allowed(spec.severities, i.severity)) {
          return absl::OkStatus();
        }
        ++r.incidents;
        ++severity[sev];
        for (const IncidentRule& x : i.rules) ++rule[x.rule];
        ++channel[ChannelOf(i.source)];
        ++sender[IncidentOrigin(i)];
        for (const std::string& d : i.documents) ++document[d];
        if (i.status == "open") {
          ++r.still_open;
        } else if (i.reviewed_ms >= i.time_ms) {
          ++r.resolved;
          review.push_back(i.reviewed_ms - i.time_ms);
        }
        return absl::OkStatus();
      },
      IncidentStore::Load::kDecision);
  if (!st.ok()) return st;
  r.by_severity = Top(severity, 10);
  r.by_rule = Top(rule, 20);
  r.by_channel = Top(channel, 10);
  r.by_sender = Top(sender, 20);
  r.by_document = Top(document, 20);
  r.review_p50_ms = Percentile(review, 50);
  r.review_p90_ms = Percentile(review, 90);
  auto used = store.OverridesUsed(spec.since_ms, spec.until_ms, 1000);
  if (!used.ok()) return used.status();
  for (UsedOverride& u : *used) {
    if (Allowed(spec.channels, ChannelOf(u.source))) {
      r.overrides.push_back(std::move(u));
    }
  }
  return r;
}

}  // namespace leakhound
