#include "cli/gateway/label_facts.h"

#include <algorithm>
#include <string_view>

namespace leakhound {
namespace {

constexpr std::string_view kLabel = "label:";
constexpr std::string_view kQuotes = "quotes:";
constexpr std::string_view kLabellable = "labellable";
constexpr std::string_view kSensitivity = "sensitivity:";

// `s` without line ends or tabs (the store joins lists by line ends).
std::string OneField(const std::string& s) {
  std::string out = s;
  std::replace_if(
      out.begin(), out.end(),
      [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return out;
}

std::string Encode(std::string_view tag, const LabelFact& l) {
  return std::string(tag) + OneField(l.id) + "\t" + OneField(l.name);
}

LabelFact Decode(std::string_view rest) {
  const size_t tab = rest.find('\t');
  if (tab == std::string_view::npos) return {std::string(rest), ""};
  return {std::string(rest.substr(0, tab)), std::string(rest.substr(tab + 1))};
}

}  // namespace

IncidentDocument PartFactRecord(const PartFacts& part) {
  IncidentDocument d;
  d.document = kPartFactPrefix + OneField(part.name);
  if (part.labellable) d.labels.emplace_back(kLabellable);
  for (const LabelFact& l : part.labels) d.labels.push_back(Encode(kLabel, l));
  for (const std::string& q : part.documents) {
    d.labels.push_back(std::string(kQuotes) + OneField(q));
  }
  return d;
}

bool ReadPartFact(const IncidentDocument& fact, PartFacts* part) {
  if (!fact.document.starts_with(kPartFactPrefix)) return false;
  *part = PartFacts{};
  part->name = fact.document.substr(std::size(kPartFactPrefix) - 1);
  for (const std::string& entry : fact.labels) {
    std::string_view e = entry;
    if (e == kLabellable) part->labellable = true;
    if (e.starts_with(kLabel)) {
      part->labels.push_back(Decode(e.substr(kLabel.size())));
    }
    if (e.starts_with(kQuotes)) {
      part->documents.emplace_back(e.substr(kQuotes.size()));
    }
  }
  return true;
}

std::vector<std::string> LabelsWithSensitivity(
    const MatchedDocument& document) {
  std::vector<std::string> out = document.labels;
  for (const LabelFact& l : document.sensitivity) {
    out.push_back(Encode(kSensitivity, l));
  }
  return out;
}

void TakeSensitivity(MatchedDocument* document) {
  std::vector<std::string> kept;
  for (const std::string& entry : document->labels) {
    if (std::string_view(entry).starts_with(kSensitivity)) {
      document->sensitivity.push_back(
          Decode(std::string_view(entry).substr(kSensitivity.size())));
    } else {
      kept.push_back(entry);
    }
  }
  document->labels = std::move(kept);
}

}  // namespace leakhound
