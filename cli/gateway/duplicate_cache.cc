#include "cli/gateway/duplicate_cache.h"

#include <algorithm>
#include <cstring>

namespace leakhound {

absl::StatusOr<std::unique_ptr<DuplicateCache>> DuplicateCache::Create(
    uint32_t window) {
  SkipBloomFilter::Options options;
  options.window = window;
  options.counters =
      static_cast<uint32_t>(std::max<uint64_t>(1024, uint64_t{10} * window));
  options.hashes = 4;
  auto filter = SkipBloomFilter::Create(options);
  if (!filter.ok()) return filter.status();
  return std::unique_ptr<DuplicateCache>(
      new DuplicateCache(std::move(*filter)));
}

DuplicateCache::DuplicateCache(SkipBloomFilter filter)
    : filter_(std::move(filter)) {}

std::string DuplicateCache::Key(const std::string& digest,
                                uint64_t generation) {
  std::string key = digest;
  key.append(reinterpret_cast<const char*>(&generation), sizeof generation);
  return key;
}

uint64_t DuplicateCache::Hash(const std::string& key) {
  // The key starts with a SHA-256 digest: its first 8 bytes are already a
  // uniform hash; the generation is folded in.
  uint64_t h = 0, generation = 0;
  std::memcpy(&h, key.data(), std::min<size_t>(8, key.size()));
  std::memcpy(&generation, key.data() + key.size() - sizeof generation,
              sizeof generation);
  return h ^ Fmix64(generation);
}

std::optional<MessageVerdict> DuplicateCache::Lookup(const std::string& digest,
                                                     uint64_t generation) {
  const std::string key = Key(digest, generation);
  absl::MutexLock lock(&mu_);
  ++stats_.lookups;
  if (!filter_.Contains(Hash(key))) return std::nullopt;
  ++stats_.filter_positives;
  auto it = verdicts_.find(key);
  if (it == verdicts_.end()) return std::nullopt;
  ++stats_.hits;
  return it->second;
}

void DuplicateCache::Insert(const std::string& digest, uint64_t generation,
                            const MessageVerdict& verdict) {
  std::string key = Key(digest, generation);
  absl::MutexLock lock(&mu_);
  filter_.Insert(Hash(key));
  if (verdicts_.insert_or_assign(key, verdict).second) {
    order_.push_back(std::move(key));
  }
  while (order_.size() > filter_.options().window) {
    verdicts_.erase(order_.front());
    order_.pop_front();
  }
}

DuplicateCache::Stats DuplicateCache::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace leakhound
