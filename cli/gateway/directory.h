// Directory: an LDAP directory (OpenLDAP, Active Directory) read for the
// policy's directory groups and for console logins. Every operation opens
// its own connection, secured with TLS (ldaps://, or StartTLS on ldap://
// unless the settings turn it off), the server's certificate checked
// against ca_file, each step bounded by timeout_seconds. The one file that
// calls libldap is directory.cc.
//
// Thread-safety: a Directory is immutable; its methods may run
// concurrently (each on its own connection).
#ifndef LEAKHOUND_CLI_GATEWAY_DIRECTORY_H_
#define LEAKHOUND_CLI_GATEWAY_DIRECTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/policy/policy.h"

namespace leakhound {

// Who logged in: their entry, its addresses (the mail attribute, lower
// case) and the groups asked about that list them.
struct DirectoryAccount {
  std::string dn;
  std::vector<std::string> mail;
  std::vector<std::string> groups;
};

class Directory {
 public:
  // `bind_password`: the service account's (read by the caller from
  // settings.bind_password_file); "" with an empty bind_dn: anonymous.
  Directory(DirectorySettings settings, std::string bind_password);

  // The addresses (the mail attribute, lower case) of the members of the
  // group entry `group_dn` (groupOfNames' member, groupOfUniqueNames'
  // uniqueMember; a member without a mail attribute is skipped), at most
  // 100,000. Errors: Unavailable (the server cannot be reached, TLS
  // fails), PermissionDenied (the bind is refused), NotFound (no such
  // group), DeadlineExceeded.
  absl::StatusOr<std::vector<std::string>> GroupMembers(
      const std::string& group_dn) const;

  // A console login: finds the user `name` under base_dn with
  // user_filter, binds as them with `password`, and returns their entry,
  // addresses and the DNs of the groups (among `groups`) that list them
  // as a member.
  // PermissionDenied for an unknown user or a wrong password (one
  // message for both), and the errors above.
  absl::StatusOr<DirectoryAccount> Login(
      const std::string& name, const std::string& password,
      const std::vector<std::string>& groups) const;

 private:
  const DirectorySettings settings_;
  const std::string bind_password_;
};

// `text` with the characters an LDAP filter gives meaning to escaped
// (RFC 4515: * ( ) \ NUL).
std::string EscapeFilterValue(const std::string& text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DIRECTORY_H_
