#include "cli/policy/group_file.h"

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "index/trusted_path.h"
#include "shingler/host_name.h"

namespace leakhound {

std::optional<std::string> AddressPatternError(std::string& pattern) {
  const size_t at = pattern.find('@');
  const std::string usage =
      absl::StrCat("malformed address pattern '", pattern,
                   "' (user@domain, @domain or group:NAME");
  if (at == std::string::npos ||
      pattern.find('@', at + 1) != std::string::npos ||
      pattern.find_first_of(" \t,;<>") != std::string::npos) {
    return usage + ")";
  }
  auto host = HostName(std::string_view(pattern).substr(at + 1));
  if (!host.ok()) {
    return absl::StrCat(usage, "): ", host.status().message());
  }
  pattern = pattern.substr(0, at + 1) + *host;
  return std::nullopt;
}

std::vector<std::string> ReadGroupFile(const std::string& policy_path,
                                       const std::string& file,
                                       std::string* error,
                                       std::vector<std::string>* line_errors) {
  std::string path = file;
  const size_t slash = policy_path.rfind('/');
  if (!file.starts_with('/') && slash != std::string::npos) {
    path = policy_path.substr(0, slash + 1) + file;
  }
  if (absl::Status s = CheckTrustedFile(path, "group file"); !s.ok()) {
    *error = std::string(s.message());
    return {};
  }
  std::ifstream in(path);
  if (!in) {
    *error = absl::StrCat("cannot read the group file ", path);
    return {};
  }
  std::vector<std::string> members;
  uint32_t number = 0;
  for (std::string text; std::getline(in, text);) {
    ++number;
    std::string p = absl::AsciiStrToLower(
        absl::StripAsciiWhitespace(text.substr(0, text.find('#'))));
    if (p.empty()) continue;
    if (auto why = AddressPatternError(p)) {
      line_errors->push_back(absl::StrCat(path, ":", number, ": ", *why));
      continue;
    }
    members.push_back(std::move(p));
  }
  return members;
}

}  // namespace leakhound
