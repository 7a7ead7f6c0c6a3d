// RecordValue: a record read from the store (RocksDatabase::Get), decoded.
// Internal to the index module's .cc files.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_INDEX_RECORD_VALUE_H_
#define LEAKHOUND_INDEX_RECORD_VALUE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "index/record_codec.h"

namespace leakhound {

// nullopt when the key is absent; the read's error, or DataLoss for bytes
// that do not decode as a Record.
template <class Record>
absl::StatusOr<std::optional<Record>> RecordValue(
    absl::StatusOr<std::optional<std::string>> bytes) {
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value()) return std::nullopt;
  Record record;
  absl::Status s = DecodeRecord(**bytes, &record);
  if (!s.ok()) return s;
  return record;
}

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_RECORD_VALUE_H_
