#include "cli/gateway/document_sensitivity.h"

#include <algorithm>

namespace leakhound {

std::vector<LabelRecord> SensitivityOf(
    const Extraction& extraction, const std::optional<std::string>& given) {
  std::vector<LabelRecord> out;
  if (given) {
    const std::string id = NormalizeLabelId(*given);
    out.push_back(id.empty() ? LabelRecord{"", *given} : LabelRecord{id, ""});
    return out;
  }
  for (const ExtractedPart& part : extraction.parts) {
    for (const SensitivityLabel& l : part.labels) {
      if (!l.enabled) continue;
      LabelRecord r{l.id, l.name};
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  }
  return out;
}

std::vector<LabelFact> SensitivityFacts(
    const std::vector<LabelRecord>& labels) {
  std::vector<LabelFact> out;
  for (const LabelRecord& l : labels) out.push_back({l.id, l.name});
  return out;
}

}  // namespace leakhound
