// The keys of a leakhound index. PERSISTED: column family names, the meta
// keys and the id encoding are part of the storage format
// (docs/storage_format.md); changing any of them is a format change.
//
// Thread-safety: constants and pure functions.
#ifndef LEAKHOUND_INDEX_KEY_FORMAT_H_
#define LEAKHOUND_INDEX_KEY_FORMAT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leakhound {

// The format this binary reads and writes (MetadataRecord::format_version).
inline constexpr uint32_t kFormatVersion = 6;
// The previous format, which a writer upgrades in place: format 6 only
// added the record families (an index of format 5 has none).
inline constexpr uint32_t kUpgradableFormatVersion = 5;

// Column families, by record type.
inline constexpr std::string_view kMetaFamily = "meta";
inline constexpr std::string_view kDocumentsFamily = "documents";
inline constexpr std::string_view kExternalIdsFamily = "external_ids";
inline constexpr std::string_view kDigestsFamily = "digests";
inline constexpr std::string_view kFingerprintsFamily = "fingerprints";
inline constexpr std::string_view kRowsFamily = "rows";
inline constexpr std::string_view kRowBitsFamily = "row_bits";
inline constexpr std::string_view kGroupBitsFamily = "group_bits";
inline constexpr std::string_view kCountsFamily = "fp_counts";
inline constexpr std::string_view kSharedCountsFamily = "shared_counts";
inline constexpr std::string_view kAllowFamily = "allow";
inline constexpr std::string_view kLocationsFamily = "locations";
inline constexpr std::string_view kRecordTablesFamily = "record_tables";
inline constexpr std::string_view kRecordDataFamily = "record_data";

// Keys in kMetaFamily: the metadata, the state, and one key per protected
// source, "source:" + its name (SourceRecord). Names hold no ':' or '/';
// the sources are the key range [kSourceKeyPrefix, kSourceKeyEnd).
inline constexpr std::string_view kMetadataKey = "metadata";
inline constexpr std::string_view kStateKey = "state";
inline constexpr std::string_view kSourceKeyPrefix = "source:";
inline constexpr std::string_view kSourceKeyEnd = "source;";  // ':' + 1
inline std::string SourceKey(std::string_view name) {
  return std::string(kSourceKeyPrefix) + std::string(name);
}

// Document and row ids are keyed as 4 bytes big-endian, so RocksDB's
// bytewise order is numeric order. Values that are ids (external_ids,
// digests) use the same encoding.
inline std::string EncodeId(uint32_t id) {
  return std::string{static_cast<char>(id >> 24), static_cast<char>(id >> 16),
                     static_cast<char>(id >> 8), static_cast<char>(id)};
}

// Which document-frequency table a bucket belongs to. Not persisted.
enum class CountTable : uint8_t {
  kAll,     // kCountsFamily: every fingerprint some document holds
  kShared,  // kSharedCountsFamily: those two or more documents hold
};

// The document-frequency tables are kept in buckets: a fingerprint belongs
// to the bucket of its top CountBucketBits(table) bits, keyed as 2 bytes
// big-endian. The full table has small buckets, because a commit rewrites
// every bucket it touches; the shared table, which readers load whole, has
// few, because each is one record to decode.
inline constexpr unsigned CountBucketBits(CountTable table) {
  return table == CountTable::kAll ? 16 : 10;
}
inline constexpr uint32_t CountBuckets(CountTable table) {
  return uint32_t{1} << CountBucketBits(table);
}
inline constexpr uint32_t CountBucketOf(uint64_t fingerprint,
                                        CountTable table = CountTable::kAll) {
  return static_cast<uint32_t>(fingerprint >> (64 - CountBucketBits(table)));
}

inline std::string EncodeCountBucket(uint32_t bucket) {
  return std::string{static_cast<char>(bucket >> 8), static_cast<char>(bucket)};
}

// Returns nullopt unless `key` is exactly 2 bytes.
inline std::optional<uint32_t> DecodeCountBucket(std::string_view key) {
  if (key.size() != 2) return std::nullopt;
  return (uint32_t{static_cast<uint8_t>(key[0])} << 8) |
         static_cast<uint8_t>(key[1]);
}

// Returns nullopt unless `key` is exactly 4 bytes.
inline std::optional<uint32_t> DecodeId(std::string_view key) {
  if (key.size() != 4) return std::nullopt;
  uint32_t id = 0;
  for (char c : key) id = (id << 8) | static_cast<uint8_t>(c);
  return id;
}

// Keys of kRecordDataFamily: a protected table's cells, under the table's
// id and data generation (RecordTableRecord), so that one generation's
// keys are one range and a replacement never mixes with the one it
// replaces.
//   prefix  table id (4 bytes big-endian) + data generation (4 bytes BE)
//   row     prefix + 'r' + row number (4 bytes BE)
//             value: per column, its cell's 8-byte hash little-endian
//             (0: empty cell)
//   set     prefix + 's' + column (1 byte) + chunk (4 bytes BE)
//             value: a primary column's (cell hash 8 bytes LE, row 4 bytes
//             LE) entries in ascending hash order, up to
//             kRecordSetChunkEntries per chunk
inline constexpr char kRecordRowKind = 'r';
inline constexpr char kRecordSetKind = 's';
inline constexpr size_t kRecordSetChunkEntries = size_t{1} << 16;
inline std::string RecordDataPrefix(uint32_t table, uint32_t generation) {
  return EncodeId(table) + EncodeId(generation);
}
inline std::string RecordRowKey(uint32_t table, uint32_t generation,
                                uint32_t row) {
  return RecordDataPrefix(table, generation) + kRecordRowKind + EncodeId(row);
}
inline std::string RecordSetKey(uint32_t table, uint32_t generation,
                                uint8_t column, uint32_t chunk) {
  return RecordDataPrefix(table, generation) + kRecordSetKind +
         static_cast<char>(column) + EncodeId(chunk);
}

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_KEY_FORMAT_H_
