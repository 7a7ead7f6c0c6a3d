#include "cli/console/safe_next.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace leakhound {
namespace {

// `text` with each %XX decoded (once; an incomplete one kept as is).
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    int value = 0;
    if (text[k] == '%' && k + 2 < text.size() &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[k + 1])) &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[k + 2])) &&
        absl::SimpleHexAtoi(std::string(text.substr(k + 1, 2)), &value)) {
      out += static_cast<char>(value);
      k += 2;
    } else {
      out += text[k];
    }
  }
  return out;
}

}  // namespace

std::string SafeNext(const std::string& next) {
  const bool plain = std::all_of(next.begin(), next.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/?&=%._-+").find(c) != std::string_view::npos;
  });
  const std::string decoded = PercentDecoded(next);
  const bool hidden = std::any_of(decoded.begin(), decoded.end(), [](char c) {
    return absl::ascii_iscntrl(static_cast<unsigned char>(c)) || c == '\\';
  });
  if (!plain || hidden || decoded.size() < 2 || decoded[0] != '/' ||
      !absl::ascii_isalnum(static_cast<unsigned char>(decoded[1])) ||
      decoded.find("//") != std::string::npos) {
    return "/incidents";
  }
  return next;
}

}  // namespace leakhound
