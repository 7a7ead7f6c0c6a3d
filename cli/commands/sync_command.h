// `leakhound sync --index DIR [--dry-run] [--label L]... [LIMITS] [PATH...]`:
// with no PATH, every registered source (`leakhound sources`); makes the
// protected documents that came from under the SOURCE files and
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

#include <string>
#include <vector>

#include "cli/commands/input_files.h"
#include "engine/protected_index.h"

namespace leakhound {

int RunSyncCommand(int argc, char** argv);

// How a sync reads files and what it may change.
struct SyncSettings {
  ExtractionLimits limits;
  UnreadablePolicy unreadable = UnreadablePolicy::kByOrigin;
  std::vector<std::string> labels;  // given on the command line
  bool dry = false;
};

// Syncs the documents from under `paths` (files and folders that exist)
// with them, printing a line per change and the summary; returns the exit
// code. Files under a registered source get its ids and labels.
// `settings` must outlive the call. REQUIRES: `index` open for writing
// unless settings.dry.
int SyncPaths(ProtectedIndex& index, const std::vector<std::string>& paths,
              const SyncSettings& settings);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SYNC_COMMAND_H_
