// UserName: the one canonical form of a login name, for every path that
// takes one (console logins, local users, directory binds, the lockout,
// sessions and the audit log). A directory ignores leading, trailing and
// repeated spaces and letter case in a uid; unless every path agrees on
// one form, " adm" and "ADM" slip past a lockout on "adm" and past a local
// user's precedence over the directory's. Lives in shingler/ because ICU
// does.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_SHINGLER_USER_NAME_H_
#define LEAKHOUND_SHINGLER_USER_NAME_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

// The longest name, in bytes, accepted (before and after folding).
inline constexpr size_t kMaxUserNameBytes = 256;

// `name` in NFC, case-folded (Unicode full folding), with every inner run
// of white space made one U+0020. InvalidArgument, with the reason in
// words, for an empty name, white space before or after it, malformed
// UTF-8, a control character (a tab or a line break too), or more than
// kMaxUserNameBytes.
absl::StatusOr<std::string> UserName(std::string_view name);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_USER_NAME_H_
