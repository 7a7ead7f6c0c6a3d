#include "cli/policy/policy_bounds.h"

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// Walks TOML text outside strings and comments, counting what the bounds
// limit.
class BoundsScanner {
 public:
  explicit BoundsScanner(std::string_view text) : text_(text) {}

  std::optional<PolicyBoundError> Run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') {
        SkipTo("\n");
      } else if (c == '"' || c == '\'') {
        SkipString(c);
      } else {
        if (auto error = Count(c)) return error;
        ++i_;
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<PolicyBoundError> Count(char c) {
    switch (c) {
      case '\n':
        ++line_;
        dots_ = 0;
        break;
      case '[':
      case '{':
        if (++depth_ > kMaxPolicyNesting) {
          return Error(absl::StrCat("tables or arrays nested more than ",
                                    kMaxPolicyNesting, " deep"));
        }
        break;
      case ']':
      case '}':
        if (depth_ > 0) --depth_;
        break;
      case '.':
        if (++dots_ >= kMaxPolicyKeyParts) {
          return Error(absl::StrCat("a key of more than ", kMaxPolicyKeyParts,
                                    " dotted parts"));
        }
        break;
      case '=':
        dots_ = 0;
        if (++keys_ > kMaxPolicyKeys) {
          return Error(absl::StrCat("more than ", kMaxPolicyKeys, " keys"));
        }
        break;
      case ',':
        dots_ = 0;
        break;
      default:
        break;
    }
    return std::nullopt;
  }

  // Past the string opening at i_ ('"', '\'' or their triple forms).
  void SkipString(char quote) {
    const std::string triple(3, quote);
    if (text_.substr(i_, 3) == triple) {
      i_ += 3;
      SkipTo(triple, quote == '"');
      return;
    }
    ++i_;
    SkipTo(std::string(1, quote), quote == '"', /*line_ends=*/true);
  }

  // Past the next `end`; a backslash escapes the next character when
  // `escapes`; a line break ends a one-line string (TOML's error, which
  // the parser then reports).
  void SkipTo(std::string_view end, bool escapes = false,
              bool line_ends = false) {
    while (i_ < text_.size()) {
      if (escapes && text_[i_] == '\\') {
        if (i_ + 1 < text_.size() && text_[i_ + 1] == '\n') ++line_;
        i_ += 2;
        continue;
      }
      if (text_[i_] == '\n') {
        if (line_ends || end == "\n") return;  // Count() takes the '\n'
        ++line_;
      }
      if (text_.substr(i_, end.size()) == end) {
        i_ += end.size();
        return;
      }
      ++i_;
    }
  }

  PolicyBoundError Error(std::string message) const {
    return PolicyBoundError{line_, std::move(message)};
  }

  std::string_view text_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  int depth_ = 0;
  int dots_ = 0;
  int keys_ = 0;
};

}  // namespace

std::optional<PolicyBoundError> PolicyBoundsError(std::string_view text) {
  if (text.size() > kMaxPolicyBytes) {
    return PolicyBoundError{
        1, absl::StrCat("the file is over ", kMaxPolicyBytes >> 20,
                        " MiB; a policy is far smaller")};
  }
  return BoundsScanner(text).Run();
}

}  // namespace leakhound
