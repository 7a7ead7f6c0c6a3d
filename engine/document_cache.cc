#include "engine/document_cache.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

size_t ApproximateBytes(const StoredDocument& d) {
  return sizeof(StoredDocument) +
         d.list.occurrences.size() * sizeof(Occurrence) +
         d.list.word_checks.size() + d.external_id.size();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const StoredDocument>> DocumentCache::Get(
    uint32_t doc) const {
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(doc);
    if (it != entries_.end()) return it->second;
  }
  // Read outside the lock: two threads may both read a document; the
  // second insert is dropped.
  auto record = store_.ReadDocument(doc);
  if (!record.ok()) return record.status();
  if (!record->has_value()) {
    return absl::NotFoundError(absl::StrCat("no document ", doc));
  }
  auto list = store_.ReadFingerprints(doc);
  if (!list.ok()) return list.status();
  auto stored = std::make_shared<const StoredDocument>(
      StoredDocument{std::move((*record)->external_id), std::move(*list)});
  const size_t size = ApproximateBytes(*stored);
  if (size > budget_bytes_) return stored;
  absl::MutexLock lock(&mu_);
  if (!entries_.emplace(doc, stored).second) return stored;
  order_.push_back(doc);
  bytes_ += size;
  while (bytes_ > budget_bytes_ && !order_.empty()) {
    auto victim = entries_.find(order_.front());
    order_.pop_front();
    bytes_ -= ApproximateBytes(*victim->second);
    entries_.erase(victim);
  }
  return stored;
}

}  // namespace leakhound
