#include "cli/gateway/cumulative_facts.h"

#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace leakhound {

IncidentDocument CumulativeFactRecord(const CumulativeFact& fact) {
  IncidentDocument d;
  d.document = kCumulativeFactPrefix + fact.target;
  d.words = fact.words;
  d.share = fact.share;
  d.labels.push_back("per:" + fact.per);
  d.labels.push_back(absl::StrCat("days:", fact.days));
  d.labels.push_back(absl::StrCat("rows:", fact.rows));
  const size_t skip = fact.earlier.size() > kStoryMessages
                          ? fact.earlier.size() - kStoryMessages
                          : 0;
  for (size_t i = skip; i < fact.earlier.size(); ++i) {
    d.labels.push_back("earlier:" + fact.earlier[i]);
  }
  return d;
}

bool ReadCumulativeFact(const IncidentDocument& fact, CumulativeFact* sum) {
  if (!fact.document.starts_with(kCumulativeFactPrefix)) return false;
  *sum = CumulativeFact{};
  sum->target = fact.document.substr(std::size(kCumulativeFactPrefix) - 1);
  sum->words = fact.words;
  sum->share = fact.share;
  for (const std::string& entry : fact.labels) {
    const std::string_view e = entry;
    if (e.starts_with("per:")) sum->per = std::string(e.substr(4));
    if (e.starts_with("days:")) {
      (void)absl::SimpleAtoi(std::string(e.substr(5)), &sum->days);
    }
    if (e.starts_with("rows:")) {
      (void)absl::SimpleAtoi(std::string(e.substr(5)), &sum->rows);
    }
    if (e.starts_with("earlier:")) sum->earlier.emplace_back(e.substr(8));
  }
  return true;
}

}  // namespace leakhound
