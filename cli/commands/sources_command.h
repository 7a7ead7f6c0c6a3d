// `leakhound sources add|list|remove|set|migrate`: the protected sources,
// folders whose files are protected as NAME/relative path with declared
// labels (engine/protected_sources.h). docs/cli.md is the contract.
//
// Thread-safety: each runs the whole command on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_SOURCES_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_SOURCES_COMMAND_H_

namespace leakhound {

int RunSourcesCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SOURCES_COMMAND_H_
