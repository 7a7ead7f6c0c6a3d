#include "cli/gateway/milter_metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

// A label value in the exposition format: \ " and newline escaped.
std::string LabelValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void Header(std::string& out, const char* name, const char* type,
            const char* help) {
  absl::StrAppend(&out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ",
                  type, "\n");
}

std::string Number(double v) { return absl::StrFormat("%.17g", v); }

// A metric without labels: its header and its one sample.
void Scalar(std::string& out, const char* name, const char* type,
            const char* help, const absl::AlphaNum& value) {
  Header(out, name, type, help);
  absl::StrAppend(&out, name, " ", value, "\n");
}

// The outbox's figures per destination (docs/siem.md, "Metrics").
void RenderOutbox(std::string& out,
                  const std::vector<OutboxDestinationState>& outbox) {
  if (outbox.empty()) return;
  struct Metric {
    const char* name;
    const char* type;
    const char* help;
    int64_t (*value)(const OutboxDestinationState&);
  };
  static constexpr Metric kMetrics[] = {
      {"leakhound_outbox_queued_total", "counter",
       "Events queued for the destination since it was registered.",
       [](const OutboxDestinationState& d) { return d.queued(); }},
      {"leakhound_outbox_delivered_total", "counter",
       "Events the destination accepted.",
       [](const OutboxDestinationState& d) { return d.delivered; }},
      {"leakhound_outbox_retried_total", "counter",
       "Attempts that failed and were tried again.",
       [](const OutboxDestinationState& d) { return d.retried; }},
      {"leakhound_outbox_failed_total", "counter",
       "Events the destination refused for good.",
       [](const OutboxDestinationState& d) { return d.failed; }},
      {"leakhound_outbox_dropped_total", "counter",
       "Events dropped unsent by the outbox's age or size bound.",
       [](const OutboxDestinationState& d) { return d.dropped; }},
      {"leakhound_outbox_skipped_total", "counter",
       "Events not for the destination (its severities, channels, events).",
       [](const OutboxDestinationState& d) { return d.skipped; }},
      {"leakhound_outbox_pending", "gauge", "Events waiting to be sent.",
       [](const OutboxDestinationState& d) { return d.pending; }},
  };
  for (const Metric& m : kMetrics) {
    Header(out, m.name, m.type, m.help);
    for (const OutboxDestinationState& d : outbox) {
      absl::StrAppend(&out, m.name, "{destination=\"", LabelValue(d.name),
                      "\"} ", m.value(d), "\n");
    }
  }
  Header(out, "leakhound_outbox_oldest_pending_seconds", "gauge",
         "Age of the oldest event waiting (0: none).");
  const int64_t now = NowUnixMs();
  for (const OutboxDestinationState& d : outbox) {
    const double age =
        d.oldest_pending_ms == 0
            ? 0.0
            : static_cast<double>(now - d.oldest_pending_ms) / 1000.0;
    absl::StrAppend(&out,
                    "leakhound_outbox_oldest_pending_seconds{destination=\"",
                    LabelValue(d.name), "\"} ", Number(age), "\n");
  }
}

// The fleet's desk (desk_link.h) and the incidents waiting for the store.
void RenderDesk(std::string& out, const MilterMetrics::Gauges& g) {
  const int64_t now = NowUnixMs();
  // Seconds since `ms`, or `none` for 0 (never).
  auto since = [now](int64_t ms, double none) {
    return ms == 0 ? none : static_cast<double>(now - ms) / 1000.0;
  };
  Scalar(out, "leakhound_desk_heartbeat_seconds", "gauge",
         "Seconds since this node last reported to the desk (-1: never).",
         Number(since(g.desk_heartbeat_ms, -1.0)));
  Scalar(out, "leakhound_desk_failures_total", "counter",
         "Rounds in which the desk could not be reached.", g.desk_failures);
  Scalar(out, "leakhound_desk_writer_generation", "gauge",
         "The index generation the desk's writer serves.", g.writer_generation);
  Scalar(out, "leakhound_index_behind_writer", "gauge",
         "1 when this node has not taken the writer's generation in time.",
         g.index_behind ? 1 : 0);
  Scalar(out, "leakhound_policy_differs_from_published", "gauge",
         "1 when this node enforces another policy than the published one.",
         g.policy_differs ? 1 : 0);
  Scalar(out, "leakhound_incidents_queued", "gauge",
         "Incident records in memory, waiting for the store.",
         g.incidents_queued);
  Scalar(out, "leakhound_incident_spool_depth", "gauge",
         "Incident records in the durable spool, waiting for the store.",
         g.incidents_spooled);
  Scalar(out, "leakhound_incident_spool_oldest_seconds", "gauge",
         "Age of the oldest incident in the spool (0: empty).",
         Number(std::max(0.0, since(g.incident_spool_oldest_ms, 0.0))));
}

}  // namespace

void MilterMetrics::Histogram::Observe(double seconds) {
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++buckets[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

void MilterMetrics::CountMessage(std::string_view verdict,
                                 std::string_view action, double wait_seconds,
                                 double scan_seconds, uint64_t bytes) {
  absl::MutexLock lock(&mu_);
  ++messages_[{std::string(verdict), std::string(action)}];
  wait_.Observe(wait_seconds);
  scan_.Observe(scan_seconds);
  bytes_ += bytes;
}

void MilterMetrics::CountError(std::string_view cause) {
  absl::MutexLock lock(&mu_);
  ++errors_[std::string(cause)];
}

void MilterMetrics::CountUnread(std::string_view unread_class) {
  absl::MutexLock lock(&mu_);
  ++unread_[std::string(unread_class)];
}

std::string MilterMetrics::Render(const Gauges& g) const {
  absl::MutexLock lock(&mu_);
  std::string out;
  Header(out, "leakhound_milter_messages_total", "counter",
         "Messages answered, by verdict and action.");
  for (const auto& [key, n] : messages_) {
    absl::StrAppend(&out, "leakhound_milter_messages_total{verdict=\"",
                    LabelValue(key.first), "\",action=\"",
                    LabelValue(key.second), "\"} ", n, "\n");
  }
  auto histogram = [&](const char* name, const char* help, const Histogram& h) {
    Header(out, name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      absl::StrAppend(&out, name, "_bucket{le=\"", absl::StrCat(kBuckets[i]),
                      "\"} ", cumulative, "\n");
    }
    absl::StrAppend(&out, name, "_bucket{le=\"+Inf\"} ", h.count, "\n", name,
                    "_sum ", Number(h.sum), "\n", name, "_count ", h.count,
                    "\n");
  };
  histogram("leakhound_milter_scan_seconds",
            "Time extracting and scanning a message.", scan_);
  histogram("leakhound_milter_wait_seconds",
            "Time a message waited for a scanning slot.", wait_);
  Scalar(out, "leakhound_milter_scanned_bytes_total", "counter",
         "Bytes of messages buffered and judged.", bytes_);
  Header(out, "leakhound_milter_errors_total", "counter",
         "Messages that could not be judged, by cause.");
  for (const auto& [cause, n] : errors_) {
    absl::StrAppend(&out, "leakhound_milter_errors_total{cause=\"",
                    LabelValue(cause), "\"} ", n, "\n");
  }
  Header(out, "leakhound_milter_unread_parts_total", "counter",
         "Message parts without readable text, by class.");
  for (const auto& [c, n] : unread_) {
    absl::StrAppend(&out, "leakhound_milter_unread_parts_total{class=\"",
                    LabelValue(c), "\"} ", n, "\n");
  }
  Scalar(out, "leakhound_milter_duplicate_lookups_total", "counter",
         "Messages looked up in the duplicate cache.", g.duplicate_lookups);
  Scalar(out, "leakhound_milter_duplicate_hits_total", "counter",
         "Verdicts reused from the duplicate cache.", g.duplicate_hits);
  Scalar(out, "leakhound_ocr_cache_hits_total", "counter",
         "OCR cache lookups answered (an image by its bytes; a scanned PDF "
         "page by its file and number, then by its pixels).",
         g.ocr_cache_hits);
  Scalar(out, "leakhound_ocr_cache_misses_total", "counter",
         "OCR cache lookups not answered.", g.ocr_cache_misses);
  Scalar(out, "leakhound_ocr_cache_bytes", "gauge",
         "Bytes of readings in the OCR cache.", g.ocr_cache_bytes);
  Scalar(out, "leakhound_index_generation", "gauge",
         "The index generation being served.", g.index_generation);
  Scalar(out, "leakhound_index_documents", "gauge",
         "Protected documents in the index being served.", g.index_documents);
  Scalar(out, "leakhound_index_seconds_since_reload", "gauge",
         "Seconds since the index was last loaded or found current.",
         Number(g.seconds_since_reload));
  Scalar(out, "leakhound_incidents_written_total", "counter",
         "Incident records written to the store.", g.incidents_written);
  Scalar(out, "leakhound_incidents_dropped_total", "counter",
         "Incident records dropped (spool full, or left at stop).",
         g.incidents_dropped);
  RenderDesk(out, g);
  Scalar(out, "leakhound_policy_rules", "gauge",
         "Rules of the policy in force.", g.policy_rules);
  Scalar(out, "leakhound_policy_reload_failures_total", "counter",
         "Policy reloads refused (the file did not parse; the previous "
         "policy stayed in force).",
         g.policy_reload_failures);
  Scalar(out, "leakhound_directory_failures_total", "counter",
         "Directory groups that could not be read (their members read "
         "before stayed).",
         g.directory_failures);
  RenderOutbox(out, g.outbox);
  return out;
}

}  // namespace leakhound
