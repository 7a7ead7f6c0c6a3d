// ProtectedIndex's protected tables (exact data match): beginning, naming
// and removing a table. The tables themselves are record_tables.h's.
#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/protected_index.h"
#include "index/key_format.h"

namespace leakhound {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Every key of table `id` from data generation `generation` on.
void DeleteTableDataFrom(IndexBatch& batch, uint32_t id, uint32_t generation) {
  batch.DeleteRecordDataRange(RecordDataPrefix(id, generation),
                              RecordDataPrefix(id + 1, 0));
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordTableLoad>>
ProtectedIndex::BeginRecordTable(std::string_view name, RecordTableRecord shape,
                                 bool replace) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  if (name.empty()) {
    return absl::InvalidArgumentError("a table name must not be empty");
  }
  s = Commit();
  if (!s.ok()) return s;
  auto existing = store_->ReadRecordTable(name);
  if (!existing.ok()) return existing.status();
  if (existing->has_value() && !replace) {
    return absl::AlreadyExistsError(
        absl::StrCat("table ", std::string(name),
                     " is protected already; use leakhound records "
                     "replace to load it again"));
  }
  if (!existing->has_value() && replace) {
    return absl::NotFoundError(absl::StrCat("no protected table ",
                                            std::string(name),
                                            "; use leakhound records add"));
  }
  if (existing->has_value()) {
    shape.table_id = (*existing)->table_id;
    shape.data_generation = (*existing)->data_generation + 1;
  } else {
    uint32_t next_id = 1;
    s = store_->ForEachRecordTable(
        [&next_id](std::string_view, const RecordTableRecord& r) {
          next_id = std::max(next_id, r.table_id + 1);
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
    shape.table_id = next_id;
    shape.data_generation = 1;
  }
  // What an interrupted load of this table left: nothing names it.
  IndexBatch cleanup;
  DeleteTableDataFrom(cleanup, shape.table_id, shape.data_generation);
  s = store_->Commit(cleanup);
  if (!s.ok()) return s;
  return std::make_unique<RecordTableLoad>(store_.get(), std::string(name),
                                           std::move(shape));
}

absl::StatusOr<RecordTableRecord> ProtectedIndex::CommitRecordTable(
    RecordTableLoad& load) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  auto batch = load.Finish(NowMs());
  if (!batch.ok()) return batch.status();
  auto existing = store_->ReadRecordTable(load.name());
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) {
    const RecordTableRecord& old = **existing;
    batch->DeleteRecordDataRange(
        RecordDataPrefix(old.table_id, old.data_generation),
        RecordDataPrefix(old.table_id, old.data_generation + 1));
  }
  s = CommitWithState(*batch, state_.next_doc_id);
  if (!s.ok()) return s;
  auto tables = RecordTables::Load(*store_, record_tables_.get());
  if (!tables.ok()) return tables.status();
  record_tables_ = std::move(*tables);
  return load.record();
}

absl::Status ProtectedIndex::RemoveRecordTable(std::string_view name) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Commit();
  if (!s.ok()) return s;
  auto existing = store_->ReadRecordTable(name);
  if (!existing.ok()) return existing.status();
  if (!existing->has_value()) {
    return absl::NotFoundError(
        absl::StrCat("no protected table ", std::string(name)));
  }
  IndexBatch batch;
  batch.DeleteRecordTable(name);
  DeleteTableDataFrom(batch, (*existing)->table_id, 0);
  s = CommitWithState(batch, state_.next_doc_id);
  if (!s.ok()) return s;
  auto tables = RecordTables::Load(*store_, record_tables_.get());
  if (!tables.ok()) return tables.status();
  record_tables_ = std::move(*tables);
  return absl::OkStatus();
}

}  // namespace leakhound
