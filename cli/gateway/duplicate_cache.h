// DuplicateCache: verdicts of recently scanned messages, so that a message
// fanned out to many recipients in separate transactions, or queued again,
// is scanned once. Keyed by the SHA-256 of the message's extracted text
// (part names and texts) and the index generation it was scanned against
// (a reload makes earlier verdicts stale).
//
// A SKIP Bloom filter (engine/filter/skip_bloom_filter.h: no false negatives
// over its window of recent messages) answers "maybe seen" first; a verdict is
// reused only after an exact lookup of the digest in the last `window`
// entries confirms it, so the filter's false positives cost a lookup,
// never a wrong verdict.
//
// Thread-safety: thread-safe (one mutex).
#ifndef LEAKHOUND_CLI_GATEWAY_DUPLICATE_CACHE_H_
#define LEAKHOUND_CLI_GATEWAY_DUPLICATE_CACHE_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cli/gateway/verdict.h"
#include "engine/filter/skip_bloom_filter.h"

namespace leakhound {

class DuplicateCache {
 public:
  struct Stats {
    uint64_t lookups = 0;
    uint64_t filter_positives = 0;  // the filter said "maybe seen"
    uint64_t hits = 0;              // confirmed: a verdict was reused
  };

  // A cache of the last `window` messages' verdicts. Its filter has about
  // 10 counters per remembered message (at least 1024) and 4 hashes: a
  // false positive costs an exact lookup, never a wrong verdict.
  // InvalidArgument for a window out of SkipBloomFilter's range.
  // REQUIRES: window > 0.
  static absl::StatusOr<std::unique_ptr<DuplicateCache>> Create(
      uint32_t window);

  // The verdict stored for (digest, generation), if it is among the last
  // `window` entries.
  std::optional<MessageVerdict> Lookup(const std::string& digest,
                                       uint64_t generation);
  void Insert(const std::string& digest, uint64_t generation,
              const MessageVerdict& verdict);
  Stats stats() const;

 private:
  explicit DuplicateCache(SkipBloomFilter filter);
  static std::string Key(const std::string& digest, uint64_t generation);
  static uint64_t Hash(const std::string& key);

  mutable absl::Mutex mu_;
  SkipBloomFilter filter_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> order_ ABSL_GUARDED_BY(mu_);  // keys, oldest first
  absl::flat_hash_map<std::string, MessageVerdict> verdicts_
      ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DUPLICATE_CACHE_H_
