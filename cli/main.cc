// The leakhound command: dispatches to one subcommand.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/commands/add_command.h"
#include "cli/commands/admin_commands.h"
#include "cli/commands/console_command.h"
#include "cli/commands/discover_command.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/fleet_command.h"
#include "cli/commands/incidents_command.h"
#include "cli/commands/label_command.h"
#include "cli/commands/milter_command.h"
#include "cli/commands/policy_command.h"
#include "cli/commands/records_command.h"
#include "cli/commands/rekey_command.h"
#include "cli/commands/report_command.h"
#include "cli/commands/scan_command.h"
#include "cli/commands/shingle_command.h"
#include "cli/commands/sources_command.h"
#include "cli/commands/sync_command.h"
#include "cli/commands/version_command.h"
#include "cli/formats/ocr_engine.h"

namespace {

constexpr char kUsage[] =
    "usage: leakhound COMMAND [OPTIONS] [ARGS]\n"
    "commands:\n"
    "  init      create an index\n"
    "  add       protect files (directories recursively)\n"
    "  remove    stop protecting documents, by id\n"
    "  sync      make the documents protected from folders equal to them\n"
    "  sources   the protected folders, their ids and labels (add, set, "
    "remove,\n"
    "            list, migrate)\n"
    "  label     add or remove labels of protected documents\n"
    "  list      list the protected documents\n"
    "  stats     size, row fill, memory and disk use of an index\n"
    "  compact   repack under-filled rows and compact the files\n"
    "  verify    check every invariant of an index\n"
    "  allow     manage the allow-list of benign text (add, remove, list)\n"
    "  locations manage the protected URL and share-path prefixes (add, "
    "remove, list)\n"
    "  records   protect tables of records: exact data match (add, replace, "
    "remove,\n"
    "            list, stats)\n"
    "  rekey     rebuild the index under a fresh fingerprint key\n"
    "  snapshot  a consistent copy of the index, for replicas\n"
    "  scan      find passages of protected documents in files\n"
    "  discover  crawl shares for protected content at rest and remediate "
    "it (run,\n"
    "            restore, findings)\n"
    "  milter    the mail-gateway daemon (Postfix and Sendmail milter)\n"
    "  policy    check, explain, replay and publish a policy (docs/policy.md)\n"
    "  incidents review what was caught: list, show, resolve, release, "
    "export, purge\n"
    "  console   the incident desk's web console, and its users\n"
    "  fleet     the gateways reporting to a shared desk (nodes, report)\n"
    "  report    the desk's report of a period, by hand or mailed on "
    "schedule\n"
    "  shingle   print per-file word and fingerprint counts (diagnostics)\n"
    "  version   the release, format versions and library versions (also "
    "--version, -V)\n"
    "The index is --index DIR or $LEAKHOUND_INDEX. Exit codes: 0 ok / no "
    "leak,\n"
    "1 leak found (verify: damage found), 2 error.\n"
    "Run 'leakhound COMMAND --help' for a command's options.\n";

struct Command {
  const char* name;
  int (*run)(int, char**);
};

constexpr Command kCommands[] = {
    {"init", leakhound::RunInitCommand},
    {"add", leakhound::RunAddCommand},
    {"sync", leakhound::RunSyncCommand},
    {"sources", leakhound::RunSourcesCommand},
    {"label", leakhound::RunLabelCommand},
    {"remove", leakhound::RunRemoveCommand},
    {"list", leakhound::RunListCommand},
    {"stats", leakhound::RunStatsCommand},
    {"compact", leakhound::RunCompactCommand},
    {"verify", leakhound::RunVerifyCommand},
    {"allow", leakhound::RunAllowCommand},
    {"locations", leakhound::RunLocationsCommand},
    {"records", leakhound::RunRecordsCommand},
    {"rekey", leakhound::RunRekeyCommand},
    {"snapshot", leakhound::RunSnapshotCommand},
    {"scan", leakhound::RunScanCommand},
    {"milter", leakhound::RunMilterCommand},
    {"policy", leakhound::RunPolicyCommand},
    {"incidents", leakhound::RunIncidentsCommand},
    {"fleet", leakhound::RunFleetCommand},
    {"report", leakhound::RunReportCommand},
    {"discover", leakhound::RunDiscoverCommand},
    {"console", leakhound::RunConsoleCommand},
    {"shingle", leakhound::RunShingleCommand},
    {"version", leakhound::RunVersionCommand},
};

}  // namespace

int main(int argc, char** argv) {
  leakhound::LimitOcrThreads(argv);
  // Everything leakhound creates (the index's RocksDB files and
  // directories, a reader's scratch directory) is for its owner alone; the
  // milter opens its socket to the MTA's group on purpose
  // (milter_server.cc).
  ::umask(077);
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return leakhound::kExitError;
  }
  const char* command = argv[1];
  if (std::strcmp(command, "--version") == 0 ||
      std::strcmp(command, "-V") == 0) {
    return leakhound::RunVersionCommand(argc - 1, argv + 1);
  }
  if (std::strcmp(command, "--help") == 0 || std::strcmp(command, "-h") == 0 ||
      std::strcmp(command, "help") == 0) {
    std::fputs(kUsage, stdout);
    return leakhound::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(command, c.name) == 0) return c.run(argc - 1, argv + 1);
  }
  std::fprintf(
      stderr,
      "leakhound: unknown command '%s'\nTry 'leakhound --help' for the "
      "commands.\n",
      command);
  return leakhound::kExitError;
}
