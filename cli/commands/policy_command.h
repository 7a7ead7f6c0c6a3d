// `leakhound policy check|explain|replay`: the tools of the people who
// write policies (docs/policy.md).
#ifndef LEAKHOUND_CLI_COMMANDS_POLICY_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_POLICY_COMMAND_H_

namespace leakhound {

int RunPolicyCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_POLICY_COMMAND_H_
