#include "cli/commands/console_command.h"

#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/console/console_pages.h"
#include "cli/console/console_server.h"
#include "cli/console/secrets.h"
#include "cli/gateway/daemon_log.h"
#include "cli/incidents/incident_store.h"
#include "shingler/user_name.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound console [--listen HOST:PORT] [--index DIR] "
    "[--incidents FILE|URI]\n"
    "                         [--tls-cert FILE --tls-key FILE] "
    "[--postfix-config DIR]\n"
    "                         [--idle-minutes N] [--session-hours N] "
    "[--pidfile FILE]\n"
    "                         [--trusted-proxy ADDR] [--server-name NAME]\n"
    "                         [--policy FILE|desk] [--silent-seconds S]\n"
    "                         [--behind-minutes M] [--url URL --sendmail "
    "COMMAND]\n"
    "                         [--link-key FILE]\n"
    "       leakhound console user add NAME --role viewer|reviewer|admin "
    "[--password-file FILE]\n"
    "       leakhound console user passwd NAME [--password-file FILE]\n"
    "       leakhound console user role NAME --role viewer|reviewer|admin\n"
    "       leakhound console user remove NAME\n"
    "       leakhound console user list\n"
    "  The incident desk's web console (docs/console.md), until SIGTERM.\n"
    "  --listen HOST:PORT   default 127.0.0.1:8080 (port 0: any free port, "
    "printed)\n"
    "  --index DIR          the protected documents page and allow-listing\n"
    "  --incidents FILE|URI the store: a SQLite file (default "
    "INDEX_DIR.incidents)\n"
    "                       or a fleet's desk, postgresql://... "
    "(docs/fleet.md)\n"
    "  --tls-cert, --tls-key  serve HTTPS with this PEM certificate and key\n"
    "  --postfix-config DIR   Postfix's configuration, for releasing held "
    "mail\n"
    "  --idle-minutes N     a session ends after N idle minutes (default "
    "30)\n"
    "  --session-hours N    and N hours after its login, however busy "
    "(default 12)\n"
    "  --trusted-proxy ADDR the TLS reverse proxy's address: the client's "
    "address is\n"
    "                       then the last of X-Forwarded-For (for the login "
    "limit and\n"
    "                       the audit), and the cookie is Secure with HSTS\n"
    "  --server-name NAME   refuse requests whose Host header names another "
    "host (421)\n"
    "  --policy FILE        show the policy in force, read-only, with each "
    "rule's\n"
    "                       incident count (docs/policy.md); desk: the "
    "newest published\n"
    "  --silent-seconds S, --behind-minutes M  the Nodes page flags a node "
    "silent for S\n"
    "                       seconds (default 60) or behind the writer's "
    "index for M\n"
    "                       minutes (default 10)\n"
    "  --url URL            the console's address as senders reach it: "
    "with --sendmail,\n"
    "                       a held sender may ask for a one-time link "
    "(docs/overrides.md)\n"
    "  --sendmail COMMAND   sendmail(1) for those links (e.g. "
    "/usr/sbin/sendmail)\n"
    "  --link-key FILE      the links' key, created 0600 when missing "
    "(default\n"
    "                       STORE.link-key beside a SQLite store)\n"
    "  A session also ends at its next request once its user is removed or "
    "given a\n"
    "  new password, and takes a changed role at once.\n"
    "  A password is read from --password-file, else from standard input "
    "(first line),\n"
    "  asked for without echo on a terminal.\n";

absl::StatusOr<std::string> ReadPassword(const CommandLine& line) {
  std::string password;
  if (auto file = line.Value("password-file")) {
    std::ifstream in(*file);
    if (!in || !std::getline(in, password)) {
      return absl::NotFoundError(absl::StrCat("cannot read ", *file));
    }
  } else if (::isatty(STDIN_FILENO) == 1) {
    termios old{};
    ::tcgetattr(STDIN_FILENO, &old);
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    std::fputs("password: ", stderr);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    std::getline(std::cin, password);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
    std::fputs("\n", stderr);
  } else {
    std::getline(std::cin, password);
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.size() < 8) {
    return absl::InvalidArgumentError("a password needs at least 8 characters");
  }
  return password;
}

// `console user role NAME --role R`.
int SetUserRole(IncidentStore& store, const CommandLine& line,
                const std::string& name) {
  auto existing = store.GetUser(name);
  if (!existing.ok()) return ReportError("console", existing.status());
  if (!*existing) {
    return ReportError("console",
                       absl::NotFoundError(absl::StrCat("no user ", name)));
  }
  const std::string role = line.Value("role").value_or("");
  if (!RoleAtLeast(role, "viewer")) {
    return ReportError("console", absl::InvalidArgumentError(
                                      "--role viewer, reviewer or admin"));
  }
  ConsoleUser user = **existing;
  user.role = role;
  absl::Status s = store.PutUser(user);
  if (s.ok()) {
    s = store.Audit("cli", "set role", 0, absl::StrCat(name, " (", role, ")"));
  }
  if (!s.ok()) return ReportError("console", s);
  std::printf("updated user %s (%s)\n", name.c_str(), role.c_str());
  return kExitOk;
}

// The user `console user add` creates, or the one `passwd` changes (its
// role too with --role), before the password is set.
absl::StatusOr<ConsoleUser> UserToWrite(
    const CommandLine& line, const std::string& action, const std::string& name,
    const std::optional<ConsoleUser>& existing) {
  const absl::Status bad_role =
      absl::InvalidArgumentError("--role viewer, reviewer or admin");
  if (action == "add") {
    if (existing) {
      return absl::AlreadyExistsError(
          absl::StrCat("user ", name, " exists (use passwd)"));
    }
    if (name.size() > 64 || name.find(' ') != std::string::npos) {
      return absl::InvalidArgumentError(
          "a user name is 1 to 64 characters without spaces");
    }
    const std::string role = line.Value("role").value_or("");
    if (!RoleAtLeast(role, "viewer")) return bad_role;
    return ConsoleUser{name, role, "", NowUnixMs()};
  }
  if (!existing) return absl::NotFoundError(absl::StrCat("no user ", name));
  ConsoleUser user = *existing;
  if (auto role = line.Value("role")) {
    if (!RoleAtLeast(*role, "viewer")) return bad_role;
    user.role = *role;
  }
  return user;
}

// `console user add NAME --role R` and `console user passwd NAME`: the
// password read from the terminal or standard input.
int WriteUser(IncidentStore& store, const CommandLine& line,
              const std::string& action, const std::string& name) {
  auto existing = store.GetUser(name);
  if (!existing.ok()) return ReportError("console", existing.status());
  auto user = UserToWrite(line, action, name, *existing);
  if (!user.ok()) return ReportError("console", user.status());
  auto password = ReadPassword(line);
  if (!password.ok()) return ReportError("console", password.status());
  auto hash = HashPassword(*password);
  if (!hash.ok()) return ReportError("console", hash.status());
  user->password_hash = *hash;
  absl::Status s = store.PutUser(*user);
  if (s.ok()) {
    s = store.Audit("cli", action == "add" ? "add user" : "set password", 0,
                    absl::StrCat(name, " (", user->role, ")"));
  }
  if (!s.ok()) return ReportError("console", s);
  std::printf("%s user %s (%s)\n", action == "add" ? "added" : "updated",
              name.c_str(), user->role.c_str());
  return kExitOk;
}

int RunUserCommand(const CommandLine& line) {
  const std::vector<std::string>& args = line.args();
  if (args.size() < 2) {
    return UsageError("console",
                      absl::InvalidArgumentError(
                          "user needs an action: add, passwd, role, remove "
                          "or list"));
  }
  auto path = line.IncidentsPath();
  if (!path.ok()) return ReportError("console", path.status());
  if (!*path) {
    return ReportError("console",
                       absl::InvalidArgumentError("--incidents off: no store"));
  }
  auto store = IncidentStore::Open(**path);
  if (!store.ok()) return ReportError("console", store.status());
  const std::string& action = args[1];
  if (action == "list") {
    auto users = (*store)->ListUsers();
    if (!users.ok()) return ReportError("console", users.status());
    for (const ConsoleUser& u : *users) {
      std::printf("%s\t%s\t%s\n", u.name.c_str(), u.role.c_str(),
                  FormatTime(u.created_ms).c_str());
    }
    return kExitOk;
  }
  if (args.size() != 3) {
    return ReportError("console", absl::InvalidArgumentError(absl::StrCat(
                                      "user ", action, " takes one NAME")));
  }
  // The canonical name (shingler/user_name.h), as the console's login
  // looks it up: "ADA" and "Ada" are one user.
  auto canonical = UserName(args[2]);
  if (!canonical.ok()) return ReportError("console", canonical.status());
  const std::string& name = *canonical;
  if (action == "remove") {
    absl::Status s = (*store)->RemoveUser(name);
    if (s.ok()) s = (*store)->Audit("cli", "remove user", 0, name);
    if (!s.ok()) return ReportError("console", s);
    std::printf("removed user %s\n", name.c_str());
    return kExitOk;
  }
  if (action == "role") return SetUserRole(**store, line, name);
  if (action != "add" && action != "passwd") {
    return ReportError("console", absl::InvalidArgumentError(absl::StrCat(
                                      "unknown user action '", action, "'")));
  }
  return WriteUser(**store, line, action, name);
}

// Step 1 of serving: the command line to ConsoleOptions; InvalidArgument
// naming the bad option.
absl::StatusOr<ConsoleOptions> ConsoleOptionsOf(const CommandLine& line) {
  ConsoleOptions options;
  const std::string listen = line.Value("listen").value_or("127.0.0.1:8080");
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &options.port) ||
      options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen wants HOST:PORT, not '", listen, "'"));
  }
  options.host = listen.substr(0, colon);
  if (options.host.size() > 2 && options.host.front() == '[') {
    options.host = options.host.substr(1, options.host.size() - 2);
  }
  auto idle = line.Unsigned("idle-minutes", 30, 1, 7 * 24 * 60);
  auto hours = line.Unsigned("session-hours", 12, 1, 30 * 24);
  auto limits = FileLimits(line);
  auto path = line.IncidentsPath();
  auto silent = line.Unsigned("silent-seconds", 60, 1, 86400 * 30);
  auto behind = line.Unsigned("behind-minutes", 10, 0, 60 * 24 * 30);
  for (const absl::Status& s :
       {idle.status(), hours.status(), limits.status(), path.status(),
        silent.status(), behind.status()}) {
    if (!s.ok()) return s;
  }
  if (!*path) {
    return absl::InvalidArgumentError("--incidents off: no store");
  }
  options.incidents_path = **path;
  options.index_dir = line.Value("index").value_or("");
  if (options.index_dir.empty()) {
    if (auto dir = line.IndexDir(); dir.ok()) options.index_dir = *dir;
  }
  options.tls_cert = line.Value("tls-cert").value_or("");
  options.tls_key = line.Value("tls-key").value_or("");
  options.held_mail.postfix_config = line.Value("postfix-config").value_or("");
  options.idle_timeout = std::chrono::minutes(*idle);
  options.session_max_age = std::chrono::hours(*hours);
  options.trusted_proxy = line.Value("trusted-proxy").value_or("");
  options.server_name = line.Value("server-name").value_or("");
  options.limits = *limits;
  options.policy_file = line.Value("policy").value_or("");
  options.public_url = line.Value("url").value_or("");
  while (!options.public_url.empty() && options.public_url.back() == '/') {
    options.public_url.pop_back();
  }
  if (auto sendmail = line.Value("sendmail")) {
    options.sendmail = absl::StrSplit(*sendmail, ' ', absl::SkipEmpty());
  }
  options.link_key_file = line.Value("link-key").value_or("");
  options.fleet.silent_ms = static_cast<int64_t>(*silent) * 1000;
  options.fleet.behind_ms = static_cast<int64_t>(*behind) * 60'000;
  return options;
}

// Step 2: serves until SIGTERM or SIGINT.
int ServeConsole(const ConsoleOptions& options,
                 const std::optional<std::string>& pidfile) {
  // SIGTERM and SIGINT are waited for by this thread: blocked before any
  // server thread starts, so that none of them takes one.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const DaemonLog daemon_log("leakhound console", /*use_syslog=*/false);
  auto log = daemon_log.Sink();
  auto server = ConsoleServer::Create(options, log);
  if (!server.ok()) return ReportError("console", server.status());
  auto port = (*server)->Bind();
  if (!port.ok()) return ReportError("console", port.status());
  if (pidfile) {
    if (absl::Status s = WritePidfile(*pidfile); !s.ok()) {
      (*server)->Stop();
      return ReportError("console", s);
    }
  }
  log(absl::StrCat(
      "listening on ", options.tls_cert.empty() ? "http" : "https", "://",
      options.host, ":", *port, ", incidents ",
      RedactedTarget(options.incidents_path),
      options.index_dir.empty() ? "" : ", index " + options.index_dir));
  absl::Status served;
  std::thread thread([&] { served = (*server)->Serve(); });
  int sig = 0;
  sigwait(&stop_signals, &sig);
  log(absl::StrCat("stopping on ", sig == SIGTERM ? "SIGTERM" : "SIGINT"));
  (*server)->Stop();
  thread.join();
  if (pidfile) ::unlink(pidfile->c_str());
  if (!served.ok()) return ReportError("console", served);
  return kExitOk;
}

}  // namespace

int RunConsoleCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"listen", true},
                                          {"index", true},
                                          {"incidents", true},
                                          {"tls-cert", true},
                                          {"tls-key", true},
                                          {"postfix-config", true},
                                          {"role", true},
                                          {"password-file", true},
                                          {"idle-minutes", true},
                                          {"session-hours", true},
                                          {"pidfile", true},
                                          {"trusted-proxy", true},
                                          {"server-name", true},
                                          {"policy", true},
                                          {"silent-seconds", true},
                                          {"behind-minutes", true},
                                          {"url", true},
                                          {"sendmail", true},
                                          {"link-key", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line = ParseCommandLine("console", argc, argv, kAllSpecs, kUsage, &exit);
  if (!line) return exit;
  if (!line->args().empty()) {
    if (line->args()[0] != "user") {
      return ReportError("console",
                         absl::InvalidArgumentError(absl::StrCat(
                             "unknown action '", line->args()[0], "'")));
    }
    return RunUserCommand(*line);
  }
  auto options = ConsoleOptionsOf(*line);
  if (!options.ok()) return ReportError("console", options.status());
  return ServeConsole(*options, line->Value("pidfile"));
}

}  // namespace leakhound
