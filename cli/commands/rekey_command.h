// `leakhound rekey`: rebuilds an index under a fresh fingerprint key (the
// temporal re-seeding of seed 003; docs/seed-003-spatio-temporal.md). The
// index stores neither texts nor anything a new key could be applied to, so
// every protected document and allow-list entry is read again from the
// source it was added from, and must still have the text it had then (its
// SHA-256). If any cannot be, the command refuses, lists them, and changes
// nothing. Otherwise it builds the new index beside the old one and swaps
// the two directories atomically (renameat2 RENAME_EXCHANGE): a crash
// leaves either index whole at DIR, and at most a leftover sibling
// DIR.rekey-XXXXXX to delete. Same conventions as admin_commands.h;
// docs/cli.md is the contract.
//
// Thread-safety: runs the whole command on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_REKEY_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_REKEY_COMMAND_H_

namespace leakhound {

int RunRekeyCommand(int argc, char** argv);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_REKEY_COMMAND_H_
