// `leakhound scan`: scans files, directories (recursively) and standard
// input for passages of protected documents, in parallel across files,
// reporting in input order (scan_output.h). Exit code: 2 if any file could
// not be scanned (or on a usage or index error), else 1 if a leak was
// found, else 0. docs/cli.md is the contract.
//
// Thread-safety: runs on the calling thread plus --threads workers it joins
// before returning.
#ifndef LEAKHOUND_CLI_COMMANDS_SCAN_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_SCAN_COMMAND_H_

namespace leakhound {

int RunScanCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SCAN_COMMAND_H_
