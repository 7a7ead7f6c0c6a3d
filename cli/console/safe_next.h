// SafeNext: where the console goes after a login, from the login form's
// `next`: a path on this site only. Only the characters of the console's
// own paths and queries pass (no tab, space or backslash, which browsers'
// URL parsing drops or turns into '/'), and after percent-decoding it
// starts with one '/' and a letter or digit and holds no "//", control
// character or backslash: "/.//evil.test", "/%2f/evil" and
// "/incidents%09//evil" go to the incident list.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_CONSOLE_SAFE_NEXT_H_
#define LEAKHOUND_CLI_CONSOLE_SAFE_NEXT_H_

#include <string>

namespace leakhound {

// `next` when it is such a path, else "/incidents".
std::string SafeNext(const std::string& next);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_SAFE_NEXT_H_
