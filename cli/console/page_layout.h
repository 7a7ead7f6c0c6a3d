// The frame every console page shares (console_pages.h, fleet_pages.h):
// who is looking and the roles, the layout with its navigation, and the
// hidden CSRF field and the confirmation tick of the forms that change
// state.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_PAGE_LAYOUT_H_
#define LEAKHOUND_CLI_CONSOLE_PAGE_LAYOUT_H_

#include <string>

namespace leakhound {

// Roles, in increasing power. PERSISTED in the users table.
inline constexpr const char* kRoles[] = {"viewer", "reviewer", "admin"};
// Whether `role` has at least the power of `needed`.
bool RoleAtLeast(const std::string& role, const std::string& needed);

// Who is looking, for the header and the forms.
struct PageContext {
  std::string user;
  std::string role;
  std::string csrf;
};

// A whole page: `title` escaped, `body` as given (already escaped);
// `ctx` null: not logged in (no navigation).
std::string Layout(const PageContext* ctx, const std::string& title,
                   const std::string& body);
// The session's CSRF token as a hidden field.
std::string CsrfField(const PageContext& ctx);
// The tick a destructive form needs before it is sent (the browser
// enforces `required`, and the server checks "confirm=yes" too); `id`
// names the box ("" for none).
std::string ConfirmField(const std::string& id);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_PAGE_LAYOUT_H_
