// The console's view of what an incident's facts say beyond its passages
// (docs/labels.md, docs/policy.md "Cumulative"): the sensitivity labels of
// its parts, and the story of a cumulative (drip) rule: the distinct text
// the sender sent within the window and the earlier messages that added
// up to it, each a link to its incident. Fragments of the incident page;
// every value escaped.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_STORY_PAGES_H_
#define LEAKHOUND_CLI_CONSOLE_STORY_PAGES_H_

#include <string>

#include "cli/incidents/incident.h"

namespace leakhound {

// Appends the "Labels" and "Cumulative" sections of `i` to *out (nothing
// when its facts hold neither).
void AppendLabelsAndStory(const Incident& i, std::string* out);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_STORY_PAGES_H_
