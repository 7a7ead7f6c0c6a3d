// Policy bounds: the limits a policy file must keep before the TOML parser
// sees it. toml++ parses dotted keys and nested tables and arrays by
// recursion, so a header of 40,000 dotted keys (80 KB) overflows the
// stack; a policy file is untrusted input, and a reload that crashes takes
// the milter with it. These bounds are far above any real policy.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_BOUNDS_H_
#define LEAKHOUND_CLI_POLICY_POLICY_BOUNDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leakhound {

inline constexpr size_t kMaxPolicyBytes = 1 << 20;  // 1 MiB
inline constexpr int kMaxPolicyKeyParts = 8;        // a.b.c...: parts
inline constexpr int kMaxPolicyNesting = 16;        // [ and { open at once
inline constexpr int kMaxPolicyKeys = 50000;        // '=' in the file

// The first bound `text` passes, as its line (1-based) and a sentence
// ("a key of more than 8 dotted parts"); nullopt when it keeps them all.
// Strings and comments are skipped as TOML reads them, so their content
// counts for nothing.
struct PolicyBoundError {
  uint32_t line = 0;
  std::string message;
};
std::optional<PolicyBoundError> PolicyBoundsError(std::string_view text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_BOUNDS_H_
