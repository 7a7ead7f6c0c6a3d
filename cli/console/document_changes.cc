#include "cli/console/document_changes.h"

#include <algorithm>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/console/retained_copy.h"
#include "cli/formats/extraction.h"
#include "cli/gateway/document_sensitivity.h"
#include "engine/protected_index.h"

namespace leakhound {

absl::Status ProtectUpload(const std::string& index_dir,
                           const ExtractionLimits& limits,
                           const std::string& id, const std::string& filename,
                           const std::string& content,
                           const std::vector<std::string>& labels) {
  auto text = ExtractBytes(filename, content, limits);
  if (!text.ok()) return text.status();
  const std::string joined = text->JoinedText();
  auto index = ProtectedIndex::Open(index_dir, OpenMode::kWrite);
  if (!index.ok()) return index.status();
  // An upload has no file to be read again from (`rekey`): its bytes are
  // retained, and the copy is its source.
  auto copy = RetainCopy(index_dir, filename, content);
  if (!copy.ok()) return copy.status();
  const std::string old_source = DocumentSource(**index, id);
  // The admin names the id in the form: it may replace any document.
  auto added = (*index)->Add(DocumentInput{id, copy->path, labels, joined,
                                           /*replace_other_source=*/true,
                                           SensitivityOf(*text, std::nullopt)});
  const bool kept = added.ok() && (added->outcome == AddOutcome::kAdded ||
                                   added->outcome == AddOutcome::kReplaced);
  if (!kept && copy->created) {
    DropRetainedCopy(index_dir, copy->path).IgnoreError();
  }
  if (!added.ok()) return added.status();
  if (added->outcome == AddOutcome::kDuplicateContent) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this text is protected already, as '", added->existing_id, "'"));
  }
  if (added->outcome == AddOutcome::kReplaced && old_source != copy->path) {
    DropRetainedCopy(index_dir, old_source).IgnoreError();
  }
  return absl::OkStatus();
}

absl::Status UnprotectDocument(const std::string& index_dir,
                               const std::string& id) {
  auto index = ProtectedIndex::Open(index_dir, OpenMode::kWrite);
  if (!index.ok()) return index.status();
  const std::string old_source = DocumentSource(**index, id);
  auto removed = (*index)->Remove(id);
  if (!removed.ok()) return removed.status();
  DropRetainedCopy(index_dir, old_source).IgnoreError();
  return absl::OkStatus();
}

std::vector<std::string> LabelsOfField(std::string_view field) {
  std::vector<std::string> labels;
  for (absl::string_view l : absl::StrSplit(std::string(field), ',')) {
    l = absl::StripAsciiWhitespace(l);
    if (!l.empty() &&
        std::find(labels.begin(), labels.end(), l) == labels.end()) {
      labels.emplace_back(l);
    }
  }
  std::sort(labels.begin(), labels.end());
  return labels;
}

absl::StatusOr<LabelChange> SetDocumentLabels(const std::string& index_dir,
                                              const std::string& id,
                                              std::string_view field) {
  auto index = ProtectedIndex::Open(index_dir, OpenMode::kWrite);
  if (!index.ok()) return index.status();
  auto found = (*index)->store().FindExternalId(id);
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(absl::StrCat("no document ", id));
  }
  auto record = (*index)->store().ReadDocument(**found);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat("document ", id, " is missing"));
  }
  LabelChange change{(*record)->labels, LabelsOfField(field)};
  auto sources = (*index)->ListSources();
  if (!sources.ok()) return sources.status();
  if (auto where = PlaceInSources(*sources, (*record)->source);
      where && where->id == id) {
    for (const std::string& l :
         DeclaredLabels(where->source->record, where->relative)) {
      if (std::find(change.after.begin(), change.after.end(), l) ==
          change.after.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "label ", l, " is declared by source ", where->source->name,
            " for every file there; change it with leakhound sources set ",
            where->source->name));
      }
    }
  }
  auto changed = (*index)->SetLabels(id, change.after);
  if (!changed.ok()) return changed.status();
  return change;
}

}  // namespace leakhound
