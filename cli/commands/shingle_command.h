// `leakhound shingle`: shingles files and prints, per file, its bytes, words
// and fingerprints (the inspection command; it needs no index and uses a
// throw-away random key, so it never prints a fingerprint).
//
// Thread-safety: runs on the calling thread; not reentrant (getopt).
#ifndef LEAKHOUND_CLI_COMMANDS_SHINGLE_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_SHINGLE_COMMAND_H_

namespace leakhound {

// argv[0] is "shingle". Returns an exit code (exit_codes.h).
int RunShingleCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SHINGLE_COMMAND_H_
