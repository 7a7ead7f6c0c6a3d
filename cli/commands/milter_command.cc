#include "cli/commands/milter_command.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/gateway/daemon_log.h"
#include "cli/gateway/gateway.h"
#include "cli/gateway/milter_metrics.h"
#include "cli/gateway/service_notifier.h"
#include "cli/milter/milter_server.h"

namespace leakhound {
namespace {

// The milter's options, one row each, for the command line, the --config
// file and the help. Defaults are MilterOptions' (below) and MilterPolicy's
// (milter_server.h); the rows without help are those of scan.
constexpr OptionSpec kMilterOwnOptions[] = {
    {"index", true},
    {"socket", true},
    {"config", true, "FILE",
     "options, one 'name = value' per line ('#' comments)"},
    {"pidfile", true, "FILE", "write the daemon's pid there"},
    {"syslog", false, nullptr,
     "log to syslog (mail facility), not standard error"},
    {"on-leak", true, "ACTION",
     "reject (default), quarantine, tag, accept, tempfail"},
    {"on-error", true, "ACTION", "tempfail (default), accept, reject"},
    {"on-oversize", true, "ACTION", "reject (default), accept, tempfail"},
    {"on-unreadable", true, "ACTION",
     "a clean message with parts leakhound could not read\n"
     "(images without text, unknown binary data): tag (default:\n"
     "X-Leakhound-Unread names them), accept, quarantine,\n"
     "reject, tempfail"},
    {"on-unread-limit", true, "ACTION",
     "a clean message with parts left unread for lack of time\n"
     "(OCR past --max-seconds): quarantine (default: held for\n"
     "review, as such a part may hide protected text), tag,\n"
     "accept, reject, tempfail"},
    {"policy", true, "FILE|desk",
     "rules deciding what happens to each catch (docs/policy.md);\n"
     "without one, --on-leak applies to every leak; desk: the policy\n"
     "published to the fleet's desk (--incidents URI, docs/fleet.md)"},
    {"node-name", true, "NAME",
     "this gateway's name in the fleet (default: the host name)"},
    {"desk-seconds", true, "S",
     "report to the desk and take its held-mail requests this often\n"
     "(default 10; 0: never)"},
    {"postfix-config", true, "DIR",
     "Postfix's configuration directory for postsuper, when the desk\n"
     "asks to release or delete held mail (default: Postfix's own)"},
    {"sendmail", true, "COMMAND",
     "send the policy's notices with this sendmail(1) command\n"
     "(e.g. /usr/sbin/sendmail; default: no notices)"},
    {"console-url", true, "URL",
     "the console's address, for the links in reviewers' digests"},
    {"notify-digest-seconds", true, "S",
     "a reviewer gets one digest per S seconds (default 60)"},
    {"reject-text", true, "TEXT", "the 550 5.7.1 reply's text"},
    {"show-matches", false, nullptr, "name the matched documents in the reply"},
    {"status-header", false, nullptr,
     "add X-Leakhound-Status to every delivered message"},
    {"max-message-size", true, "N",
     "bytes buffered per message (default 26214400)"},
    {"max-concurrent", true, "N",
     "messages judged at once (default: one per core)"},
    {"max-wait", true, "S",
     "seconds a message waits for its turn (default 30)"},
    {"allow-sender", true, "ADDR",
     "never scan mail from ADDR or @DOMAIN (repeatable)"},
    {"allow-recipient", true, "ADDR",
     "never scan mail whose recipients are all listed (repeatable)"},
    {"reload-seconds", true, "S",
     "catch up with the index this often (default 10; 0: on SIGHUP only)"},
    {"duplicate-window", true, "N",
     "messages the duplicate cache remembers (default 10000; 0: off)"},
    {"min-words", true},
    {"min-coverage", true},
    {"boilerplate-docs", true},
    {"min-distinctive-words", true},
    {"no-word-checks", false},
    {"incidents", true, "FILE|URI|off",
     "record leaks, errors and unread parts there: a SQLite file or a\n"
     "postgresql:// URI (default: INDEX_DIR.incidents; docs/console.md)"},
    {"store-snippets", true, "on|off",
     "keep the outbound text around each passage (default on)"},
    {"incident-spool", true, "N",
     "records waiting in memory for the store, at most (default 10000)"},
    {"incident-spool-dir", true, "DIR|off",
     "keep what the store cannot take yet there, durably (default:\n"
     "INDEX_DIR.incident-spool; docs/fleet.md)"},
    {"metrics", true, "HOST:PORT",
     "serve Prometheus metrics at /metrics there (e.g. 127.0.0.1:9527)"},
};
constexpr auto kMilterOptions = WithLimitOptions(kMilterOwnOptions);

const char* MilterUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound milter --index DIR --socket inet:PORT@HOST|unix:/PATH "
      "[--config FILE] [options]\n"
      "  The mail-gateway hook (Postfix smtpd_milters, Sendmail "
      "INPUT_MAIL_FILTER): runs in\n"
      "  the foreground until SIGTERM; SIGHUP (and every --reload-seconds) "
      "picks up\n"
      "  changes to the index. docs/mail-gateway.md has every option.\n",
      OptionsUsage(kMilterOptions),
      "  --min-words, --min-coverage, --boilerplate-docs,\n"
      "  --min-distinctive-words, --no-word-checks: as for scan\n",
      LimitOptionsUsage());
  return usage.c_str();
}

// What `leakhound milter` was asked to do: step 1's output, step 2's
// input.
struct MilterOptions {
  GatewayOptions gateway;
  MilterPolicy policy;
  std::string socket;
  std::optional<std::string> pidfile;
  bool syslog = false;
  double reload_seconds = 10;
  std::optional<std::string> metrics;  // HOST:PORT
};

// The command line with a --config file's options before its own, so that
// the command line wins; `given` is the command line alone, `origins`
// where the config file set each option. nullopt after reporting a usage
// error (or printing the help), with *exit set.
// libmilter takes a bare word as a file name: `--socket 19591` would
// listen on ./19591. Only unix:/local: with a path, inet:/inet6: with a
// port, or a path with a '/' are taken.
absl::Status CheckMilterSocket(const std::string& socket) {
  const auto bad = [&socket](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--socket ", socket, ": ", why,
        " (inet:PORT@HOST for TCP, e.g. inet:", 
        socket.find_first_not_of("0123456789") == std::string::npos &&
                !socket.empty()
            ? socket
            : "10025",
        "@127.0.0.1; unix:/PATH for a socket file)"));
  };
  const size_t colon = socket.find(':');
  const std::string scheme =
      colon == std::string::npos ? "" : socket.substr(0, colon);
  const std::string rest =
      colon == std::string::npos ? socket : socket.substr(colon + 1);
  if (scheme == "unix" || scheme == "local") {
    return rest.find('/') == std::string::npos
               ? bad("a unix socket needs a path with a '/'")
               : absl::OkStatus();
  }
  if (scheme == "inet" || scheme == "inet6") {
    const std::string port = rest.substr(0, rest.find('@'));
    uint32_t number = 0;
    if (!absl::SimpleAtoi(port, &number) || number == 0 || number > 65535) {
      return bad("the port must be a number from 1 to 65535");
    }
    return absl::OkStatus();
  }
  if (scheme.empty() && socket.find('/') != std::string::npos) {
    return absl::OkStatus();
  }
  return bad(scheme.empty() ? "not a socket address"
                            : "unknown kind of socket '" + scheme + "'");
}

std::optional<CommandLine> MergedCommandLine(
    int argc, char** argv, std::optional<CommandLine>* given,
    std::map<std::string, std::string>* origins, int* exit) {
  *given = ParseCommandLine("milter", argc, argv, kMilterOptions, MilterUsage(),
                            exit);
  if (!*given) return std::nullopt;
  std::vector<std::string> args = {argv[0]};
  if (auto config = (*given)->Value("config")) {
    auto from_file = ConfigArguments(*config, kMilterOptions, origins);
    if (!from_file.ok()) {
      *exit = ReportError("milter", from_file.status());
      return std::nullopt;
    }
    args.insert(args.end(), from_file->begin(), from_file->end());
  }
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  std::vector<char*> merged;
  for (std::string& a : args) merged.push_back(a.data());
  return ParseCommandLine("milter", static_cast<int>(merged.size()),
                          merged.data(), kMilterOptions, MilterUsage(), exit);
}

// The numbers, the match rule and the limits of `line` into `o`; the
// first bad one as InvalidArgument naming the option.
absl::Status ReadMilterValues(const CommandLine& line, MilterOptions* o) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  MilterPolicy& policy = o->policy;
  auto scan = MatchRuleOptions(line);
  auto limits = FileLimits(line);
  auto max_message = line.Unsigned("max-message-size", policy.max_message_bytes,
                                   1024, uint64_t{1} << 32);
  auto concurrent = line.Unsigned("max-concurrent", cores, 1, 1024);
  auto wait = line.Double("max-wait", policy.max_wait_seconds, 0, 3600);
  auto reload = line.Double("reload-seconds", o->reload_seconds, 0, 86400);
  auto desk = line.Double("desk-seconds", o->gateway.desk_seconds, 0, 86400);
  auto window = line.Unsigned("duplicate-window", o->gateway.duplicate_window,
                              0, 10000000);
  auto spool =
      line.Unsigned("incident-spool", o->gateway.incident_spool, 1, 10000000);
  auto incidents = line.IncidentsPath();
  auto snippets = OnOff(line, "store-snippets", o->gateway.store_snippets);
  for (const absl::Status& s :
       {scan.status(), limits.status(), max_message.status(),
        concurrent.status(), wait.status(), reload.status(), window.status(),
        spool.status(), incidents.status(), snippets.status(), desk.status()}) {
    if (!s.ok()) return s;
  }
  o->gateway.scan = *scan;
  o->gateway.limits = *limits;
  o->gateway.duplicate_window = static_cast<uint32_t>(*window);
  o->gateway.incident_spool = *spool;
  o->gateway.desk_seconds = *desk;
  o->gateway.incident_spool_dir = line.Value("incident-spool-dir").value_or("");
  o->gateway.incidents = *incidents;
  o->gateway.store_snippets = *snippets;
  policy.max_message_bytes = *max_message;
  policy.max_concurrent = static_cast<uint32_t>(*concurrent);
  policy.max_wait_seconds = *wait;
  o->reload_seconds = *reload;
  return absl::OkStatus();
}

// The --on-* actions and the other policy options of `line` into
// `policy`; InvalidArgument naming the option for an unknown action.
absl::Status ReadMilterPolicy(const CommandLine& line, MilterPolicy* policy) {
  for (auto [name, field] :
       {std::pair{"on-leak", &policy->on_leak},
        std::pair{"on-error", &policy->on_error},
        std::pair{"on-oversize", &policy->on_oversize},
        std::pair{"on-unreadable", &policy->on_unreadable},
        std::pair{"on-unread-limit", &policy->on_unread_limit}}) {
    if (auto v = line.Value(name)) {
      auto action = ParseMilterAction(*v);
      if (!action.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, ": ", action.status().message()));
      }
      *field = *action;
    }
  }
  if (auto text = line.Value("reject-text")) policy->reject_text = *text;
  policy->show_matches = line.Has("show-matches");
  policy->status_header = line.Has("status-header");
  policy->allow_senders = line.Values("allow-sender");
  policy->allow_recipients = line.Values("allow-recipient");
  return absl::OkStatus();
}

// The policy file, or the flags' built-in policy, and the notices.
absl::Status ReadPolicyChoice(const CommandLine& line, MilterOptions* o) {
  o->gateway.policy_file = line.Value("policy").value_or("");
  o->gateway.node_name = line.Value("node-name").value_or("");
  o->gateway.node_role = "milter";
  o->gateway.mail_requests = true;
  o->gateway.held_mail.postfix_config =
      line.Value("postfix-config").value_or("");
  o->gateway.builtin_policy =
      BuiltinPolicy(DispositionOf(o->policy.on_leak), o->policy.reject_text);
  if (auto sendmail = line.Value("sendmail")) {
    o->gateway.sendmail = absl::StrSplit(*sendmail, ' ', absl::SkipEmpty());
  }
  o->gateway.console_url = line.Value("console-url").value_or("");
  auto digest = line.Double("notify-digest-seconds", o->gateway.digest_seconds,
                            0.1, 86400);
  if (!digest.ok()) return digest.status();
  o->gateway.digest_seconds = *digest;
  return absl::OkStatus();
}

// Step 1: argv and the --config file to MilterOptions. nullopt after
// reporting the error (FILE:LINE for a value from the config file), with
// *exit set.
std::optional<MilterOptions> ParseMilterOptions(int argc, char** argv,
                                                int* exit) {
  std::optional<CommandLine> given;
  std::map<std::string, std::string> origins;  // option -> "FILE:LINE"
  std::optional<CommandLine> line =
      MergedCommandLine(argc, argv, &given, &origins, exit);
  if (!line) return std::nullopt;
  MilterOptions o;
  absl::Status s = ReadMilterValues(*line, &o);
  if (s.ok()) s = ReadMilterPolicy(*line, &o.policy);
  if (s.ok()) s = ReadPolicyChoice(*line, &o);
  if (!s.ok()) {
    *exit = ReportError("milter", WhereFrom(s, origins, *given));
    return std::nullopt;
  }
  const std::optional<std::string> socket = line->Value("socket");
  if (!socket) {
    *exit =
        UsageError("milter", absl::InvalidArgumentError("no --socket given"));
    return std::nullopt;
  }
  if (absl::Status bad = CheckMilterSocket(*socket); !bad.ok()) {
    *exit = ReportError("milter", WhereFrom(bad, origins, *given));
    return std::nullopt;
  }
  o.socket = *socket;
  auto dir = line->IndexDir();
  if (!dir.ok()) {
    *exit = ReportError("milter", dir.status());
    return std::nullopt;
  }
  o.gateway.index_dir = *dir;
  o.pidfile = line->Value("pidfile");
  o.syslog = line->Has("syslog");
  o.metrics = line->Value("metrics");
  return o;
}

// The signals the daemon handles, written to a pipe by the handler.
int g_signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  const char c = static_cast<char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe[1], &c, 1);
}

// Signals are handled by the main thread, through a pipe. libmilter
// blocks SIGHUP, SIGTERM and SIGINT in the thread that runs it (and so in
// every thread it starts) and waits for them in a thread of its own;
// Linux delivers a process-directed signal to the main thread first when
// the main thread does not block it, so these reach WaitForStop.
absl::Status InstallSignalPipe() {
  if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError("cannot create a pipe");
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) ::sigaction(sig, &sa, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  for (int sig : {SIGHUP, SIGTERM, SIGINT}) sigaddset(&unblock, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  return absl::OkStatus();
}

// The first lines of the log: the index serving, and a warning when it
// protects nothing (every message would pass as clean).
void LogStart(const MilterOptions& o, const Gateway& gateway,
              const DaemonLog& log) {
  const IndexHolder::Snapshot serving = gateway.Current();
  const size_t documents = serving.index->matrix().documents();
  if (documents == 0) {
    log.Write(absl::StrCat("warning: the index ", o.gateway.index_dir,
                           " protects no documents yet: every message "
                           "passes as clean until 'leakhound add' gives it "
                           "some"));
  }
  const OcrSettings& ocr = o.gateway.limits.ocr;
  log.Write(absl::StrFormat(
      "listening on %s, index %s generation %d, %d documents, on-leak %s, "
      "on-error %s, on-unreadable %s, on-unread-limit %s, ocr %s",
      o.socket, o.gateway.index_dir, serving.generation, documents,
      MilterActionName(o.policy.on_leak), MilterActionName(o.policy.on_error),
      MilterActionName(o.policy.on_unreadable),
      MilterActionName(o.policy.on_unread_limit),
      ocr.enabled ? ocr.languages : "off"));
  gateway.LogPolicy();
}

// Turns every 200 ms until SIGTERM or SIGINT, or until the server thread
// ends (`served`): tells systemd (Type=notify) once the server listens,
// pings its watchdog, and reloads the index on SIGHUP and every
// `reload_seconds` (0: on SIGHUP only).
void WaitForStop(double reload_seconds, const std::atomic<bool>& served,
                 Gateway* gateway, const DaemonLog& log) {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(reload_seconds));
  auto next_reload = Clock::now() + period;
  ServiceNotifier notifier;
  bool ready = false;
  while (!served) {
    if (!ready && MilterListening()) {
      notifier.Ready(
          absl::StrCat("serving generation ", gateway->Current().generation));
      ready = true;
    }
    notifier.MaybePing();
    pollfd pfd{g_signal_pipe[0], POLLIN, 0};
    char sig = 0;
    if (::poll(&pfd, 1, 200) > 0 && ::read(g_signal_pipe[0], &sig, 1) == 1) {
      if (sig != SIGHUP) {
        log.Write(absl::StrCat("stopping on ",
                               sig == SIGTERM ? "SIGTERM" : "SIGINT"));
        break;
      }
      gateway->Reload("SIGHUP");
    }
    if (reload_seconds > 0 && Clock::now() >= next_reload) {
      gateway->Reload("timer");
      next_reload = Clock::now() + period;
    }
  }
  notifier.Stopping();
}

// Waits for the sessions in flight to finish (each is bounded by
// --max-seconds and --max-wait, plus 5 s); the MTA's own timeouts cover
// the rest.
void DrainSessions(const MilterOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto drain_until =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
          o.gateway.limits.max_seconds + o.policy.max_wait_seconds + 5));
  while (ActiveSessions() > 0 && Clock::now() < drain_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Step 2: serves until SIGTERM or SIGINT.
int RunMilter(const MilterOptions& o) {
  // glibc gives each thread a malloc arena (up to 8 per core), and
  // libmilter runs a thread per connection: as many arenas as messages
  // judged at once bound what freed OCR buffers hold (docs/
  // mail-gateway.md, "Measured: image mail (OCR) through Postfix").
  mallopt(M_ARENA_MAX,
          static_cast<int>(std::max<uint32_t>(2, o.policy.max_concurrent)));
  const DaemonLog log("leakhound milter", o.syslog);
  auto gateway = Gateway::Open(o.gateway, &log);
  if (!gateway.ok()) return ReportError("milter", gateway.status());
  if (absl::Status s = InstallSignalPipe(); !s.ok()) {
    return ReportError("milter", s);
  }
  if (o.pidfile) {
    if (absl::Status s = WritePidfile(*o.pidfile); !s.ok()) {
      return ReportError("milter", s);
    }
  }
  LogStart(o, **gateway, log);
  (*gateway)->StartIncidents();
  MilterMetrics metrics;
  std::unique_ptr<MetricsServer> metrics_server;
  if (o.metrics) {
    auto started = (*gateway)->StartMetrics(*o.metrics, &metrics);
    if (!started.ok()) return ReportError("milter", started.status());
    metrics_server = std::move(*started);
  }
  std::atomic<bool> served{false};
  absl::Status serve_status;
  std::thread server([&] {
    serve_status = ServeMilter(o.socket, o.policy, gateway->get(), log.Sink(),
                               (*gateway)->Recorder(), &metrics);
    served = true;
  });
  WaitForStop(o.reload_seconds, served, gateway->get(), log);
  RequestMilterStop();
  server.join();
  DrainSessions(o);
  (*gateway)->Stop();
  log.Write(absl::StrCat("stopped; ", ActiveSessions(), " sessions cut"));
  if (o.pidfile) ::unlink(o.pidfile->c_str());
  if (!serve_status.ok()) return ReportError("milter", serve_status);
  return kExitOk;
}

}  // namespace

int RunMilterCommand(int argc, char** argv) {
  int exit = kExitOk;
  const std::optional<MilterOptions> options =
      ParseMilterOptions(argc, argv, &exit);
  if (!options) return exit;
  return RunMilter(*options);
}

}  // namespace leakhound
