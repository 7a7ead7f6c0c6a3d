// The pages of the console's self-service override (docs/overrides.md):
// what a sender sees of their held message. Never any protected text and
// nothing of another sender's mail: before they log in, only that a
// message is held under the reference; after, its subject, recipients,
// the rule and its text.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_OVERRIDE_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_OVERRIDE_PAGES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace leakhound {

// The held message, as its sender may see it.
struct OverrideView {
  std::string reference;
  std::string subject;
  std::vector<std::string> recipients;
  std::string rule;
  std::string rule_text;  // the rule's reject_text; may be empty
  int64_t time_ms = 0;
  int64_t until_ms = 0;
  uint32_t min_chars = 0;
};

// How a sender proves who they are: the directory's login form (when the
// console has a directory) and the button that mails a one-time link to
// the message's sender (when the console can send mail). `csrf` is the
// login forms' token; `error` and `notice` are shown above (may be
// empty).
struct OverrideLoginOptions {
  bool directory = false;
  bool links = false;
};
std::string OverrideLoginPage(const std::string& reference,
                              const std::string& csrf,
                              const OverrideLoginOptions& ways,
                              const std::string& error,
                              const std::string& notice);

// The justification form, for the logged-in sender `who`.
std::string OverrideFormPage(const OverrideView& view, const std::string& csrf,
                             const std::string& who, const std::string& error);

// A blocked upload's coaching form (web, docs/overrides.md), posting to
// /coach/REFERENCE?t=TOKEN: a justification of at least `min_chars`
// (kind "justify") or a confirmation ("acknowledge").
std::string CoachPage(const std::string& reference, const std::string& token,
                      const std::string& kind, uint32_t min_chars,
                      int64_t minutes);

// A page that ends the visit: `title` and `text`.
std::string OverrideEndPage(const std::string& title, const std::string& text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_OVERRIDE_PAGES_H_
