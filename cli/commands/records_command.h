// `leakhound records`: protected tables for exact data match (add,
// replace, remove, list, stats; docs/records.md).
#ifndef LEAKHOUND_CLI_COMMANDS_RECORDS_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_RECORDS_COMMAND_H_

namespace leakhound {

int RunRecordsCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_RECORDS_COMMAND_H_
