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
inline constexpr uint32_t kFormatVersion = 2;

// Column families, by record type.
inline constexpr std::string_view kMetaFamily = "meta";
inline constexpr std::string_view kDocumentsFamily = "documents";
inline constexpr std::string_view kExternalIdsFamily = "external_ids";
inline constexpr std::string_view kDigestsFamily = "digests";
inline constexpr std::string_view kFingerprintsFamily = "fingerprints";
inline constexpr std::string_view kRowsFamily = "rows";
inline constexpr std::string_view kRowBitsFamily = "row_bits";
inline constexpr std::string_view kDocFrequencyFamily = "doc_freq";
inline constexpr std::string_view kAllowFamily = "allow";

// Keys in kMetaFamily.
inline constexpr std::string_view kMetadataKey = "metadata";
inline constexpr std::string_view kStateKey = "state";

// Document and row ids are keyed as 4 bytes big-endian, so RocksDB's
// bytewise order is numeric order. Values that are ids (external_ids,
// digests) use the same encoding.
inline std::string EncodeId(uint32_t id) {
  return std::string{static_cast<char>(id >> 24), static_cast<char>(id >> 16),
                     static_cast<char>(id >> 8), static_cast<char>(id)};
}

// Fingerprints (doc_freq keys) are 8 bytes big-endian.
inline std::string EncodeFingerprint(uint64_t fp) {
  std::string out(8, '\0');
  for (unsigned i = 0; i < 8; ++i) out[7 - i] = static_cast<char>(fp >> (8 * i));
  return out;
}

// Returns nullopt unless `key` is exactly 8 bytes.
inline std::optional<uint64_t> DecodeFingerprint(std::string_view key) {
  if (key.size() != 8) return std::nullopt;
  uint64_t fp = 0;
  for (char c : key) fp = (fp << 8) | static_cast<uint8_t>(c);
  return fp;
}

// Returns nullopt unless `key` is exactly 4 bytes.
inline std::optional<uint32_t> DecodeId(std::string_view key) {
  if (key.size() != 4) return std::nullopt;
  uint32_t id = 0;
  for (char c : key) id = (id << 8) | static_cast<uint8_t>(c);
  return id;
}

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_KEY_FORMAT_H_
