#include "cli/gateway/directory_groups.h"

#include "index/trusted_path.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "index/trusted_path.h"

namespace leakhound {

Policy ExpandDirectoryGroups(const Policy& policy, const Directory& directory,
                             const Policy* previous,
                             std::vector<std::string>* errors) {
  Policy out = policy;
  for (const auto& [name, dn] : policy.directory_groups) {
    absl::StatusOr<std::vector<std::string>> members =
        directory.GroupMembers(dn);
    if (members.ok()) {
      out.groups[name] = *std::move(members);
      continue;
    }
    errors->push_back(
        absl::StrCat("group ", name, " (", dn, "): ", members.status().message()));
    if (previous == nullptr) continue;
    auto was = previous->directory_groups.find(name);
    auto had = previous->groups.find(name);
    if (was != previous->directory_groups.end() && was->second == dn &&
        had != previous->groups.end()) {
      out.groups[name] = had->second;
    }
  }
  return out;
}

absl::StatusOr<Directory> OpenDirectory(const DirectorySettings& settings) {
  std::string password;
  if (!settings.bind_password_file.empty()) {
    // Only a file no other user could have written or swapped: else a
    // policy (or a folder) they control sends any root-only file's content
    // to their listener as the bind password.
    absl::Status trusted = CheckTrustedFile(settings.bind_password_file,
                                            "directory: bind_password_file");
    if (!trusted.ok()) return trusted;
    std::ifstream in(settings.bind_password_file);
    if (!in) {
      return absl::NotFoundError(absl::StrCat(
          "directory: cannot read ", settings.bind_password_file));
    }
    std::getline(in, password);
  }
  return Directory(settings, std::move(password));
}

}  // namespace leakhound
