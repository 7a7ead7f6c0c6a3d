// `leakhound label add|remove ID|PREFIX/ LABEL...`: one-off labels of
// protected documents, beside those their source declares (which only
// `leakhound sources set` changes). docs/cli.md is the contract.
//
// Thread-safety: runs the whole command on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_LABEL_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_LABEL_COMMAND_H_

namespace leakhound {

int RunLabelCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_LABEL_COMMAND_H_
