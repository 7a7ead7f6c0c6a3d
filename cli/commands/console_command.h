// `leakhound console`: serves the web console (cli/console/) until SIGTERM
// or SIGINT, and `leakhound console user add|remove|passwd|list` manages
// its users in the incident store. docs/console.md is the guide.
//
// Thread-safety: runs on the calling thread plus the server's threads,
// which it stops and joins before returning.
#ifndef LEAKHOUND_CLI_COMMANDS_CONSOLE_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_CONSOLE_COMMAND_H_

namespace leakhound {

int RunConsoleCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_CONSOLE_COMMAND_H_
