#include "cli/commands/milter_command.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string_view>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/incidents/incident_store.h"
#include "cli/incidents/incident_writer.h"
#include "cli/gateway/duplicate_cache.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/message_verdict.h"
#include "cli/gateway/metrics_server.h"
#include "cli/gateway/milter_metrics.h"
#include "cli/milter/milter_server.h"
#include "cli/gateway/service_notifier.h"

namespace leakhound {
namespace {

const char* MilterUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound milter --index DIR --socket inet:PORT@HOST|unix:/PATH "
      "[--config FILE] [options]\n"
      "  The mail-gateway hook (Postfix smtpd_milters, Sendmail "
      "INPUT_MAIL_FILTER): runs in\n"
      "  the foreground until SIGTERM; SIGHUP (and every --reload-seconds) "
      "picks up\n"
      "  changes to the index. docs/mail-gateway.md has every option.\n"
      "  --config FILE          options, one 'name = value' per line ('#' "
      "comments)\n"
      "  --pidfile FILE         write the daemon's pid there\n"
      "  --syslog               log to syslog (mail facility), not standard "
      "error\n"
      "  --on-leak ACTION       reject (default), quarantine, tag, accept, "
      "tempfail\n"
      "  --on-error ACTION      tempfail (default), accept, reject\n"
      "  --on-oversize ACTION   reject (default), accept, tempfail\n"
      "  --on-unreadable ACTION a clean message with parts leakhound could "
      "not read\n"
      "                         (images without text, unknown binary data): "
      "tag (default:\n"
      "                         X-Leakhound-Unread names them), accept, "
      "quarantine,\n"
      "                         reject, tempfail\n"
      "  --reject-text TEXT     the 550 5.7.1 reply's text\n"
      "  --show-matches         name the matched documents in the reply\n"
      "  --status-header        add X-Leakhound-Status to every delivered "
      "message\n"
      "  --max-message-size N   bytes buffered per message (default ",
      MilterPolicy{}.max_message_bytes, ")\n"
      "  --max-concurrent N     messages judged at once (default: one per "
      "core)\n"
      "  --max-wait S           seconds a message waits for its turn "
      "(default ", MilterPolicy{}.max_wait_seconds, ")\n"
      "  --allow-sender ADDR    never scan mail from ADDR or @DOMAIN "
      "(repeatable)\n"
      "  --allow-recipient ADDR never scan mail whose recipients are all "
      "listed (repeatable)\n"
      "  --reload-seconds S     catch up with the index this often (default "
      "10; 0: on SIGHUP only)\n"
      "  --duplicate-window N   messages the duplicate cache remembers "
      "(default 10000; 0: off)\n"
      "  --incidents FILE|off   record leaks, errors and unread parts there "
      "(default:\n"
      "                         INDEX_DIR.incidents; docs/console.md)\n"
      "  --store-snippets on|off  keep the outbound text around each passage "
      "(default on)\n"
      "  --incident-spool N     records waiting for the store, at most "
      "(default 10000)\n"
      "  --metrics HOST:PORT    serve Prometheus metrics at /metrics there "
      "(e.g. 127.0.0.1:9527)\n"
      "  --min-words, --min-coverage, --boilerplate-docs,\n"
      "  --min-distinctive-words, --no-word-checks: as for scan\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// Options of a --config file, as "--name=value" arguments (placed before
// the command line's, so that the command line wins). Each name is checked
// against `specs` here, so that a mistake is reported as FILE:LINE;
// `origins` gets "FILE:LINE" for each option's last line, so that a bad
// value is reported there too (WhereFrom).
absl::StatusOr<std::vector<std::string>> ConfigArguments(
    const std::string& path, std::span<const OptionSpec> specs,
    std::map<std::string, std::string>* origins) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read config ", path));
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_last_not_of(" \t\r");
    line = line.substr(b, e - b + 1);
    const size_t sep = line.find_first_of("= \t");
    std::string name = line.substr(0, sep), value;
    if (sep != std::string::npos) {
      const size_t v = line.find_first_not_of("= \t", sep);
      if (v != std::string::npos) value = line.substr(v);
    }
    if (name.empty() || name == "config") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": expected 'name = value'"));
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": unknown option '", name, "'"));
    }
    if (spec->takes_value && value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": '", name, "' needs a value"));
    }
    if (!spec->takes_value && !value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", n, ": '", name, "' takes no value"));
    }
    out.push_back(value.empty() ? absl::StrCat("--", name)
                                : absl::StrCat("--", name, "=", value));
    (*origins)[name] = absl::StrCat(path, ":", n);
  }
  return out;
}

// `s`, an error about an option ("--NAME ..."), with the FILE:LINE of the
// config file before it when that option's value came from there (the
// command line, `given`, did not set it).
absl::Status WhereFrom(const absl::Status& s,
                       const std::map<std::string, std::string>& origins,
                       const CommandLine& given) {
  std::string_view message(s.message().data(), s.message().size());
  if (!message.starts_with("--")) return s;
  const std::string name(
      message.substr(2, message.find_first_of(": =", 2) - 2));
  auto origin = origins.find(name);
  if (origin == origins.end() || given.Has(name)) return s;
  return absl::Status(s.code(), absl::StrCat(origin->second, ": ", s.message()));
}

// The signals the daemon handles, written to a pipe by the handler.
int g_signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  const char c = static_cast<char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe[1], &c, 1);
}

class Logger {
 public:
  explicit Logger(bool use_syslog) : syslog_(use_syslog) {
    if (syslog_) ::openlog("leakhound", LOG_PID, LOG_MAIL);
  }
  void operator()(const std::string& line) {
    if (syslog_) {
      ::syslog(LOG_INFO, "%s", line.c_str());
    } else {
      std::fprintf(stderr, "leakhound milter: %s\n", line.c_str());
    }
  }

 private:
  bool syslog_;
};

}  // namespace

int RunMilterCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true},          {"socket", true},
      {"config", true},         {"pidfile", true},
      {"syslog", false},        {"on-leak", true},
      {"on-error", true},       {"on-oversize", true},
      {"on-unreadable", true},
      {"reject-text", true},    {"show-matches", false},
      {"status-header", false}, {"max-message-size", true},
      {"max-concurrent", true}, {"max-wait", true},
      {"allow-sender", true},   {"allow-recipient", true},
      {"reload-seconds", true}, {"duplicate-window", true},
      {"min-words", true},      {"min-coverage", true},
      {"boilerplate-docs", true}, {"min-distinctive-words", true},
      {"no-word-checks", false},
      {"incidents", true},
      {"store-snippets", true},   {"incident-spool", true},
      {"metrics", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto first = ParseCommandLine("milter", argc, argv, kAllSpecs, MilterUsage(), &exit);
  if (!first) return exit;
  // A config file's options go first, so the command line overrides them.
  std::vector<std::string> args = {argv[0]};
  std::map<std::string, std::string> origins;  // option -> "FILE:LINE"
  if (auto config = first->Value("config")) {
    auto from_file = ConfigArguments(*config, kAllSpecs, &origins);
    if (!from_file.ok()) return ReportError("milter", from_file.status());
    args.insert(args.end(), from_file->begin(), from_file->end());
  }
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  std::vector<char*> merged;
  for (std::string& a : args) merged.push_back(a.data());
  auto line = ParseCommandLine("milter", static_cast<int>(merged.size()),
                               merged.data(), kAllSpecs, MilterUsage(), &exit);
  if (!line) return exit;

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  MilterPolicy policy;
  auto scan = MatchRuleOptions(*line);
  auto limits = FileLimits(*line);
  auto max_message = line->Unsigned("max-message-size", policy.max_message_bytes,
                                    1024, uint64_t{1} << 32);
  auto concurrent = line->Unsigned("max-concurrent", cores, 1, 1024);
  auto wait = line->Double("max-wait", policy.max_wait_seconds, 0, 3600);
  auto reload = line->Double("reload-seconds", 10, 0, 86400);
  auto window = line->Unsigned("duplicate-window", 10000, 0, 10000000);
  auto spool = line->Unsigned("incident-spool", 10000, 1, 10000000);
  auto incidents = line->IncidentsPath();
  auto snippets = OnOff(*line, "store-snippets", true);
  for (const absl::Status& s :
       {scan.status(), limits.status(), max_message.status(),
        concurrent.status(), wait.status(), reload.status(),
        window.status(), spool.status(), incidents.status(), snippets.status()}) {
    if (!s.ok()) return ReportError("milter", WhereFrom(s, origins, *first));
  }
  for (auto [name, field] :
       {std::pair{"on-leak", &policy.on_leak}, std::pair{"on-error", &policy.on_error},
        std::pair{"on-oversize", &policy.on_oversize},
        std::pair{"on-unreadable", &policy.on_unreadable}}) {
    if (auto v = line->Value(name)) {
      auto action = ParseMilterAction(*v);
      if (!action.ok()) {
        return ReportError(
            "milter",
            WhereFrom(absl::InvalidArgumentError(absl::StrCat(
                          "--", name, ": ", action.status().message())),
                      origins, *first));
      }
      *field = *action;
    }
  }
  if (auto text = line->Value("reject-text")) policy.reject_text = *text;
  policy.show_matches = line->Has("show-matches");
  policy.status_header = line->Has("status-header");
  policy.max_message_bytes = *max_message;
  policy.max_concurrent = static_cast<uint32_t>(*concurrent);
  // libmilter runs each SMTP connection on its own thread, and glibc gives
  // threads their own malloc arenas (up to 8 per core), each keeping the
  // freed buffers of the OCR it ran: with 5 % of mail carrying an image,
  // 50 connections held 800 MB, against 320 MB with as many arenas as
  // messages judged at once (tests/bench/milter_load.py, docs/
  // mail-gateway.md). Judging is bounded by --max-concurrent anyway.
  mallopt(M_ARENA_MAX, static_cast<int>(std::max<uint32_t>(2, policy.max_concurrent)));
  policy.max_wait_seconds = *wait;
  policy.allow_senders = line->Values("allow-sender");
  policy.allow_recipients = line->Values("allow-recipient");
  const std::optional<std::string> socket = line->Value("socket");
  if (!socket) {
    return UsageError("milter", absl::InvalidArgumentError("no --socket given"));
  }
  auto dir = line->IndexDir();
  if (!dir.ok()) return ReportError("milter", dir.status());
  auto holder = IndexHolder::Open(*dir);
  if (!holder.ok()) return ReportError("milter", holder.status());
  std::unique_ptr<DuplicateCache> cache;
  if (*window > 0) {
    SkipBloomFilter::Options o;
    o.window = static_cast<uint32_t>(*window);
    // About 10 counters per remembered message: a false positive costs an
    // exact lookup, never a wrong verdict.
    o.counters = static_cast<uint32_t>(std::max<uint64_t>(1024, 10 * *window));
    o.hashes = 4;
    auto c = DuplicateCache::Create(o);
    if (!c.ok()) return ReportError("milter", c.status());
    cache = std::move(*c);
  }
  const Evidence evidence = !*incidents ? Evidence::kNone
                            : *snippets  ? Evidence::kSnippets
                                         : Evidence::kOffsets;
  const MessageScanner scanner(holder->get(), cache.get(), *scan, *limits,
                               evidence);

  // Signals: handled here, by the main thread, through a pipe. libmilter
  // blocks SIGHUP, SIGTERM and SIGINT in the thread that runs it (and so in
  // every thread it starts) and waits for them in a thread of its own;
  // Linux delivers a process-directed signal to the main thread first when
  // the main thread does not block it, so these reach this loop.
  if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
    return ReportError("milter", absl::InternalError("cannot create a pipe"));
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) ::sigaction(sig, &sa, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) sigaddset(&unblock, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);

  const std::optional<std::string> pidfile = line->Value("pidfile");
  if (pidfile) {
    if (absl::Status s = WritePidfile(*pidfile); !s.ok()) {
      return ReportError("milter", s);
    }
  }
  Logger log(line->Has("syslog"));
  std::mutex log_mu;
  auto log_line = [&](const std::string& text) {
    std::lock_guard lock(log_mu);
    log(text);
  };
  const IndexHolder::Snapshot serving = (*holder)->Current();
  const size_t documents = serving.index->matrix().documents();
  if (documents == 0) {
    // Every message would pass as clean: say so where the admin looks.
    log_line(absl::StrCat("warning: the index ", *dir,
                          " protects no documents yet: every message passes "
                          "as clean until 'leakhound add' gives it some"));
  }
  log_line(absl::StrFormat("listening on %s, index %s generation %d, %d "
                           "documents, on-leak %s, "
                           "on-error %s, on-unreadable %s, ocr %s",
                           *socket, *dir, serving.generation, documents,
                           MilterActionName(policy.on_leak),
                           MilterActionName(policy.on_error),
                           MilterActionName(policy.on_unreadable),
                           limits->ocr.enabled ? limits->ocr.languages : "off"));

  // Incidents go to a writer thread: a locked, full or broken store never
  // holds up a verdict (incident_writer.h).
  std::unique_ptr<IncidentWriter> writer;
  IncidentSink record;
  if (*incidents) {
    if (auto check = IncidentStore::Open(**incidents); !check.ok()) {
      log_line(absl::StrCat("incidents: ", check.status().message(),
                            "; spooling and retrying"));
    }
    IncidentWriter::Options o;
    o.spool_capacity = *spool;
    writer = std::make_unique<IncidentWriter>(**incidents, o, log_line);
    record = [&writer](Incident incident) { writer->Submit(std::move(incident)); };
    log_line(absl::StrCat("recording incidents in ", **incidents,
                          *snippets ? "" : " (offsets only, no snippets)"));
  }

  // Metrics: the counters are the server's; the gauges are read at each
  // scrape from their owners.
  MilterMetrics metrics;
  std::atomic<int64_t> last_reload_ns{
      std::chrono::steady_clock::now().time_since_epoch().count()};
  std::unique_ptr<MetricsServer> metrics_server;
  if (auto address = line->Value("metrics")) {
    auto started = MetricsServer::Start(*address, [&] {
      MilterMetrics::Gauges g;
      const IndexHolder::Snapshot snapshot = (*holder)->Current();
      g.index_generation = snapshot.generation;
      g.index_documents = snapshot.index->matrix().documents();
      g.seconds_since_reload =
          static_cast<double>(std::chrono::steady_clock::now().time_since_epoch().count() -
                              last_reload_ns.load()) / 1e9;
      if (cache != nullptr) {
        const DuplicateCache::Stats s = cache->stats();
        g.duplicate_lookups = s.lookups;
        g.duplicate_hits = s.hits;
      }
      if (writer != nullptr) {
        const IncidentWriter::Counters c = writer->counters();
        g.incidents_written = c.written;
        g.incidents_dropped = c.dropped;
      }
      return metrics.Render(g);
    });
    if (!started.ok()) return ReportError("milter", started.status());
    metrics_server = std::move(*started);
    log_line(absl::StrCat("metrics at http://", *address, "/metrics"));
  }

  std::atomic<bool> served{false};
  absl::Status serve_status;
  std::thread server([&] {
    serve_status = ServeMilter(*socket, policy, &scanner, log_line, record, &metrics);
    served = true;
  });

  // systemd (Type=notify): ready once the server thread listens, watchdog
  // pings from this loop, which turns every 200 ms.
  ServiceNotifier notifier;
  bool ready = false;

  auto reload_index = [&](const char* why) {
    auto changed = (*holder)->Reload();
    if (changed.ok()) {
      last_reload_ns = std::chrono::steady_clock::now().time_since_epoch().count();
    }
    if (!changed.ok()) {
      log_line(absl::StrCat("reload failed (", why, "): ", changed.status().message()));
    } else if (*changed) {
      log_line(absl::StrCat("index reloaded (", why, "): generation ",
                            (*holder)->Current().generation));
    }
  };
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(*reload));
  auto next_reload = Clock::now() + period;
  bool stop = false;
  while (!stop && !served) {
    if (!ready && MilterListening()) {
      notifier.Ready(absl::StrCat("serving generation ", (*holder)->Current().generation));
      ready = true;
    }
    notifier.MaybePing();
    pollfd pfd{g_signal_pipe[0], POLLIN, 0};
    if (::poll(&pfd, 1, 200) > 0) {
      char sig = 0;
      if (::read(g_signal_pipe[0], &sig, 1) == 1) {
        if (sig == SIGHUP) {
          reload_index("SIGHUP");
        } else {
          log_line(absl::StrCat("stopping on ", sig == SIGTERM ? "SIGTERM" : "SIGINT"));
          stop = true;
        }
      }
    }
    if (*reload > 0 && Clock::now() >= next_reload) {
      reload_index("timer");
      next_reload = Clock::now() + period;
    }
  }
  notifier.Stopping();
  RequestMilterStop();
  server.join();
  // Messages in flight finish (each is bounded by --max-seconds and
  // --max-wait); the MTA's own timeouts cover the rest.
  const auto drain_until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(limits->max_seconds +
                                                       policy.max_wait_seconds + 5));
  while (ActiveSessions() > 0 && Clock::now() < drain_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (cache != nullptr) {
    const DuplicateCache::Stats s = cache->stats();
    log_line(absl::StrFormat(
        "duplicate cache: %d lookups, %d filter positives, %d hits (%.1f %%)",
        s.lookups, s.filter_positives, s.hits,
        s.lookups == 0 ? 0.0 : 100.0 * static_cast<double>(s.hits) /
                                   static_cast<double>(s.lookups)));
  }
  if (writer != nullptr) {
    writer->Stop(5);
    const IncidentWriter::Counters c = writer->counters();
    log_line(absl::StrFormat(
        "incidents: %d recorded, %d written, %d dropped, %d failed writes",
        c.submitted, c.written, c.dropped, c.failed_writes));
  }
  log_line(absl::StrCat("stopped; ", ActiveSessions(), " sessions cut"));
  if (pidfile) ::unlink(pidfile->c_str());
  if (!serve_status.ok()) return ReportError("milter", serve_status);
  return kExitOk;
}

}  // namespace leakhound
