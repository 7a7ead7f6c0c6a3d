// `leakhound sync --index DIR [--dry-run] [--label L]... [LIMITS] SOURCE...`:
// makes the protected documents that came from under the SOURCE files and
// directories equal to what is there now: new files are added, files whose
// extracted text changed (SHA-256) are replaced, documents whose source
// file is gone are removed; documents added from elsewhere are left alone.
// Idempotent: a second run changes nothing. One line per change and a
// summary; exit 0, or 2 when any file failed (the others are synced).
// docs/cli.md is the contract.
//
// Thread-safety: runs on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_SYNC_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_SYNC_COMMAND_H_

namespace leakhound {

int RunSyncCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SYNC_COMMAND_H_
