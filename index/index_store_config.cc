// IndexStore's reads of the admin's configuration kept in the index: the
// allow-list, the protected locations, the protected tables and their
// cells, and the protected sources (index_store.h).
#include <string>

#include "index/index_store.h"
#include "index/key_format.h"
#include "index/record_codec.h"
#include "index/record_value.h"
#include "index/rocks_database.h"

namespace leakhound {

absl::StatusOr<std::optional<AllowRecord>> IndexStore::ReadAllowEntry(
    std::string_view name) const {
  return RecordValue<AllowRecord>(
      db_->Get(IndexBatch::Family::kAllow, name));
}

absl::Status IndexStore::ForEachAllowEntry(
    const std::function<absl::Status(std::string_view, const AllowRecord&)>&
        fn) const {
  return db_->ForEach(IndexBatch::Family::kAllow,
                        [&fn](std::string_view key, std::string_view value) {
                          AllowRecord record;
                          absl::Status s = DecodeRecord(value, &record);
                          if (!s.ok()) return s;
                          return fn(key, record);
                        });
}

absl::Status IndexStore::ForEachLocation(
    const std::function<absl::Status(std::string_view,
                                     const LocationRecord&)>& fn) const {
  return db_->ForEach(IndexBatch::Family::kLocations,
                        [&fn](std::string_view key, std::string_view value) {
                          LocationRecord record;
                          absl::Status s = DecodeRecord(value, &record);
                          if (!s.ok()) return s;
                          return fn(key, record);
                        });
}

absl::StatusOr<std::optional<RecordTableRecord>> IndexStore::ReadRecordTable(
    std::string_view name) const {
  return RecordValue<RecordTableRecord>(
      db_->Get(IndexBatch::Family::kRecordTables, name));
}

absl::Status IndexStore::ForEachRecordTable(
    const std::function<absl::Status(std::string_view,
                                     const RecordTableRecord&)>& fn) const {
  return db_->ForEach(IndexBatch::Family::kRecordTables,
                      [&fn](std::string_view key, std::string_view value) {
                        RecordTableRecord record;
                        absl::Status s = DecodeRecord(value, &record);
                        if (!s.ok()) return s;
                        return fn(key, record);
                      });
}

absl::StatusOr<std::vector<std::optional<std::string>>>
IndexStore::ReadRecordData(std::span<const std::string> keys) const {
  return db_->MultiGet(IndexBatch::Family::kRecordData, keys);
}

absl::Status IndexStore::ForEachRecordData(
    std::string_view from, std::string_view to,
    const std::function<absl::Status(std::string_view, std::string_view)>& fn)
    const {
  return db_->ForEach(IndexBatch::Family::kRecordData, fn, from, to);
}

absl::StatusOr<std::optional<SourceRecord>> IndexStore::ReadSource(
    std::string_view name) const {
  return RecordValue<SourceRecord>(
      db_->Get(IndexBatch::Family::kMeta, SourceKey(name)));
}

absl::Status IndexStore::ForEachSource(
    const std::function<absl::Status(std::string_view, const SourceRecord&)>&
        fn) const {
  return db_->ForEach(
      IndexBatch::Family::kMeta,
      [&fn](std::string_view key, std::string_view value) {
        SourceRecord record;
        absl::Status s = DecodeRecord(value, &record);
        if (!s.ok()) return s;
        return fn(key.substr(kSourceKeyPrefix.size()), record);
      },
      kSourceKeyPrefix, kSourceKeyEnd);
}

}  // namespace leakhound
