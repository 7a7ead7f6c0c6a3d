// What names an incident store (docs/fleet.md): a SQLite file's path, or a
// PostgreSQL database's libpq URI; and how a name is shown in logs.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_INCIDENTS_STORE_TARGET_H_
#define LEAKHOUND_CLI_INCIDENTS_STORE_TARGET_H_

#include <string>
#include <string_view>

namespace leakhound {

// True for a libpq connection URI (postgresql:// or postgres://): the
// store is a PostgreSQL database, not a file.
bool IsDatabaseUri(std::string_view target);
// `target` fit for a log line or an error: a URI's password (user:pw@ or
// password=) replaced by "***".
std::string RedactedTarget(std::string_view target);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_STORE_TARGET_H_
