// RecordCodec: the byte encoding of the index records (records.h). PERSISTED:
// Boost.Serialization binary archives without the archive header, one record
// per archive, with each struct's class version written before its fields
// (docs/storage_format.md lists them; golden tests pin the bytes). The
// fingerprint list and a count bucket's entries are delta/varint blobs
// inside their records.
//
// Thread-safety: stateless functions; safe from any thread.
#ifndef LEAKHOUND_INDEX_RECORD_CODEC_H_
#define LEAKHOUND_INDEX_RECORD_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "index/records.h"

namespace leakhound {

// Encode never fails. REQUIRES for FingerprintsRecord: every occurrence has
// token_begin <= token_end and byte_begin <= byte_end.
std::string EncodeRecord(const MetadataRecord& record);
std::string EncodeRecord(const StateRecord& record);
std::string EncodeRecord(const DocumentRecord& record);
std::string EncodeRecord(const FingerprintsRecord& record);
std::string EncodeRecord(const RowRecord& record);
std::string EncodeRecord(const AllowRecord& record);
std::string EncodeRecord(const LocationRecord& record);
std::string EncodeRecord(const RecordTableRecord& record);
std::string EncodeRecord(const CountBucketRecord& record);
std::string EncodeRecord(const SourceRecord& record);

// Decode returns DataLoss for bytes that are not a valid record of the type
// (truncated, trailing garbage, unknown class version, corrupt blob), and
// then leaves *record unspecified. REQUIRES: record != nullptr.
absl::Status DecodeRecord(std::string_view bytes, MetadataRecord* record);
absl::Status DecodeRecord(std::string_view bytes, StateRecord* record);
absl::Status DecodeRecord(std::string_view bytes, DocumentRecord* record);
absl::Status DecodeRecord(std::string_view bytes, FingerprintsRecord* record);
absl::Status DecodeRecord(std::string_view bytes, RowRecord* record);
absl::Status DecodeRecord(std::string_view bytes, AllowRecord* record);
absl::Status DecodeRecord(std::string_view bytes, LocationRecord* record);
absl::Status DecodeRecord(std::string_view bytes, RecordTableRecord* record);
absl::Status DecodeRecord(std::string_view bytes, CountBucketRecord* record);
absl::Status DecodeRecord(std::string_view bytes, SourceRecord* record);

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_RECORD_CODEC_H_
