#include "cli/gateway/drip_ledger.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"

namespace leakhound {
namespace {

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kExpiryEveryMs = 3'600'000;

void AddWindow(const PolicyConditions& c,
               std::vector<std::pair<std::string, uint32_t>>* out) {
  if (!c.cumulative) return;
  std::pair<std::string, uint32_t> w{c.cumulative->per, c.cumulative->days};
  if (std::find(out->begin(), out->end(), w) == out->end()) out->push_back(w);
}

// The measure of the union of [begin, end) ranges.
uint32_t Covered(std::vector<std::pair<uint32_t, uint32_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0;
  uint32_t reach = 0;
  for (const auto& [b, e] : ranges) {
    const uint32_t from = std::max(b, reach);
    if (e > from) covered += e - from;
    reach = std::max(reach, e);
  }
  return static_cast<uint32_t>(covered);
}

// The sum of one window for one target.
CumulativeFact SumOne(const std::pair<std::string, uint32_t>& window,
                      const std::string& target,
                      const std::vector<const DripSpan*>& spans,
                      const std::string& reference, int64_t since_ms) {
  CumulativeFact f;
  f.per = window.first;
  f.days = window.second;
  f.target = target;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  std::set<std::string> rows;
  std::set<std::string> seen = {reference};
  uint32_t total = 0;
  for (const DripSpan* s : spans) {
    if (s->target != target || s->time_ms < since_ms) continue;
    if (s->row.empty()) {
      ranges.emplace_back(s->begin, s->end);
      total = std::max(total, s->total);
    } else {
      rows.insert(s->row);
    }
    if (!s->reference.empty() && seen.insert(s->reference).second) {
      f.earlier.push_back(s->reference);
    }
  }
  f.words = Covered(std::move(ranges));
  f.share =
      total == 0 ? 0 : std::min(1.0, static_cast<double>(f.words) / total);
  f.rows = static_cast<uint32_t>(rows.size());
  return f;
}

std::vector<std::string> TargetsOf(const std::vector<DripSpan>& spans) {
  std::vector<std::string> out;
  for (const DripSpan& s : spans) {
    if (std::find(out.begin(), out.end(), s.target) == out.end()) {
      out.push_back(s.target);
    }
  }
  return out;
}

uint32_t LongestDays(
    const std::vector<std::pair<std::string, uint32_t>>& windows,
    const std::string& per) {
  uint32_t days = 0;
  for (const auto& [p, d] : windows) {
    if (per.empty() || p == per) days = std::max(days, d);
  }
  return days;
}

}  // namespace

std::vector<std::pair<std::string, uint32_t>> CumulativeWindows(
    const Policy& policy) {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (const PolicyRule& r : policy.rules) {
    AddWindow(r.when, &out);
    for (const PolicyConditions& u : r.unless) AddWindow(u, &out);
  }
  return out;
}

std::string SenderDomain(const std::string& sender) {
  const size_t at = sender.rfind('@');
  return absl::AsciiStrToLower(at == std::string::npos ? sender
                                                       : sender.substr(at + 1));
}

std::vector<CumulativeFact> SumDrip(
    const std::vector<std::pair<std::string, uint32_t>>& windows,
    const std::vector<DripSpan>& earlier, const std::vector<DripSpan>& own,
    const std::string& reference, int64_t now_ms) {
  std::vector<CumulativeFact> out;
  const std::vector<std::string> targets = TargetsOf(own);
  for (const auto& window : windows) {
    std::vector<const DripSpan*> spans;
    for (const DripSpan& s : own) spans.push_back(&s);
    for (const DripSpan& s : earlier) {
      // A sender window reads only that sender's spans; the store was
      // asked by domain when any window is per domain.
      if (window.first == "sender" && !own.empty() &&
          s.sender != own.front().sender) {
        continue;
      }
      spans.push_back(&s);
    }
    const int64_t since = now_ms - int64_t{window.second} * kDayMs;
    for (const std::string& t : targets) {
      out.push_back(SumOne(window, t, spans, reference, since));
    }
  }
  return out;
}

DripLedger::DripLedger(std::string store) : target_(std::move(store)) {}

absl::Status DripLedger::OpenLocked() {
  if (store_ != nullptr) return absl::OkStatus();
  IncidentStore::Options options;
  options.create = false;
  auto store = IncidentStore::Open(target_, options);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DripSpan>> DripLedger::Earlier(
    const std::vector<std::pair<std::string, uint32_t>>& windows,
    const std::string& sender, const std::vector<std::string>& targets,
    int64_t until_ms) {
  // One read: by domain when any window is per domain (it holds the
  // sender's own), else by sender; as far back as the longest window.
  const bool by_domain = LongestDays(windows, "sender-domain") > 0;
  const int64_t since = until_ms - int64_t{LongestDays(windows, "")} * kDayMs;
  return store_->DripSpans(by_domain, by_domain ? SenderDomain(sender) : sender,
                           targets, since, until_ms);
}

absl::StatusOr<std::vector<CumulativeFact>> DripLedger::Account(
    const Policy& policy, const std::string& sender, const std::string& channel,
    std::vector<DripSpan> spans, const std::string& reference, int64_t now_ms,
    bool record) {
  std::vector<CumulativeFact> out;
  if (spans.empty() || sender.empty()) return out;
  const std::string who = absl::AsciiStrToLower(sender);
  for (DripSpan& s : spans) {
    s.sender = who;
    s.domain = SenderDomain(who);
    s.time_ms = now_ms;
    s.channel = channel;
    s.reference = reference;
  }
  const auto windows = CumulativeWindows(policy);
  absl::MutexLock lock(&mu_);
  absl::Status s = OpenLocked();
  if (s.ok() && !windows.empty()) {
    auto earlier = Earlier(windows, who, TargetsOf(spans), now_ms);
    if (earlier.ok()) {
      out = SumDrip(windows, *earlier, spans, reference, now_ms);
    } else {
      s = earlier.status();
    }
  }
  if (s.ok() && record) s = store_->AddDripSpans(spans);
  if (s.ok() && now_ms - last_expiry_ms_ > kExpiryEveryMs) {
    last_expiry_ms_ = now_ms;
    const uint32_t keep = std::max(kMinKeepDays, LongestDays(windows, ""));
    s = store_->ExpireDripSpans(now_ms - int64_t{keep} * kDayMs).status();
  }
  if (!s.ok()) {
    store_.reset();  // opened again on the next message
    return s;
  }
  return out;
}

absl::StatusOr<std::vector<CumulativeFact>> DripLedger::AsOf(
    const Policy& policy, const std::string& sender,
    const std::vector<std::string>& targets, const std::string& reference,
    int64_t at_ms) {
  const auto windows = CumulativeWindows(policy);
  if (windows.empty() || targets.empty() || sender.empty()) {
    return std::vector<CumulativeFact>{};
  }
  const std::string who = absl::AsciiStrToLower(sender);
  absl::MutexLock lock(&mu_);
  if (absl::Status s = OpenLocked(); !s.ok()) return s;
  auto earlier = Earlier(windows, who, targets, at_ms);
  if (!earlier.ok()) {
    store_.reset();
    return earlier.status();
  }
  // The message's own spans are among them (same reference): the sums
  // hold them as own, the earlier ones as earlier.
  std::vector<DripSpan> own;
  std::vector<DripSpan> before;
  for (DripSpan& d : *earlier) {
    if (d.reference == reference) {
      own.push_back(std::move(d));
    } else {
      before.push_back(std::move(d));
    }
  }
  if (own.empty()) return std::vector<CumulativeFact>{};
  return SumDrip(windows, before, own, reference, at_ms);
}

}  // namespace leakhound
