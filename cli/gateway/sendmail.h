// SendMail: hands one mail to the local MTA's sendmail(1), run directly
// (no shell) with the null envelope sender, so that a bounce never comes
// back as mail to judge. Used by the notices (notifier.h) and by the
// console's one-time links (docs/overrides.md).
//
// Thread-safety: thread-safe; SIGPIPE is blocked in the calling thread
// while the mail is written (a sendmail that exits early fails the write,
// it does not end the process).
#ifndef LEAKHOUND_CLI_GATEWAY_SENDMAIL_H_
#define LEAKHOUND_CLI_GATEWAY_SENDMAIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace leakhound {

// Whether `address` is one RFC 5321 mailbox a notice may go to: a
// dot-atom local part (UTF-8 allowed, RFC 6531) of at most 64 bytes, '@',
// and a domain of letters, digits and hyphens in dot-separated labels (or
// UTF-8), at most 254 bytes in all. Refused: a quoted local part, an
// address literal, a comma, a space, a leading '-' or anything sendmail
// would read as more than one address ("a@x,evil@y").
bool IsMailbox(std::string_view address);

// Pipes `mail` (headers and body) to `command` ("/usr/sbin/sendmail" and
// its leading arguments) with "-i -f <> -- TO". InvalidArgument when `to`
// is not one mailbox; Unavailable when sendmail cannot run or fails.
// REQUIRES: command is not empty.
absl::Status SendMail(const std::vector<std::string>& command,
                      const std::string& to, const std::string& mail);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_SENDMAIL_H_
