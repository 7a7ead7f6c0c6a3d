// The one file that calls libldap.
#include "cli/gateway/directory.h"

#include <ldap.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

constexpr size_t kMaxMembers = 100'000;

struct LdapCloser {
  void operator()(LDAP* ld) const { ldap_unbind_ext_s(ld, nullptr, nullptr); }
};
using Connection = std::unique_ptr<LDAP, LdapCloser>;

struct MessageFree {
  void operator()(LDAPMessage* m) const { ldap_msgfree(m); }
};
using Result = std::unique_ptr<LDAPMessage, MessageFree>;

absl::Status StatusOf(int code, const std::string& what) {
  const std::string text =
      absl::StrCat("directory: ", what, ": ", ldap_err2string(code));
  switch (code) {
    case LDAP_SUCCESS:
      return absl::OkStatus();
    case LDAP_INVALID_CREDENTIALS:
    case LDAP_INAPPROPRIATE_AUTH:
    case LDAP_INSUFFICIENT_ACCESS:
    case LDAP_CONFIDENTIALITY_REQUIRED:
    case LDAP_STRONG_AUTH_REQUIRED:
      return absl::PermissionDeniedError(text);
    case LDAP_NO_SUCH_OBJECT:
      return absl::NotFoundError(text);
    case LDAP_TIMEOUT:
    case LDAP_TIMELIMIT_EXCEEDED:
      return absl::DeadlineExceededError(text);
    default:
      return absl::UnavailableError(text);
  }
}

timeval Timeval(double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  return tv;
}

// A connection to the server, TLS set up and checked, not yet bound.
absl::StatusOr<Connection> Connect(const DirectorySettings& s) {
  LDAP* raw = nullptr;
  int rc = ldap_initialize(&raw, s.url.c_str());
  if (rc != LDAP_SUCCESS) return StatusOf(rc, "bad url " + s.url);
  Connection ld(raw);
  const int version = LDAP_VERSION3;
  ldap_set_option(ld.get(), LDAP_OPT_PROTOCOL_VERSION, &version);
  ldap_set_option(ld.get(), LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
  const timeval timeout = Timeval(s.timeout_seconds);
  ldap_set_option(ld.get(), LDAP_OPT_NETWORK_TIMEOUT, &timeout);
  ldap_set_option(ld.get(), LDAP_OPT_TIMEOUT, &timeout);
  const int demand = LDAP_OPT_X_TLS_DEMAND;
  ldap_set_option(ld.get(), LDAP_OPT_X_TLS_REQUIRE_CERT, &demand);
  if (!s.ca_file.empty()) {
    ldap_set_option(ld.get(), LDAP_OPT_X_TLS_CACERTFILE, s.ca_file.c_str());
  }
  const int new_context = 0;
  ldap_set_option(ld.get(), LDAP_OPT_X_TLS_NEWCTX, &new_context);
  if (s.url.starts_with("ldap://") && s.start_tls) {
    rc = ldap_start_tls_s(ld.get(), nullptr, nullptr);
    if (rc != LDAP_SUCCESS) return StatusOf(rc, "StartTLS with " + s.url);
  }
  return ld;
}

absl::Status Bind(LDAP* ld, const std::string& dn, const std::string& password) {
  berval cred{};
  cred.bv_val = const_cast<char*>(password.c_str());
  cred.bv_len = password.size();
  const int rc = ldap_sasl_bind_s(ld, dn.empty() ? nullptr : dn.c_str(),
                                  LDAP_SASL_SIMPLE, &cred, nullptr, nullptr,
                                  nullptr);
  return StatusOf(rc, "bind as " + (dn.empty() ? std::string("anonymous") : dn));
}

absl::StatusOr<Result> Search(LDAP* ld, const DirectorySettings& s,
                              const std::string& base, int scope,
                              const std::string& filter,
                              std::vector<const char*> attributes) {
  attributes.push_back(nullptr);
  timeval timeout = Timeval(s.timeout_seconds);
  LDAPMessage* raw = nullptr;
  const int rc = ldap_search_ext_s(
      ld, base.c_str(), scope, filter.c_str(),
      const_cast<char**>(attributes.data()), 0, nullptr, nullptr, &timeout,
      static_cast<int>(kMaxMembers), &raw);
  Result result(raw);
  if (rc != LDAP_SUCCESS && rc != LDAP_SIZELIMIT_EXCEEDED) {
    return StatusOf(rc, "search " + base);
  }
  return result;
}

std::vector<std::string> Values(LDAP* ld, LDAPMessage* entry,
                                const char* attribute) {
  std::vector<std::string> out;
  berval** values = ldap_get_values_len(ld, entry, attribute);
  if (values == nullptr) return out;
  for (berval** v = values; *v != nullptr; ++v) {
    out.emplace_back((*v)->bv_val, (*v)->bv_len);
  }
  ldap_value_free_len(values);
  return out;
}

// The member DNs of the group entry `dn`.
absl::StatusOr<std::vector<std::string>> MemberDns(LDAP* ld,
                                                   const DirectorySettings& s,
                                                   const std::string& dn) {
  auto result = Search(ld, s, dn, LDAP_SCOPE_BASE, "(objectClass=*)",
                       {"member", "uniqueMember"});
  if (!result.ok()) return result.status();
  LDAPMessage* entry = ldap_first_entry(ld, result->get());
  if (entry == nullptr) return absl::NotFoundError("directory: no group " + dn);
  std::vector<std::string> members = Values(ld, entry, "member");
  for (std::string& m : Values(ld, entry, "uniqueMember")) {
    members.push_back(std::move(m));
  }
  return members;
}

}  // namespace

std::string EscapeFilterValue(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '*' || c == '(' || c == ')' || c == '\\' || c == '\0') {
      absl::StrAppendFormat(&out, "\\%02x", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

Directory::Directory(DirectorySettings settings, std::string bind_password)
    : settings_(std::move(settings)), bind_password_(std::move(bind_password)) {}

absl::StatusOr<std::vector<std::string>> Directory::GroupMembers(
    const std::string& group_dn) const {
  auto ld = Connect(settings_);
  if (!ld.ok()) return ld.status();
  if (absl::Status s = Bind(ld->get(), settings_.bind_dn, bind_password_);
      !s.ok()) {
    return s;
  }
  auto members = MemberDns(ld->get(), settings_, group_dn);
  if (!members.ok()) return members.status();
  std::set<std::string> addresses;
  for (const std::string& member : *members) {
    if (addresses.size() >= kMaxMembers) break;
    auto result = Search(ld->get(), settings_, member, LDAP_SCOPE_BASE,
                         "(objectClass=*)", {settings_.mail_attribute.c_str()});
    if (!result.ok()) {
      if (absl::IsNotFound(result.status())) continue;  // a stale member
      return result.status();
    }
    LDAPMessage* entry = ldap_first_entry(ld->get(), result->get());
    if (entry == nullptr) continue;
    for (const std::string& mail :
         Values(ld->get(), entry, settings_.mail_attribute.c_str())) {
      addresses.insert(absl::AsciiStrToLower(mail));
    }
  }
  return std::vector<std::string>(addresses.begin(), addresses.end());
}

absl::StatusOr<DirectoryAccount> Directory::Login(
    const std::string& name, const std::string& password,
    const std::vector<std::string>& groups) const {
  const absl::Status refused =
      absl::PermissionDeniedError("directory: unknown user or wrong password");
  // An empty password would be an unauthenticated bind, which succeeds.
  if (name.empty() || password.empty()) return refused;
  auto ld = Connect(settings_);
  if (!ld.ok()) return ld.status();
  if (absl::Status s = Bind(ld->get(), settings_.bind_dn, bind_password_);
      !s.ok()) {
    return s;
  }
  std::string filter = settings_.user_filter;
  filter.replace(filter.find("%s"), 2, EscapeFilterValue(name));
  auto found =
      Search(ld->get(), settings_, settings_.base_dn, LDAP_SCOPE_SUBTREE,
             filter, {settings_.mail_attribute.c_str()});
  if (!found.ok()) return found.status();
  if (ldap_count_entries(ld->get(), found->get()) != 1) return refused;
  LDAPMessage* entry = ldap_first_entry(ld->get(), found->get());
  char* dn_raw = ldap_get_dn(ld->get(), entry);
  if (dn_raw == nullptr) return refused;
  DirectoryAccount account;
  account.dn = dn_raw;
  ldap_memfree(dn_raw);
  for (const std::string& mail :
       Values(ld->get(), entry, settings_.mail_attribute.c_str())) {
    account.mail.push_back(absl::AsciiStrToLower(mail));
  }
  const std::string& dn = account.dn;
  // The user's own bind, on a connection of its own.
  auto user = Connect(settings_);
  if (!user.ok()) return user.status();
  if (absl::Status s = Bind(user->get(), dn, password); !s.ok()) {
    return absl::IsPermissionDenied(s) ? refused : s;
  }
  std::vector<std::string>& in = account.groups;
  for (const std::string& group : groups) {
    auto members = MemberDns(ld->get(), settings_, group);
    if (!members.ok()) {
      if (absl::IsNotFound(members.status())) continue;
      return members.status();
    }
    const std::string lower = absl::AsciiStrToLower(dn);
    if (std::any_of(members->begin(), members->end(),
                    [&](const std::string& m) { return absl::AsciiStrToLower(m) == lower; })) {
      in.push_back(group);
    }
  }
  return account;
}

}  // namespace leakhound
