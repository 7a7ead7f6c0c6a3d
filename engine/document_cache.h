// DocumentCache: the stored record and fingerprint list of protected
// documents, decoded, kept in memory up to a byte budget so that the second
// stage of a scan (leak_scanner.h) reads and decodes a document once rather
// than each time the filter proposes it. Documents that recur as candidates
// (long ones, ones sharing a domain's phrasing) are the common case.
//
// Entries never go stale: document ids are never reused and a document's
// external id and list never change while it exists (a replacement gets a
// new id; compaction moves rows, which are not kept here). An entry of a
// removed document is only wasted memory.
//
// Thread-safety: Get may be called from any number of threads.
#ifndef LEAKHOUND_ENGINE_DOCUMENT_CACHE_H_
#define LEAKHOUND_ENGINE_DOCUMENT_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "index/index_store.h"
#include "index/records.h"

namespace leakhound {

struct StoredDocument {
  std::string external_id;
  FingerprintsRecord list;
};

class DocumentCache {
 public:
  // `store` must outlive the cache. Holds about `budget_bytes` of decoded
  // documents (a document larger than the budget is returned, not kept).
  DocumentCache(const IndexStore& store, size_t budget_bytes)
      : store_(store), budget_bytes_(budget_bytes) {}
  DocumentCache(const DocumentCache&) = delete;
  DocumentCache& operator=(const DocumentCache&) = delete;

  // Document `doc`, from memory or read from the store. NotFound when the
  // store holds no such document; the store's read errors.
  absl::StatusOr<std::shared_ptr<const StoredDocument>> Get(uint32_t doc) const;

 private:
  const IndexStore& store_;
  const size_t budget_bytes_;
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<uint32_t, std::shared_ptr<const StoredDocument>>
      entries_ ABSL_GUARDED_BY(mu_);
  mutable std::deque<uint32_t> order_ ABSL_GUARDED_BY(mu_);  // by insertion
  mutable size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_DOCUMENT_CACHE_H_
