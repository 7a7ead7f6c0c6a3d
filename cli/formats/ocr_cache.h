// OcrCache: what OCR read in an image, kept by the SHA-256 of the image
// and of the settings that decide the reading, so that the same image sent
// again (one attachment mailed to 50 recipients in 50 messages, a resend, a
// scan of many copies) is recognized once. In memory, per process, least
// recently used first out, bounded in bytes (OcrSettings::cache_bytes,
// --ocr-cache-mb). A recognition cut short by its time limit is not kept:
// it would read more another time.
//
// The key is a cryptographic digest, not a fast hash: a sender who could
// make a leaking image collide with a clean one already read would have it
// pass unread.
//
// Thread-safety: one process-wide instance; every method may be called
// concurrently.
#ifndef LEAKHOUND_CLI_FORMATS_OCR_CACHE_H_
#define LEAKHOUND_CLI_FORMATS_OCR_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace leakhound {

// A cache key being built: the SHA-256 of every Add()ed piece, each
// preceded by its length (so that pieces cannot run into one another).
// Not thread-safe; one per key.
class OcrCacheKey {
 public:
  OcrCacheKey();
  ~OcrCacheKey();
  OcrCacheKey(const OcrCacheKey&) = delete;
  OcrCacheKey& operator=(const OcrCacheKey&) = delete;

  OcrCacheKey& Add(std::string_view piece);
  OcrCacheKey& Add(uint64_t number);
  // The 32-byte digest. REQUIRES: called once, last.
  std::string Finish();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// One reading: the text, or none when the image held nothing legible.
struct OcrReading {
  bool legible = false;
  std::string text;
};

class OcrCache {
 public:
  static OcrCache& Instance();

  // The reading kept under `key`, now the most recently used; nullopt if
  // none.
  std::optional<OcrReading> Lookup(const std::string& key);

  // Keeps `reading` under `key`, then drops the least recently used
  // readings until all fit in `capacity_bytes` (0: keeps nothing, and
  // empties the cache).
  void Insert(const std::string& key, OcrReading reading,
              size_t capacity_bytes);

  // Counters since the start (or Clear): lookups answered and not.
  uint64_t hits() const;
  uint64_t misses() const;
  size_t bytes() const;

  // Forgets every reading and the counters (tests).
  void Clear();

 private:
  using Entry = std::pair<std::string, OcrReading>;
  static size_t Cost(const Entry& e) {
    return e.first.size() + e.second.text.size() + kEntryOverhead;
  }
  static constexpr size_t kEntryOverhead = 96;

  mutable absl::Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_
      ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OCR_CACHE_H_
