// `leakhound incidents outbox` and `leakhound incidents forward`
// (docs/siem.md): the outbox's state per destination, and a sender of the
// policy's destinations for a store no daemon delivers (batch scans).
//
// Thread-safety: each runs on the command's thread (forward starts a
// sender thread per destination and stops them before it returns).
#ifndef LEAKHOUND_CLI_COMMANDS_OUTBOX_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_OUTBOX_COMMAND_H_

#include <string>

#include "cli/commands/command_line.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

// outbox [--json] [--forget NAME]: each destination's pending events, the
// age of the oldest, its totals, lease and last error, and the newest
// permanent failures. Exit: kExitOk.
int ShowOutbox(const CommandLine& line, IncidentStore& store);

// forward --policy FILE [--once [--seconds N]]: delivers the policy's
// destinations from `store_path` until SIGINT or SIGTERM; with --once
// until nothing is pending (kExitOk) or N seconds (default 60) have passed
// (kExitError, naming what is left).
int ForwardOutbox(const CommandLine& line, const std::string& store_path);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_OUTBOX_COMMAND_H_
