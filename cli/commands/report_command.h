// `leakhound report`: the desk's report of a period (docs/console.md,
// "Reports"), rendered to files by hand, or the policy's [[report]]s that
// are due mailed through sendmail (from a timer).
//
// Thread-safety: runs on the main thread.
#ifndef LEAKHOUND_CLI_COMMANDS_REPORT_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_REPORT_COMMAND_H_

namespace leakhound {

// Exit codes: 0 ok; 2 error (a report not sent is an error).
int RunReportCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_REPORT_COMMAND_H_
