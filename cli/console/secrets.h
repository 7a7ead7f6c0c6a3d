// Secrets: the console's password hashes and random tokens, from
// libsodium (the one file that calls it). Passwords are hashed with
// Argon2id (crypto_pwhash_str, its "interactive" limits: 64 MiB, 2 passes)
// into a self-describing string ("$argon2id$v=19$m=...") that the user
// table keeps; tokens (session ids, CSRF tokens) are 32 random bytes in
// hex.
//
// Thread-safety: thread-safe (InitSecrets runs once, on first use).
#ifndef LEAKHOUND_CLI_CONSOLE_SECRETS_H_
#define LEAKHOUND_CLI_CONSOLE_SECRETS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

// Hashes `password`; ResourceExhausted when the memory is not there,
// InvalidArgument for an empty password.
absl::StatusOr<std::string> HashPassword(std::string_view password);

// Whether `password` matches `hash` (in constant time for the hash's
// parameters). False for a malformed hash.
bool CheckPassword(std::string_view password, const std::string& hash);

// 64 hex digits from the system's CSPRNG.
std::string RandomToken();

// Whether `a` equals `b`, in time that does not depend on where they
// differ.
bool TokensEqual(std::string_view a, std::string_view b);

// HMAC-SHA-256 of `message` under `key` (any length), as 64 hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// The libsodium version (for `leakhound --version`).
std::string SodiumVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_SECRETS_H_
