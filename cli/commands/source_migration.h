// `leakhound sources migrate`: turns an index built the old way (`add` and
// `sync` of folders, ids the folder's name and the path below it) into one
// of registered sources (engine/protected_sources.h): each folder that was
// added becomes a source named after it, the outermost where folders nest;
// the labels all its documents share become the source's; documents get
// their source's id (renamed where an id came from another folder named),
// and of two documents from one file the older goes. What it cannot
// attribute (files added one by one) stays as it is, listed.
//
// Thread-safety: runs on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_SOURCE_MIGRATION_H_
#define LEAKHOUND_CLI_COMMANDS_SOURCE_MIGRATION_H_

#include "engine/protected_index.h"

namespace leakhound {

// Prints a line per change and a summary; returns the exit code. `dry`:
// says what it would do. REQUIRES: `index` open for writing unless `dry`.
int MigrateToSources(ProtectedIndex& index, bool dry);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SOURCE_MIGRATION_H_
