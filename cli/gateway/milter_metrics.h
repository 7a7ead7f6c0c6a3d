// MilterMetrics: the mail gateway's counters and histograms, rendered in
// the Prometheus text exposition format (version 0.0.4) for
// `leakhound milter --metrics` (metrics_server.h). Metric names and label
// values are documented in docs/mail-gateway.md ("Metrics") and are a
// contract for dashboards and alerts.
//
// Thread-safety: every method is thread-safe (one mutex; a message costs
// one lock).
#ifndef LEAKHOUND_CLI_GATEWAY_MILTER_METRICS_H_
#define LEAKHOUND_CLI_GATEWAY_MILTER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

class MilterMetrics {
 public:
  // Upper bounds of the latency histograms' buckets, in seconds.
  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1,    0.25,  0.5,    1,     2.5,  5,     30};

  // One message judged (or skipped): its verdict ("clean", "leak",
  // "error", "skipped"), the action taken, the time it waited for a slot
  // and spent extracting and scanning, and its size.
  void CountMessage(std::string_view verdict, std::string_view action,
                    double wait_seconds, double scan_seconds, uint64_t bytes);
  // A message that could not be judged, by cause ("oversize", "no_slot",
  // "unreadable").
  void CountError(std::string_view cause);
  // A part without readable text, by its class ("no-text", "unsupported",
  // "limit").
  void CountUnread(std::string_view unread_class);

  // Values read at scrape time from their owners.
  struct Gauges {
    uint64_t index_generation = 0;
    uint64_t index_documents = 0;
    double seconds_since_reload = 0;
    uint64_t duplicate_lookups = 0;
    uint64_t duplicate_hits = 0;
    uint64_t ocr_cache_hits = 0;  // OcrCache: images read once
    uint64_t ocr_cache_misses = 0;
    uint64_t ocr_cache_bytes = 0;
    uint64_t incidents_written = 0;
    uint64_t incidents_dropped = 0;
    // The fleet's desk (desk_link.h); desk_heartbeat_ms 0: none yet.
    int64_t desk_heartbeat_ms = 0;
    uint64_t desk_failures = 0;
    int64_t writer_generation = 0;
    bool index_behind = false;
    bool policy_differs = false;
    uint64_t incidents_queued = 0;         // in memory, waiting for the store
    uint64_t incidents_spooled = 0;        // in the spool folder
    int64_t incident_spool_oldest_ms = 0;  // 0: none
    uint64_t policy_rules = 0;
    uint64_t policy_reload_failures = 0;
    uint64_t directory_failures = 0;
    // The outbox's destinations this process sends to, as the store had
    // them at their sender's last round.
    std::vector<OutboxDestinationState> outbox;
  };

  // The exposition text: every metric with HELP and TYPE lines.
  std::string Render(const Gauges& gauges) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};  // not cumulative
    uint64_t count = 0;
    double sum = 0;
    void Observe(double seconds);
  };

  mutable absl::Mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> messages_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> errors_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> unread_ ABSL_GUARDED_BY(mu_);
  Histogram wait_ ABSL_GUARDED_BY(mu_);
  Histogram scan_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_MILTER_METRICS_H_
