#include "cli/policy/label_conditions.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// The highest rank of `labels` (nullopt: none is ranked).
std::optional<size_t> HighestRank(const LabelSettings& settings,
                                  const std::vector<LabelFact>& labels) {
  std::optional<size_t> best;
  for (const LabelFact& l : labels) {
    const std::optional<size_t> r = LabelRank(settings, LabelName(settings, l));
    if (r && (!best || *r > *best)) best = r;
  }
  return best;
}

bool CarriesOneOf(const LabelSettings& settings, const PartFacts& part,
                  const std::vector<std::string>& names) {
  return std::any_of(
      part.labels.begin(), part.labels.end(), [&](const LabelFact& l) {
        const std::string name = LabelName(settings, l);
        return std::any_of(names.begin(), names.end(),
                           [&](const std::string& n) {
                             return absl::EqualsIgnoreCase(n, name);
                           });
      });
}

// Whether some part quotes a document ranked above the part's own label.
bool Downgraded(const LabelSettings& settings, const VerdictFacts& facts) {
  for (const PartFacts& part : facts.parts) {
    const std::optional<size_t> own = HighestRank(settings, part.labels);
    if (!own) continue;  // unlabelled, or a label [labels] does not rank
    for (const MatchedDocument& d : facts.documents) {
      if (std::find(part.documents.begin(), part.documents.end(), d.id) ==
          part.documents.end()) {
        continue;
      }
      const std::optional<size_t> theirs = HighestRank(settings, d.sensitivity);
      if (theirs && *theirs > *own) return true;
    }
  }
  return false;
}

bool UnlabelledAttachment(const VerdictFacts& facts) {
  return std::any_of(
      facts.parts.begin(), facts.parts.end(), [](const PartFacts& p) {
        return !p.name.empty() && p.labellable && p.labels.empty();
      });
}

}  // namespace

std::string LabelName(const LabelSettings& settings, const LabelFact& label) {
  if (!label.id.empty()) {
    auto it = settings.names.find(label.id);
    if (it != settings.names.end()) return it->second;
  }
  return label.name.empty() ? label.id : label.name;
}

std::optional<size_t> LabelRank(const LabelSettings& settings,
                                const std::string& name) {
  for (size_t i = 0; i < settings.order.size(); ++i) {
    if (absl::EqualsIgnoreCase(settings.order[i], name)) return i;
  }
  return std::nullopt;
}

bool HasLabelConditions(const PolicyConditions& c) {
  return !c.sensitivity.empty() || !c.sensitivity_at_least.empty() ||
         c.unlabelled_attachment.has_value() || c.label_downgrade.has_value();
}

bool LabelsHold(const LabelSettings& settings, const PolicyConditions& c,
                const VerdictFacts& facts, std::string* why) {
  const auto no = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!c.sensitivity.empty() &&
      std::none_of(facts.parts.begin(), facts.parts.end(),
                   [&](const PartFacts& p) {
                     return CarriesOneOf(settings, p, c.sensitivity);
                   })) {
    return no("sensitivity: no part carries one of those labels");
  }
  if (!c.sensitivity_at_least.empty()) {
    const std::optional<size_t> floor =
        LabelRank(settings, c.sensitivity_at_least);
    const bool reached =
        floor && std::any_of(facts.parts.begin(), facts.parts.end(),
                             [&](const PartFacts& p) {
                               const std::optional<size_t> r =
                                   HighestRank(settings, p.labels);
                               return r && *r >= *floor;
                             });
    if (!reached) {
      return no(
          absl::StrCat("sensitivity_at_least: no part carries a label "
                       "ranked at or above '",
                       c.sensitivity_at_least, "'"));
    }
  }
  if (c.unlabelled_attachment &&
      UnlabelledAttachment(facts) != *c.unlabelled_attachment) {
    return no(*c.unlabelled_attachment
                  ? "unlabelled_attachment = true: every attachment that "
                    "can carry a label carries one"
                  : "unlabelled_attachment = false: an attachment carries "
                    "no label");
  }
  if (c.label_downgrade && Downgraded(settings, facts) != *c.label_downgrade) {
    return no(*c.label_downgrade
                  ? "label_downgrade = true: no part quotes a protected "
                    "document labelled above the part's own label"
                  : "label_downgrade = false: a part quotes a protected "
                    "document labelled above its own label");
  }
  return true;
}

}  // namespace leakhound
