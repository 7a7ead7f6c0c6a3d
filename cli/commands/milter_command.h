// `leakhound milter`: the mail-gateway daemon (cli/milter/): serves the
// milter protocol on a socket in the foreground, judges every message
// against the index, reloads the index on SIGHUP and on a timer, and stops
// cleanly on SIGTERM (messages in flight finish). docs/mail-gateway.md is
// the contract.
//
// Thread-safety: call from the main thread (it handles the process's
// SIGHUP, SIGTERM and SIGINT); libmilter runs on threads it joins.
#ifndef LEAKHOUND_CLI_COMMANDS_MILTER_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_MILTER_COMMAND_H_

namespace leakhound {

int RunMilterCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_MILTER_COMMAND_H_
