// The console's changes to the protected documents, for an admin: protect
// an uploaded file (its bytes retained as its source, retained_copy.h),
// stop protecting one, and set a document's labels. Each opens the index
// as its writer for the change and closes it after.
//
// Thread-safety: the caller runs one change at a time (the index has one
// writer).
#ifndef LEAKHOUND_CLI_CONSOLE_DOCUMENT_CHANGES_H_
#define LEAKHOUND_CLI_CONSOLE_DOCUMENT_CHANGES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// Protects `content` (an upload named `filename`) as document `id` with
// `labels`, replacing what `id` held. FailedPrecondition when its text is
// protected already under another id (named).
absl::Status ProtectUpload(const std::string& index_dir,
                           const ExtractionLimits& limits,
                           const std::string& id, const std::string& filename,
                           const std::string& content,
                           const std::vector<std::string>& labels);

// Stops protecting `id`; its retained upload, if any, goes with it.
absl::Status UnprotectDocument(const std::string& index_dir,
                               const std::string& id);

struct LabelChange {
  std::vector<std::string> before;
  std::vector<std::string> after;
};

// Sets the labels of document `id` to those of `field` ("a, b": comma
// separated, trimmed, empty ones dropped). A label the document's source
// declares (`leakhound sources`) cannot be taken away here:
// FailedPrecondition naming it and `leakhound sources set`. NotFound for
// an unknown id.
absl::StatusOr<LabelChange> SetDocumentLabels(const std::string& index_dir,
                                              const std::string& id,
                                              std::string_view field);

// The labels of a form field "a, b".
std::vector<std::string> LabelsOfField(std::string_view field);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_DOCUMENT_CHANGES_H_
