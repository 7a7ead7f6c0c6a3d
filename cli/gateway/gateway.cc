#include "cli/gateway/gateway.h"

#include <unistd.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/formats/ocr_cache.h"
#include "cli/gateway/data_facts.h"
#include "cli/gateway/desk_policy.h"
#include "cli/gateway/directory_groups.h"
#include "cli/incidents/fleet_status.h"
#include "cli/incidents/incident_store.h"
#include "index/trusted_path.h"

namespace leakhound {
namespace {

int64_t NowNanoseconds() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

}  // namespace

Gateway::Gateway(const GatewayOptions& options, const DaemonLog* log)
    : options_(options), log_(log), last_reload_ns_(NowNanoseconds()) {
  host_ = LocalHostName();
  node_ = options.node_name;
  if (node_.empty()) node_ = host_.empty() ? "localhost" : host_;
  started_ms_ = NowUnixMs();
}

absl::StatusOr<std::unique_ptr<Gateway>> Gateway::Open(
    const GatewayOptions& options, const DaemonLog* log) {
  std::unique_ptr<Gateway> gateway(new Gateway(options, log));
  auto holder = IndexHolder::Open(options.index_dir);
  if (!holder.ok()) return holder.status();
  gateway->holder_ = std::move(*holder);
  absl::StatusOr<std::unique_ptr<PolicySource>> policy;
  if (options.policy_file == kDeskPolicy) {
    if (!options.incidents) {
      return absl::InvalidArgumentError(
          "--policy desk needs the desk: --incidents postgresql://...");
    }
    policy = PolicySource::OpenReader(DeskPolicyReader(
        *options.incidents, DeskPolicyCachePath(options.index_dir)));
  } else {
    policy = PolicySource::Open(options.policy_file, options.builtin_policy);
  }
  if (!policy.ok()) return policy.status();
  gateway->policy_ = std::move(*policy);
  gateway->RefreshDirectoryGroups();
  if (!options.sendmail.empty()) {
    Notifier::Options n;
    n.sendmail = options.sendmail;
    n.console_url = options.console_url;
    n.digest_period = std::chrono::milliseconds(
        static_cast<int64_t>(options.digest_seconds * 1000));
    gateway->notifier_ = std::make_unique<Notifier>(n, log);
  }
  if (options.duplicate_window > 0) {
    auto cache = DuplicateCache::Create(options.duplicate_window);
    if (!cache.ok()) return cache.status();
    gateway->cache_ = std::move(*cache);
  }
  const Evidence evidence = !options.incidents       ? Evidence::kNone
                            : options.store_snippets ? Evidence::kSnippets
                                                     : Evidence::kOffsets;
  gateway->scanner_ = std::make_unique<MessageScanner>(
      gateway->holder_.get(), gateway->cache_.get(), options.scan,
      options.limits, evidence);
  auto identifiers = PolicyIdentifiers(gateway->policy_->Current().get());
  if (!identifiers.ok()) return identifiers.status();
  gateway->scanner_->SetIdentifiers(*std::move(identifiers));
  return gateway;
}

void Gateway::StartIncidents() {
  if (!options_.incidents || writer_ != nullptr) return;
  const std::string& path = *options_.incidents;
  if (auto check = IncidentStore::Open(path); !check.ok()) {
    log_->Write(absl::StrCat("incidents: ", check.status().message(),
                             "; spooling and retrying"));
  }
  IncidentWriter::Options o;
  o.spool_capacity = options_.incident_spool;
  o.spool_dir = options_.incident_spool_dir;
  if (o.spool_dir.empty()) {
    o.spool_dir = PathBesideIndex(options_.index_dir, ".incident-spool");
  }
  if (o.spool_dir == "off") o.spool_dir.clear();
  writer_ = std::make_unique<IncidentWriter>(path, o, log_->Sink());
  drip_ = std::make_unique<DripLedger>(path);
  if (options_.desk_seconds > 0) {
    DeskLink::Options d;
    d.store = path;
    d.node = node_;
    d.interval_seconds = options_.desk_seconds;
    d.mail_requests = options_.mail_requests;
    d.held_mail = options_.held_mail;
    desk_ = std::make_unique<DeskLink>(
        d, [this] { return NodeReport(); }, log_->Sink());
  }
  log_->Write(absl::StrCat(
      "recording incidents in ", RedactedTarget(path),
      options_.store_snippets ? "" : " (offsets only, no snippets)"));
  StartOutbox();
}

VerdictFacts Gateway::Facts(const Policy& policy, const Envelope& envelope,
                            const std::string& reference,
                            MessageVerdict* v) const {
  v->cumulative.clear();
  if (drip_ != nullptr && !v->spans.empty() && !reference.empty()) {
    auto sums = drip_->Account(policy, envelope.sender, envelope.channel,
                               v->spans, reference, NowUnixMs(),
                               /*record=*/true);
    if (sums.ok()) {
      v->cumulative = *std::move(sums);
    } else {
      log_->Write(absl::StrCat("cumulative: ", sums.status().message(),
                               "; judged without the earlier messages"));
    }
  }
  return FactsOf(envelope, *v);
}

void Gateway::StartOutbox() {
  if (!options_.incidents) return;
  const std::shared_ptr<const Policy> policy = policy_->Current();
  std::vector<std::unique_ptr<OutboxSender>> old;
  {
    absl::MutexLock lock(&outbox_mu_);
    bool same = senders_.size() == policy->destinations.size();
    for (size_t i = 0; same && i < senders_.size(); ++i) {
      same = senders_[i]->options().destination == policy->destinations[i] &&
             senders_[i]->options().outbox == policy->outbox;
    }
    if (same) return;
    old.swap(senders_);
  }
  old.clear();  // stops them, outside the lock (a send may take a while)
  // Registered before the first incident is written, so that it is queued
  // for them (a sender would register only on its first round).
  if (!policy->destinations.empty()) {
    auto store = IncidentStore::Open(*options_.incidents);
    for (const DestinationSettings& d : policy->destinations) {
      absl::Status s =
          store.ok() ? (*store)->RegisterDestination(d.name) : store.status();
      if (!s.ok())
        log_->Write(absl::StrCat("outbox ", d.name, ": ", s.message()));
    }
  }
  std::vector<std::unique_ptr<OutboxSender>> started;
  for (const DestinationSettings& d : policy->destinations) {
    OutboxSender::Options o;
    o.store = *options_.incidents;
    o.destination = d;
    o.outbox = policy->outbox;
    o.console_url = options_.console_url;
    started.push_back(std::make_unique<OutboxSender>(o, log_->Sink()));
    started.back()->Start();
    log_->Write(absl::StrCat(
        "outbox: sending to ", d.name, " (", d.webhook ? "webhook " : "syslog ",
        d.url, d.webhook ? "" : absl::StrCat(", ", d.format), ")"));
  }
  absl::MutexLock lock(&outbox_mu_);
  senders_.swap(started);
}

IncidentSink Gateway::Recorder() {
  if (writer_ == nullptr) return nullptr;
  IncidentWriter* writer = writer_.get();
  return [writer, node = node_](Incident incident) {
    incident.node = node;
    writer->Submit(std::move(incident));
  };
}

NodeState Gateway::NodeReport() const {
  NodeState n;
  n.name = node_;
  n.role = options_.node_role;
  n.version = LEAKHOUND_VERSION;
  n.host = host_;
  n.pid = ::getpid();
  n.started_ms = started_ms_;
  const MilterMetrics::Gauges g = gauges();
  n.index_generation = static_cast<int64_t>(g.index_generation);
  n.index_documents = static_cast<int64_t>(g.index_documents);
  n.policy_digest = policy_->digest();
  n.policy_version = policy_->version();
  n.spool_depth = static_cast<int64_t>(g.incidents_spooled);
  n.spool_oldest_ms = g.incident_spool_oldest_ms;
  return n;
}

void Gateway::Reload(const char* why) {
  ReloadPolicy(why);
  RefreshDirectoryGroups();
  const int64_t start_ns = NowNanoseconds();
  auto changed = holder_->Reload();
  if (!changed.ok()) {
    log_->Write(absl::StrCat("reload failed (", why,
                             "): ", changed.status().message()));
    return;
  }
  last_reload_ns_ = NowNanoseconds();
  if (*changed) {
    const IndexHolder::Snapshot now = holder_->Current();
    log_->Write(absl::StrCat(
        "index reloaded (", why, "): generation ", now.generation, " (",
        now.index->rows_read(), " of ", now.index->matrix().rows().size(),
        " rows read, ", (last_reload_ns_ - start_ns) / 1000000, " ms)"));
  }
}

void Gateway::ReloadPolicy(const char* why) {
  absl::StatusOr<bool> changed = policy_->Reload();
  if (!changed.ok()) {
    log_->Write(absl::StrCat("policy not reloaded (", why,
                             "): ", changed.status().message(),
                             "; the previous policy stays in force"));
  } else if (*changed) {
    log_->Write(absl::StrCat("policy reloaded (", why,
                             "): ", policy_->Current()->path, ", ",
                             policy_->Current()->rules.size(), " rules"));
    auto identifiers = PolicyIdentifiers(policy_->Current().get());
    if (identifiers.ok()) {
      scanner_->SetIdentifiers(*std::move(identifiers));
    } else {
      log_->Write(absl::StrCat(
          "data identifiers not reloaded: ", identifiers.status().message(),
          "; the previous ones stay in force"));
    }
    if (writer_ != nullptr) StartOutbox();
  }
}

std::shared_ptr<const Policy> Gateway::policy() const {
  absl::MutexLock lock(&policy_mu_);
  return expanded_;
}

void Gateway::RefreshDirectoryGroups() {
  const std::shared_ptr<const Policy> raw = policy_->Current();
  std::shared_ptr<const Policy> previous;
  {
    absl::MutexLock lock(&policy_mu_);
    const bool fresh =
        raw->directory_groups.empty() ||
        std::chrono::steady_clock::now() - expanded_at_ <
            std::chrono::duration<double>(raw->directory->cache_seconds);
    if (expanded_from_ == raw && fresh) return;
    if (raw->directory_groups.empty()) {
      expanded_ = expanded_from_ = raw;
      return;
    }
    previous = expanded_;
  }
  std::vector<std::string> errors;
  absl::StatusOr<Directory> directory = OpenDirectory(*raw->directory);
  std::shared_ptr<const Policy> expanded;
  if (directory.ok()) {
    expanded = std::make_shared<const Policy>(
        ExpandDirectoryGroups(*raw, *directory, previous.get(), &errors));
  } else {
    errors.emplace_back(directory.status().message());
    expanded = previous != nullptr && previous->directory_groups ==
                                          raw->directory_groups
                   ? previous
                   : raw;
  }
  for (const std::string& e : errors) {
    directory_failures_.fetch_add(1);
    log_->Write(absl::StrCat("directory groups: ", e,
                             "; the members read before (if any) stay"));
  }
  size_t members = 0;
  for (const auto& [name, dn] : raw->directory_groups) {
    auto it = expanded->groups.find(name);
    if (it != expanded->groups.end()) members += it->second.size();
  }
  if (errors.empty()) {
    log_->Write(absl::StrCat("directory groups: ", raw->directory_groups.size(),
                             " read, ", members, " addresses"));
  }
  absl::MutexLock lock(&policy_mu_);
  expanded_ = std::move(expanded);
  expanded_from_ = raw;
  expanded_at_ = std::chrono::steady_clock::now();
}

void Gateway::LogPolicy() const {
  const std::shared_ptr<const Policy> p = policy_->Current();
  log_->Write(absl::StrCat("policy: ", p->path, ", ", p->rules.size(),
                           p->rules.size() == 1 ? " rule" : " rules"));
}

MilterMetrics::Gauges Gateway::gauges() const {
  MilterMetrics::Gauges g;
  const IndexHolder::Snapshot snapshot = holder_->Current();
  g.index_generation = snapshot.generation;
  g.index_documents = snapshot.index->matrix().documents();
  g.policy_rules = policy_->Current()->rules.size();
  g.policy_reload_failures = policy_->failures();
  g.directory_failures = directory_failures_.load();
  g.seconds_since_reload =
      static_cast<double>(NowNanoseconds() - last_reload_ns_.load()) / 1e9;
  if (cache_ != nullptr) {
    const DuplicateCache::Stats s = cache_->stats();
    g.duplicate_lookups = s.lookups;
    g.duplicate_hits = s.hits;
  }
  g.ocr_cache_hits = OcrCache::Instance().hits();
  g.ocr_cache_misses = OcrCache::Instance().misses();
  g.ocr_cache_bytes = OcrCache::Instance().bytes();
  if (writer_ != nullptr) {
    const IncidentWriter::Counters c = writer_->counters();
    g.incidents_written = c.written;
    g.incidents_dropped = c.dropped;
    g.incidents_queued = c.spooled;
    g.incidents_spooled = c.disk_spooled;
    g.incident_spool_oldest_ms = c.oldest_spooled_ms;
  }
  if (desk_ != nullptr) {
    const DeskLink::Counters d = desk_->counters();
    g.desk_heartbeat_ms = d.last_heartbeat_ms;
    g.desk_failures = d.failures;
    g.writer_generation = d.writer_generation;
    g.index_behind = d.behind;
    g.policy_differs = d.other_policy;
  }
  absl::MutexLock lock(&outbox_mu_);
  for (const auto& sender : senders_) {
    OutboxDestinationState state = sender->snapshot().state;
    state.name = sender->options().destination.name;
    g.outbox.push_back(std::move(state));
  }
  return g;
}

absl::StatusOr<std::unique_ptr<MetricsServer>> Gateway::StartMetrics(
    const std::string& address, const MilterMetrics* metrics) {
  auto started = MetricsServer::Start(
      address, [this, metrics] { return metrics->Render(gauges()); });
  if (!started.ok()) return started.status();
  log_->Write(absl::StrCat("metrics at http://", address, "/metrics"));
  return started;
}

void Gateway::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (cache_ != nullptr) {
    const DuplicateCache::Stats s = cache_->stats();
    log_->Write(absl::StrFormat(
        "duplicate cache: %d lookups, %d filter positives, %d hits (%.1f %%)",
        s.lookups, s.filter_positives, s.hits,
        s.lookups == 0 ? 0.0
                       : 100.0 * static_cast<double>(s.hits) /
                             static_cast<double>(s.lookups)));
  }
  if (notifier_ != nullptr) {
    notifier_->Stop();
    const Notifier::Counters c = notifier_->counters();
    log_->Write(absl::StrFormat("notices: %d sent, %d failed, %d dropped",
                                c.sent, c.failed, c.dropped));
  }
  std::vector<std::unique_ptr<OutboxSender>> senders;
  {
    absl::MutexLock lock(&outbox_mu_);
    senders.swap(senders_);
  }
  for (const auto& sender : senders) {
    sender->Stop();
    const OutboxDestinationState& d = sender->snapshot().state;
    log_->Write(absl::StrFormat(
        "outbox %s: %d delivered, %d pending, %d failed, %d dropped",
        sender->options().destination.name, d.delivered, d.pending, d.failed,
        d.dropped));
  }
  if (desk_ != nullptr) desk_->Stop();
  if (writer_ != nullptr) {
    writer_->Stop(5);
    const IncidentWriter::Counters c = writer_->counters();
    log_->Write(absl::StrFormat(
        "incidents: %d recorded, %d written, %d dropped, %d failed writes",
        c.submitted, c.written, c.dropped, c.failed_writes));
  }
}

}  // namespace leakhound
