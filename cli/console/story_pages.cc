#include "cli/console/story_pages.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/gateway/cumulative_facts.h"
#include "cli/gateway/html_text.h"
#include "cli/gateway/label_facts.h"

namespace leakhound {
namespace {

// A link to the incident named `reference` (references are letters,
// digits and '-': anything else is shown, not linked).
std::string IncidentLink(const std::string& reference) {
  const bool plain =
      !reference.empty() &&
      reference.find_first_not_of(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == std::string::npos;
  if (!plain) return Html(reference);
  return absl::StrCat("<a href=\"/incidents?reference=", reference, "\">",
                      reference, "</a>");
}

void AppendStory(const CumulativeFact& c, std::string* out) {
  absl::StrAppend(
      out, "<li><b>",
      c.rows > 0 ? absl::StrCat(c.rows, " rows") : absl::StrCat(c.words, " words"),
      "</b> of ", Html(c.target),
      c.rows > 0 ? "" : absl::StrFormat(" (%.0f %%)", 100 * c.share),
      " sent by the ", c.per == "sender" ? "sender" : "sender's domain",
      " within ", c.days, " days: this message and ", c.earlier.size(),
      c.earlier.size() == 1 ? " before it" : " before it, oldest first");
  if (!c.earlier.empty()) {
    *out += "<ol class=\"story\">";
    for (const std::string& r : c.earlier) {
      absl::StrAppend(out, "<li>", IncidentLink(r), "</li>");
    }
    *out += "</ol>";
  }
  *out += "</li>";
}

}  // namespace

void AppendLabelsAndStory(const Incident& i, std::string* out) {
  std::vector<std::string> labels;
  std::string story;
  for (const IncidentDocument& d : i.facts) {
    if (CumulativeFact c; ReadCumulativeFact(d, &c)) {
      AppendStory(c, &story);
    } else if (PartFacts p; ReadPartFact(d, &p) && !p.labels.empty()) {
      std::vector<std::string> names;
      for (const LabelFact& l : p.labels) {
        names.push_back(Html(l.name.empty() ? l.id : l.name));
      }
      labels.push_back(absl::StrCat(
          "<li>", p.name.empty() ? "its own text" : Html(p.name), ": ",
          absl::StrJoin(names, ", "), "</li>"));
    }
  }
  if (!labels.empty()) {
    absl::StrAppend(out, "<h2>Sensitivity labels</h2><ul class=\"labels\">",
                    absl::StrJoin(labels, ""), "</ul>");
  }
  if (!story.empty()) {
    absl::StrAppend(out, "<h2>Cumulative</h2><ul class=\"cumulative\">", story,
                    "</ul>");
  }
}

}  // namespace leakhound
