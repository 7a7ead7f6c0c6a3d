// IdCatalog: every external id of one state of an index, in one buffer, for
// the console's search of document ids (ProtectedIndex::FindDocuments). A
// search for text few ids hold reads the buffer once (about 30 MB at
// 1,000,000 documents) instead of walking every key of the store's id map
// (150 ms there).
//
// Thread-safety: immutable after Load; const methods may run concurrently.
#ifndef LEAKHOUND_ENGINE_ID_CATALOG_H_
#define LEAKHOUND_ENGINE_ID_CATALOG_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "index/index_store.h"

namespace leakhound {

class IdCatalog {
 public:
  // Reads every external id of `store` (its id map, in key order). Errors:
  // the store's read errors.
  static absl::StatusOr<IdCatalog> Load(const IndexStore& store);

  // Up to `limit` document ids whose external id contains `text`, in
  // external id order, from the external id `from` on (inclusive; "" for
  // the first).
  std::vector<uint32_t> Find(std::string_view text, std::string_view from,
                             size_t limit) const;

  size_t size() const { return docs_.size(); }
  // Heap bytes held.
  size_t MemoryBytes() const;

 private:
  // Entry i: its external id.
  std::string_view Id(size_t i) const;

  std::string ids_;             // every external id followed by a '\0'
  std::vector<size_t> starts_;  // where each begins in ids_, ascending
  std::vector<uint32_t> docs_;  // each one's document id
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_ID_CATALOG_H_
