// `leakhound fleet`: the nodes of a fleet as its desk sees them, and a
// one-shot report of a host that runs no gateway (the index writer) to the
// desk (docs/fleet.md).
//
// Thread-safety: runs on the main thread.
#ifndef LEAKHOUND_CLI_COMMANDS_FLEET_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_FLEET_COMMAND_H_

namespace leakhound {

// Exit codes: 0 ok; 1 (nodes) a node is flagged; 2 error.
int RunFleetCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_FLEET_COMMAND_H_
