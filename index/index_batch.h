// IndexBatch: the changes of one index operation (add, remove, compact),
// committed atomically by IndexStore::Commit: after a crash either all of
// them are in the index or none is.
//
// Thread-safety: none; build a batch in one thread.
#ifndef LEAKHOUND_INDEX_INDEX_BATCH_H_
#define LEAKHOUND_INDEX_INDEX_BATCH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/key_format.h"
#include "index/record_codec.h"
#include "index/records.h"

namespace leakhound {

class IndexBatch {
 public:
  // Not persisted: RocksDatabase maps each to its column family name.
  enum class Family : uint8_t {
    kMeta,
    kDocuments,
    kExternalIds,
    kDigests,
    kFingerprints,
    kRows,
    kRowBits,
    kGroupBits,
    kAllow,
    kCounts,
    kSharedCounts,
    kLocations,
    kRecordTables,
    kRecordData,
  };
  struct Op {
    Family family;
    std::string key;
    std::optional<std::string> value;  // nullopt deletes the key
    // Set: deletes every key in [key, *range_end) (value is nullopt).
    std::optional<std::string> range_end;
  };

  void PutMetadata(const MetadataRecord& metadata) {
    Put(Family::kMeta, std::string(kMetadataKey), EncodeRecord(metadata));
  }
  void PutState(const StateRecord& state) {
    Put(Family::kMeta, std::string(kStateKey), EncodeRecord(state));
  }
  // Writes the document, its external id and digest entries and its
  // fingerprint list.
  void PutDocument(uint32_t id, const DocumentRecord& doc,
                   const FingerprintsRecord& fingerprints) {
    PutDocument(id, doc, EncodeRecord(fingerprints));
  }
  // The same with the list already encoded (EncodeRecord), so the encoding
  // can be done on another thread.
  void PutDocument(uint32_t id, const DocumentRecord& doc,
                   std::string encoded_fingerprints) {
    Put(Family::kDocuments, EncodeId(id), EncodeRecord(doc));
    Put(Family::kExternalIds, doc.external_id, EncodeId(id));
    Put(Family::kDigests, doc.digest, EncodeId(id));
    Put(Family::kFingerprints, EncodeId(id), std::move(encoded_fingerprints));
  }
  // Rewrites only the document record (e.g. its rows after compaction).
  void PutDocumentRecord(uint32_t id, const DocumentRecord& doc) {
    Put(Family::kDocuments, EncodeId(id), EncodeRecord(doc));
  }
  // Deletes what PutDocument wrote. REQUIRES: `doc` is the stored record.
  void DeleteDocument(uint32_t id, const DocumentRecord& doc) {
    Delete(Family::kDocuments, EncodeId(id));
    Delete(Family::kExternalIds, doc.external_id);
    Delete(Family::kDigests, doc.digest);
    Delete(Family::kFingerprints, EncodeId(id));
  }
  // `bits`: the row's ceil(m / 64) words, little-endian; an empty row's
  // bits are deleted rather than stored.
  void PutRow(uint32_t row, const RowRecord& record, std::string bits) {
    Put(Family::kRows, EncodeId(row), EncodeRecord(record));
    if (record.segments.empty()) {
      Delete(Family::kRowBits, EncodeId(row));
    } else {
      Put(Family::kRowBits, EncodeId(row), std::move(bits));
    }
  }

  // `bits`: a row group's filter, ceil(G m / 64) words little-endian (the
  // row format); an empty group's (`bits` empty) is deleted.
  void PutGroupBits(uint32_t group, std::string bits) {
    if (bits.empty()) {
      Delete(Family::kGroupBits, EncodeId(group));
    } else {
      Put(Family::kGroupBits, EncodeId(group), std::move(bits));
    }
  }

  // Rewrites one bucket of a document-frequency table; an empty bucket is
  // deleted rather than stored. REQUIRES: bucket < CountBuckets(table), and
  // every entry's fingerprint is in that bucket.
  void PutCountBucket(CountTable table, uint32_t bucket,
                      const CountBucketRecord& record) {
    const Family family =
        table == CountTable::kAll ? Family::kCounts : Family::kSharedCounts;
    if (record.entries.empty()) {
      Delete(family, EncodeCountBucket(bucket));
    } else {
      Put(family, EncodeCountBucket(bucket), EncodeRecord(record));
    }
  }
  void PutAllowEntry(std::string_view name, const AllowRecord& record) {
    Put(Family::kAllow, std::string(name), EncodeRecord(record));
  }
  void DeleteAllowEntry(std::string_view name) {
    Delete(Family::kAllow, std::string(name));
  }

  // `key`: the location's normalized form (engine/protected_locations.h).
  void PutLocation(std::string_view key, const LocationRecord& record) {
    Put(Family::kLocations, std::string(key), EncodeRecord(record));
  }
  void DeleteLocation(std::string_view key) {
    Delete(Family::kLocations, std::string(key));
  }
  void PutSource(std::string_view name, const SourceRecord& record) {
    Put(Family::kMeta, SourceKey(name), EncodeRecord(record));
  }
  void DeleteSource(std::string_view name) {
    Delete(Family::kMeta, SourceKey(name));
  }

  // A protected table's record, keyed by its name.
  void PutRecordTable(std::string_view name, const RecordTableRecord& record) {
    Put(Family::kRecordTables, std::string(name), EncodeRecord(record));
  }
  void DeleteRecordTable(std::string_view name) {
    Delete(Family::kRecordTables, std::string(name));
  }
  // `key`: a kRecordDataFamily key (key_format.h).
  void PutRecordData(std::string key, std::string value) {
    Put(Family::kRecordData, std::move(key), std::move(value));
  }
  // Deletes every record-data key in [begin, end).
  void DeleteRecordDataRange(std::string begin, std::string end) {
    ops_.push_back(
        {Family::kRecordData, std::move(begin), std::nullopt, std::move(end)});
  }

  const std::vector<Op>& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }

 private:
  void Put(Family family, std::string key, std::string value) {
    ops_.push_back({family, std::move(key), std::move(value), std::nullopt});
  }
  void Delete(Family family, std::string key) {
    ops_.push_back({family, std::move(key), std::nullopt, std::nullopt});
  }

  std::vector<Op> ops_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_INDEX_BATCH_H_
