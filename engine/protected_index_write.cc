// ProtectedIndex's changes (protected_index.h): adding, replacing and
// removing documents, compaction, the allow-list and protected locations.
// Each prepares what can fail before it mutates the matrix, then commits
// the rows it changed with the next state in one batch.
#include <chrono>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/content_digest.h"
#include "engine/matrix_records.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::Status ProtectedIndex::CheckWritable() const {
  if (store_->mode() != IndexStore::Mode::kWriter) {
    return absl::FailedPreconditionError("index is open read-only");
  }
  if (broken_) {
    return absl::FailedPreconditionError(
        "an earlier write to the index failed; reopen it");
  }
  if (rebuild_only_) {
    return absl::FailedPreconditionError(
        "index is open to be rebuilt, not changed");
  }
  return absl::OkStatus();
}

absl::Status ProtectedIndex::CommitWithState(IndexBatch& batch,
                                             uint32_t next_doc_id) {
  StateRecord next = state_;
  next.next_doc_id = next_doc_id;
  next.generation += 1;
  next.open_row = matrix_->open_row();
  next.rows_digest = RowsDigest(matrix_->rows());
  batch.PutState(next);
  absl::Status s = store_->Commit(batch);
  if (!s.ok()) {
    broken_ = true;
    return s;
  }
  state_ = next;
  return absl::OkStatus();
}

absl::StatusOr<PreparedDocument> ProtectedIndex::Prepare(
    Shingler& shingler, const DocumentInput& document) {
  if (document.external_id.empty()) {
    return absl::InvalidArgumentError("a document id must not be empty");
  }
  PreparedDocument out;
  out.external_id = document.external_id;
  out.source = document.source;
  out.replace_other_source = document.replace_other_source;
  out.labels = document.labels;
  out.sensitivity = document.sensitivity;
  out.digest = ContentDigest(document.text);
  out.bytes = document.text.size();
  auto shingled = shingler.Shingle(document.text);
  if (!shingled.ok()) return shingled.status();
  if (shingled->shingles.empty()) {
    return absl::InvalidArgumentError(
        "no words to fingerprint (empty, or only symbols and spaces)");
  }
  if (shingled->shingles.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("document too large");
  }
  FingerprintsRecord list;
  list.occurrences.reserve(shingled->shingles.size());
  for (const Shingle& sh : shingled->shingles) {
    list.occurrences.push_back(Occurrence{sh.fingerprint, sh.token_begin,
                                          sh.token_end, sh.byte_begin,
                                          sh.byte_end});
  }
  list.word_checks.assign(shingled->word_checks.begin(),
                          shingled->word_checks.end());
  out.occurrences = static_cast<uint32_t>(list.occurrences.size());
  out.encoded_list = EncodeRecord(list);
  DocumentLists lists = ListsOf(
      list, static_cast<uint32_t>(shingler.options().filter_winnow_window));
  out.distinct = std::move(lists.distinct);
  out.filter = std::move(lists.filter);
  return out;
}

absl::StatusOr<AddResult> ProtectedIndex::Add(const DocumentInput& document) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  auto prepared = Prepare(*shingler_, document);
  if (!prepared.ok()) return prepared.status();
  auto result = Stage(std::move(*prepared));
  if (!result.ok()) return result.status();
  s = Commit();
  if (!s.ok()) return s;
  return result;
}

namespace {

// The labels of `given` that `stored` lacks, in the order given, once each.
std::vector<std::string> NewLabels(const std::vector<std::string>& stored,
                                   const std::vector<std::string>& given) {
  std::vector<std::string> added;
  for (const std::string& label : given) {
    if (std::find(stored.begin(), stored.end(), label) == stored.end() &&
        std::find(added.begin(), added.end(), label) == added.end()) {
      added.push_back(label);
    }
  }
  return added;
}

}  // namespace

absl::Status ProtectedIndex::PlanRename(std::string_view from,
                                        StagePlan& plan) {
  auto existing = store_->FindExternalId(from);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) {
    return absl::NotFoundError(absl::StrCat("no document ", std::string(from)));
  }
  auto record = store_->ReadDocument(**existing);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "id ", std::string(from), " points to a missing document; run leakhound verify"));
  }
  plan.old_id = **existing;
  plan.old = std::move(**record);
  return Commit();
}

absl::StatusOr<ProtectedIndex::StagePlan> ProtectedIndex::PlanStage(
    const PreparedDocument& document) {
  StagePlan plan;
  auto existing = store_->FindExternalId(document.external_id);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) {
    auto record = store_->ReadDocument(**existing);
    if (!record.ok()) return record.status();
    if (!record->has_value()) {
      return absl::DataLossError(absl::StrCat(
          "id ", document.external_id,
          " points to a missing document; run leakhound verify"));
    }
    if ((*record)->digest == document.digest) {
      plan.done = AddResult{AddOutcome::kUnchanged, "",
                            (*record)->fingerprints, 0, {}};
      plan.done->labels_added = NewLabels((*record)->labels, document.labels);
      // A file relabelled keeps its text: its new sensitivity is stored.
      const bool relabelled = !document.sensitivity.empty() &&
                              document.sensitivity != (*record)->sensitivity;
      if (relabelled) (*record)->sensitivity = document.sensitivity;
      if (!plan.done->labels_added.empty() || relabelled) {
        plan.relabel_id = **existing;
        plan.old = std::move(**record);
      }
      return plan;
    }
    if ((*record)->source != document.source &&
        !document.replace_other_source && !document.renames) {
      return absl::AlreadyExistsError(absl::StrCat(
          "id ", document.external_id, " is already protected from ",
          (*record)->source, ", another source; not replaced"));
    }
    plan.old_id = **existing;
    plan.old = std::move(**record);
    absl::Status s = Commit();
    if (!s.ok()) return s;
  } else if (document.renames) {
    absl::Status s = PlanRename(*document.renames, plan);
    if (!s.ok()) return s;
  }
  auto same = store_->FindDigest(document.digest);
  if (!same.ok()) return same.status();
  if (same->has_value() && (!plan.old_id || **same != *plan.old_id)) {
    auto other = store_->ReadDocument(**same);
    if (!other.ok()) return other.status();
    plan.done = AddResult{AddOutcome::kDuplicateContent,
                          other->has_value() ? (*other)->external_id : "?", 0,
                          0, {}};
    return plan;
  }
  if (pending_next_id_ == std::numeric_limits<uint32_t>::max()) {
    return absl::ResourceExhaustedError("the index has used every document id");
  }
  if (document.distinct.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("document too large");
  }
  return plan;
}

void ProtectedIndex::PendDocument(DocId id, uint32_t fingerprints,
                                  PreparedDocument document) {
  std::span<const uint32_t> rows = matrix_->RowsOf(id);
  DocumentRecord record;
  record.external_id = document.external_id;
  record.source = std::move(document.source);
  record.digest = document.digest;
  record.bytes = document.bytes;
  record.fingerprints = fingerprints;
  record.occurrences = document.occurrences;
  record.rows.assign(rows.begin(), rows.end());
  record.added_unix_ms =
      document.added_unix_ms != 0 ? document.added_unix_ms : NowUnixMs();
  record.labels = std::move(document.labels);
  record.sensitivity = std::move(document.sensitivity);
  pending_.PutDocument(id, record, std::move(document.encoded_list));
  pending_ids_.insert(std::move(document.external_id));
  pending_digests_.insert(std::move(document.digest));
}

absl::StatusOr<AddResult> ProtectedIndex::Stage(PreparedDocument document) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  if (document.external_id.empty()) {
    return absl::InvalidArgumentError("a document id must not be empty");
  }
  // The store does not see what is pending: a document whose id or text is
  // pending commits the pending ones first, and so does a replacement
  // (its rows may hold pending documents, whose lists are not stored yet).
  if (pending_ids_.contains(document.external_id) ||
      pending_digests_.contains(document.digest)) {
    s = Commit();
    if (!s.ok()) return s;
  }
  auto plan = PlanStage(document);
  if (!plan.ok()) return plan.status();
  if (plan->relabel_id) {
    plan->old.labels.insert(plan->old.labels.end(),
                            plan->done->labels_added.begin(),
                            plan->done->labels_added.end());
    std::sort(plan->old.labels.begin(), plan->old.labels.end());
    pending_.PutDocumentRecord(*plan->relabel_id, plan->old);
    pending_ids_.insert(document.external_id);
  }
  if (plan->done) return *plan->done;
  std::vector<uint64_t> old_distinct;
  ListCache cache(*store_);
  if (plan->old_id) {
    const DocId old_id = *plan->old_id;
    auto old_list = store_->ReadFingerprints(old_id);
    if (!old_list.ok()) return old_list.status();
    old_distinct = DistinctFingerprints(*old_list);
    s = cache.LoadRows(*matrix_, matrix_->RowsOf(old_id), old_id);
    if (!s.ok()) return s;
  }
  // Everything that can fail without changing state is done; now mutate.
  AddResult result;
  std::set<uint32_t> touched;  // rows this document changes
  if (plan->old_id) {
    auto removed = matrix_->Remove(*plan->old_id, cache.Source());
    if (!removed.ok()) {
      broken_ = true;
      return removed.status();
    }
    touched.insert(removed->rows.begin(), removed->rows.end());
    pending_.DeleteDocument(*plan->old_id, plan->old);
    // The text it had is pending too: staged again (under any id), it
    // commits first and is then no longer a duplicate.
    pending_digests_.insert(plan->old.digest);
    result.outcome = AddOutcome::kReplaced;
    result.labels_added = NewLabels(plan->old.labels, document.labels);
    document.labels = plan->old.labels;
    document.labels.insert(document.labels.end(), result.labels_added.begin(),
                           result.labels_added.end());
    std::sort(document.labels.begin(), document.labels.end());
    if (document.sensitivity.empty()) {
      document.sensitivity = plan->old.sensitivity;
    }
  }
  frequency_->Apply(document.distinct, old_distinct);
  const DocId id = pending_next_id_++;
  result.fingerprints = matrix_->Add(id, document.filter);
  std::span<const uint32_t> rows = matrix_->RowsOf(id);
  touched.insert(rows.begin(), rows.end());
  pending_rows_.insert(touched.begin(), touched.end());
  result.rows_written = static_cast<uint32_t>(touched.size());
  PendDocument(id, result.fingerprints, std::move(document));
  return result;
}

absl::Status ProtectedIndex::Commit() {
  if (pending_ids_.empty() && pending_.empty()) return absl::OkStatus();
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = frequency_->Flush(pending_);
  if (!s.ok()) {
    broken_ = true;
    return s;
  }
  const std::vector<uint32_t> rows(pending_rows_.begin(), pending_rows_.end());
  PutRows(*matrix_, rows, pending_);
  PutGroups(*matrix_, rows, pending_);
  s = CommitWithState(pending_, pending_next_id_);
  pending_ = IndexBatch();
  pending_rows_.clear();
  pending_ids_.clear();
  pending_digests_.clear();
  return s;
}

absl::StatusOr<RebuildStats> ProtectedIndex::Remove(
    std::string_view external_id) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto id = store_->FindExternalId(external_id);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no document with id ", std::string(std::string(external_id))));
  }
  const DocId doc = **id;
  auto record = store_->ReadDocument(doc);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::DataLossError(absl::StrCat(
        "id ", std::string(std::string(external_id)),
        " points to a missing document; run leakhound verify"));
  }
  IndexBatch batch;
  auto list = store_->ReadFingerprints(doc);
  if (!list.ok()) return list.status();
  ListCache cache(*store_);
  s = cache.LoadRows(*matrix_, matrix_->RowsOf(doc), doc);
  if (!s.ok()) return s;
  frequency_->Apply({}, DistinctFingerprints(*list));
  s = frequency_->Flush(batch);
  if (!s.ok()) return s;
  auto stats = matrix_->Remove(doc, cache.Source());
  if (!stats.ok()) {
    // The row index knows no such document. Nothing is on disk, but the
    // frequencies in memory are ahead: refuse further changes.
    broken_ = true;
    return absl::DataLossError(absl::StrCat(
        "document ", std::string(std::string(external_id)),
        " is in no row; run leakhound verify"));
  }
  batch.DeleteDocument(doc, **record);
  PutRows(*matrix_, stats->rows, batch);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return stats;
}

absl::StatusOr<RebuildStats> ProtectedIndex::Compact(double underfill) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  // The lists and records of the documents whose rows move, read before
  // any change so a read error leaves everything as it was.
  ListCache cache(*store_);
  const std::vector<uint32_t> victims = matrix_->UnderfilledRows(underfill);
  std::vector<std::pair<DocId, DocumentRecord>> moved;
  if (!victims.empty()) {
    // Every document of the victims' row groups: their filters are rebuilt.
    s = cache.LoadRows(*matrix_, matrix_->GroupRows(victims),
                       std::numeric_limits<DocId>::max());
    if (!s.ok()) return s;
    std::set<DocId> docs;
    for (uint32_t row : victims) {
      for (const Segment& seg : matrix_->rows()[row].segments) {
        docs.insert(seg.doc);
      }
    }
    for (DocId doc : docs) {
      auto record = store_->ReadDocument(doc);
      if (!record.ok()) return record.status();
      if (!record->has_value()) {
        return absl::DataLossError(absl::StrCat(
            "row index names missing document ", doc,
            "; run leakhound verify"));
      }
      moved.emplace_back(doc, std::move(**record));
    }
  }
  RebuildStats stats = matrix_->Compact(cache.Source(), underfill);
  if (!stats.rows.empty()) {
    IndexBatch batch;
    PutRows(*matrix_, stats.rows, batch);
    // The victims' groups were rebuilt; the rows they moved to are among
    // the victims (Compact refills only them).
    PutGroups(*matrix_, stats.rows, batch);
    for (auto& [doc, record] : moved) {
      std::span<const uint32_t> rows = matrix_->RowsOf(doc);
      record.rows.assign(rows.begin(), rows.end());
      batch.PutDocumentRecord(doc, record);  // list and id maps unchanged
    }
    s = CommitWithState(batch, state_.next_doc_id);
    if (!s.ok()) return s;
  }
  s = store_->CompactStorage();
  if (!s.ok()) return s;
  return stats;
}

absl::StatusOr<AllowResult> ProtectedIndex::AddAllowed(
    std::string_view name, std::string_view source, std::string_view text) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  if (name.empty()) {
    return absl::InvalidArgumentError("an allow-list name must not be empty");
  }
  auto shingled = shingler_->Shingle(text);
  if (!shingled.ok()) return shingled.status();
  if (shingled->shingles.empty()) {
    return absl::InvalidArgumentError(
        "no words to fingerprint (empty, or only symbols and spaces)");
  }
  AllowRecord record;
  record.source = std::string(source);
  record.digest = ContentDigest(text);
  record.added_unix_ms = NowUnixMs();
  for (const Shingle& sh : shingled->shingles) {
    record.fingerprints.push_back(sh.fingerprint);
  }
  std::sort(record.fingerprints.begin(), record.fingerprints.end());
  record.fingerprints.erase(
      std::unique(record.fingerprints.begin(), record.fingerprints.end()),
      record.fingerprints.end());
  auto existing = store_->ReadAllowEntry(name);
  if (!existing.ok()) return existing.status();
  AllowResult result;
  result.fingerprints = static_cast<uint32_t>(record.fingerprints.size());
  if (existing->has_value() && (*existing)->digest == record.digest) {
    result.outcome = AddOutcome::kUnchanged;
    return result;
  }
  result.outcome =
      existing->has_value() ? AddOutcome::kReplaced : AddOutcome::kAdded;
  IndexBatch batch;
  batch.PutAllowEntry(name, record);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  s = LoadAllowList();
  if (!s.ok()) return s;
  return result;
}

absl::Status ProtectedIndex::RemoveAllowed(std::string_view name) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto existing = store_->ReadAllowEntry(name);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no allow-list entry named ", std::string(std::string(name))));
  }
  IndexBatch batch;
  batch.DeleteAllowEntry(name);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return LoadAllowList();
}

absl::StatusOr<absl::flat_hash_set<std::string>>
ProtectedIndex::BeginLocationChange() {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto listed = ListLocations();
  if (!listed.ok()) return listed.status();
  absl::flat_hash_set<std::string> present;
  for (const auto& [key, record] : *listed) present.insert(key);
  return present;
}

absl::Status ProtectedIndex::CommitLocationChange(IndexBatch& batch) {
  if (batch.empty()) return absl::OkStatus();
  absl::Status s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  return LoadLocations();
}

absl::StatusOr<std::vector<std::pair<std::string, bool>>>
ProtectedIndex::AddLocations(std::span<const std::string> given) {
  auto present = BeginLocationChange();
  if (!present.ok()) return present.status();
  std::vector<std::pair<std::string, bool>> result;
  IndexBatch batch;
  const int64_t now = NowUnixMs();
  for (const std::string& location : given) {
    auto key = ProtectedLocations::Normalize(location);
    if (!key.ok()) return key.status();
    const bool added = present->insert(*key).second;
    if (added) batch.PutLocation(*key, LocationRecord{location, now});
    result.emplace_back(std::move(*key), added);
  }
  absl::Status s = CommitLocationChange(batch);
  if (!s.ok()) return s;
  return result;
}

absl::Status ProtectedIndex::RemoveLocations(
    std::span<const std::string> given) {
  auto present = BeginLocationChange();
  if (!present.ok()) return present.status();
  IndexBatch batch;
  for (const std::string& location : given) {
    auto key = ProtectedLocations::Normalize(location);
    if (!key.ok()) return key.status();
    if (present->erase(*key) == 0) {
      return absl::NotFoundError(absl::StrCat(
          "location ", location, " is not protected (its key: ", *key, ")"));
    }
    batch.DeleteLocation(*key);
  }
  return CommitLocationChange(batch);
}

}  // namespace leakhound
