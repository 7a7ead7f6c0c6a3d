// OverrideLink: the one-time links the console mails to a sender whose
// message is held under an override rule (docs/overrides.md). A link is
// CONSOLE/override/REFERENCE?t=TOKEN; TOKEN is "EXPIRES.NONCE.MAC" where
// MAC is HMAC-SHA-256, under a key only the console holds, of the
// incident's reference, its sender (lower case), EXPIRES (Unix ms) and
// NONCE (a random token): changing any of them, or opening the link for
// another incident or sender, fails the check. Whether a nonce was opened
// already is the store's (IncidentStore::ConsumeOverrideLink).
// PERSISTED (in mails already sent): the token's form and the MAC's input.
//
// Thread-safety: pure functions, but LoadLinkKey, which reads or creates
// a file.
#ifndef LEAKHOUND_CLI_CONSOLE_OVERRIDE_LINK_H_
#define LEAKHOUND_CLI_CONSOLE_OVERRIDE_LINK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

struct OverrideLinkClaims {
  std::string reference;  // "LH-..."
  std::string sender;     // compared without case
  int64_t expires_ms = 0;
  std::string nonce;  // [0-9a-f]+
};

// The token of `claims`. REQUIRES: key is not empty; nonce is hex.
std::string SignOverrideLink(std::string_view key,
                             const OverrideLinkClaims& claims);

// The nonce of `token` when it was signed under `key` for `reference` and
// `sender` and has not expired at `now_ms`. PermissionDenied for a token
// that is malformed, forged or for another incident or sender;
// DeadlineExceeded for an expired one.
absl::StatusOr<std::string> VerifyOverrideLink(std::string_view key,
                                               std::string_view token,
                                               const std::string& reference,
                                               const std::string& sender,
                                               int64_t now_ms);

// The key in `path` (64 hex digits), created owner-only with a random key
// when the file does not exist. InvalidArgument for a file that does not
// hold one; PermissionDenied for one others may read.
absl::StatusOr<std::string> LoadLinkKey(const std::string& path);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_OVERRIDE_LINK_H_
