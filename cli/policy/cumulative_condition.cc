#include "cli/policy/cumulative_condition.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

bool Reaches(const CumulativeCondition& c, const CumulativeFact& f) {
  return (c.words && f.words >= *c.words) ||
         (c.share && f.share + 1e-9 >= *c.share) ||
         (c.rows && f.rows >= *c.rows);
}

// "275 of 300 words of ID" for the why of a sum short of `c`.
std::string Short(const CumulativeCondition& c, const CumulativeFact* f,
                  const std::string& target) {
  if (f == nullptr) {
    return absl::StrCat("no sum of earlier messages for ", target,
                        " (none was read: no incident store, or no sender)");
  }
  const std::string who = c.per == "sender" ? "the sender" : "the domain";
  if (c.rows) {
    return absl::StrCat(f->rows, " of ", *c.rows,
                        " rows of ", target, " sent by ", who, " in ", c.days,
                        " days");
  }
  if (c.share) {
    return absl::StrFormat("%.0f %% of %.0f %% of %s sent by %s in %u days",
                           100 * f->share, 100 * *c.share,
                           target, who, c.days);
  }
  return absl::StrCat(f->words, " of ", *c.words,
                      " words of ", target, " sent by ", who, " in ", c.days,
                      " days");
}

}  // namespace

const CumulativeFact* CumulativeOf(const CumulativeCondition& condition,
                                   const VerdictFacts& facts,
                                   const std::string& target) {
  for (const CumulativeFact& f : facts.cumulative) {
    if (f.per == condition.per && f.days == condition.days &&
        f.target == target) {
      return &f;
    }
  }
  return nullptr;
}

bool CumulativeHolds(const PolicyConditions& c, const VerdictFacts& facts,
                     const std::vector<uint32_t>& qualifying,
                     std::string* why) {
  const CumulativeCondition& cc = *c.cumulative;
  std::vector<std::string> targets;
  if (cc.rows) {
    for (const auto& [table, rows] : facts.records) {
      if (c.tables.empty() || std::find(c.tables.begin(), c.tables.end(),
                                        table) != c.tables.end()) {
        targets.push_back("table " + table);
      }
    }
  } else {
    for (uint32_t i : qualifying) targets.push_back(facts.documents[i].id);
  }
  const CumulativeFact* best = nullptr;
  std::string best_target;
  for (const std::string& t : targets) {
    const CumulativeFact* f = CumulativeOf(cc, facts, t);
    if (f != nullptr && Reaches(cc, *f)) return true;
    if (best == nullptr && f != nullptr) {
      best = f;
      best_target = t;
    }
  }
  if (why != nullptr) {
    *why = targets.empty()
               ? "cumulative: nothing this message sent counts"
               : absl::StrCat(
                     "cumulative: ",
                     Short(cc, best,
                           best == nullptr ? targets.front() : best_target));
  }
  return false;
}

}  // namespace leakhound
