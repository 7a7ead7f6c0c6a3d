// `leakhound policy publish|versions|show|diff|rollback`: the policy the
// fleet's desk publishes to gateways started with `--policy desk`
// (docs/fleet.md). Every version is checked as `policy check` does before
// it is stored; gateways take the newest on their reload timer.
//
// Thread-safety: runs on the main thread.
#ifndef LEAKHOUND_CLI_COMMANDS_POLICY_DESK_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_POLICY_DESK_COMMAND_H_

#include "cli/commands/command_line.h"

namespace leakhound {

// The usage lines of the desk's actions, for `policy --help`.
extern const char kPolicyDeskUsage[];

// True when `action` is one of the desk's.
bool IsPolicyDeskAction(const std::string& action);

// Runs the desk action of `action` against the store `line` names
// (--incidents). Returns the exit code (exit_codes.h).
int RunPolicyDeskAction(const CommandLine& line, const ActionArguments& action);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_POLICY_DESK_COMMAND_H_
