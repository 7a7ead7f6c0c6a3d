// ProtectedIndex's protected sources and document labels and ids: the
// declarations (protected_sources.h), a document's labels, a rename.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/matrix_records.h"
#include "engine/protected_index.h"
#include "index/record_codec.h"

namespace leakhound {

absl::StatusOr<std::vector<ProtectedSource>> ProtectedIndex::ListSources()
    const {
  std::vector<ProtectedSource> out;
  absl::Status s = store_->ForEachSource(
      [&out](std::string_view name, const SourceRecord& record) {
        out.push_back(ProtectedSource{std::string(name), record});
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

absl::Status ProtectedIndex::PutSource(std::string_view name,
                                       const SourceRecord& record) {
  absl::Status s = ValidSourceName(name);
  if (s.ok()) s = CheckWritable();
  if (s.ok()) s = Commit();
  if (!s.ok()) return s;
  IndexBatch batch;
  batch.PutSource(name, record);
  return CommitWithState(batch, state_.next_doc_id);
}

absl::Status ProtectedIndex::RemoveSource(std::string_view name) {
  absl::Status s = CheckWritable();
  if (s.ok()) s = Commit();
  if (!s.ok()) return s;
  auto existing = store_->ReadSource(name);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) {
    return absl::NotFoundError(absl::StrCat("no source named ", std::string(name)));
  }
  IndexBatch batch;
  batch.DeleteSource(name);
  return CommitWithState(batch, state_.next_doc_id);
}

absl::StatusOr<bool> ProtectedIndex::SetLabels(
    std::string_view external_id, std::vector<std::string> labels) {
  absl::Status s = CheckWritable();
  if (s.ok()) s = Commit();
  if (!s.ok()) return s;
  auto id = store_->FindExternalId(external_id);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return absl::NotFoundError(absl::StrCat("no document ", std::string(external_id)));
  }
  auto record = store_->ReadDocument(**id);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "id ", std::string(external_id), " points to a missing document; run leakhound "
        "verify"));
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  if ((*record)->labels == labels) return false;
  (*record)->labels = std::move(labels);
  IndexBatch batch;
  batch.PutDocumentRecord(**id, **record);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return true;
}

absl::Status ProtectedIndex::Rename(std::string_view from,
                                    std::string_view to) {
  absl::Status s = CheckWritable();
  if (s.ok()) s = Commit();
  if (!s.ok()) return s;
  auto held = store_->FindExternalId(to);
  if (!held.ok()) return held.status();
  if (held->has_value()) {
    return absl::AlreadyExistsError(
        absl::StrCat("id ", std::string(to), " is held by another document"));
  }
  auto id = store_->FindExternalId(from);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return absl::NotFoundError(absl::StrCat("no document ", std::string(from)));
  }
  auto record = store_->ReadDocument(**id);
  if (!record.ok()) return record.status();
  auto list = store_->ReadFingerprints(**id);
  if (!list.ok()) return list.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat("document ", std::string(from), " is missing"));
  }
  const DocumentRecord& old = **record;
  PreparedDocument doc;
  doc.external_id = std::string(to);
  doc.source = old.source;
  doc.labels = old.labels;
  doc.digest = old.digest;
  doc.bytes = old.bytes;
  doc.occurrences = static_cast<uint32_t>(list->occurrences.size());
  DocumentLists lists = ListsOf(*list, metadata().filter_winnow_window);
  doc.distinct = std::move(lists.distinct);
  doc.filter = std::move(lists.filter);
  doc.encoded_list = EncodeRecord(*list);
  doc.added_unix_ms = old.added_unix_ms;
  doc.renames = std::string(from);
  auto staged = Stage(std::move(doc));
  if (!staged.ok()) return staged.status();
  return Commit();
}

}  // namespace leakhound
