// HtmlText: escaping for the pages leakhound renders (the console's, the
// web channel's block page). Everything shown that came from outside (mail
// subjects, snippets, document ids, user names, a rule's text) goes
// through Html or Url; ill-formed UTF-8
// becomes U+FFFD first (a browser must not guess an encoding).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_HTML_TEXT_H_
#define LEAKHOUND_CLI_GATEWAY_HTML_TEXT_H_

#include <string>
#include <string_view>

namespace leakhound {

// Text for an element's content or a quoted attribute value: & < > " '
// escaped.
std::string Html(std::string_view text);

// A query-string component: everything but unreserved characters
// percent-encoded.
std::string Url(std::string_view text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_HTML_TEXT_H_
