// Exit codes of the leakhound command (a stable contract, docs/cli.md),
// modelled on grep and clamscan.
#ifndef LEAKHOUND_CLI_EXIT_CODES_H_
#define LEAKHOUND_CLI_EXIT_CODES_H_

namespace leakhound {

inline constexpr int kExitOk = 0;     // success; for scan: nothing leaked
inline constexpr int kExitLeak = 1;   // scan found at least one leak
inline constexpr int kExitError = 2;  // usage error or any input failed

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_EXIT_CODES_H_
