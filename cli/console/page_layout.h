// The frame every console page shares (console_pages.h, fleet_pages.h):
// the layout with its navigation, and the hidden CSRF field and the
// confirmation tick of the forms that change state. Internal to
// leakhound_console.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_PAGE_LAYOUT_H_
#define LEAKHOUND_CLI_CONSOLE_PAGE_LAYOUT_H_

#include <string>

#include "cli/console/console_pages.h"

namespace leakhound {

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
