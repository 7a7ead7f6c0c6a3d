// The one file of cli/formats that calls OpenSSL (SHA-256 of the keys).
#include "cli/formats/ocr_cache.h"

#include <openssl/evp.h>

namespace leakhound {

struct OcrCacheKey::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

OcrCacheKey::OcrCacheKey() : context_(std::make_unique<Context>()) {
  EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr);
}

OcrCacheKey::~OcrCacheKey() = default;

OcrCacheKey& OcrCacheKey::Add(uint64_t number) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(number >> (8 * i));
  }
  EVP_DigestUpdate(context_->md, bytes, sizeof bytes);
  return *this;
}

OcrCacheKey& OcrCacheKey::Add(std::string_view piece) {
  Add(uint64_t{piece.size()});
  EVP_DigestUpdate(context_->md, piece.data(), piece.size());
  return *this;
}

std::string OcrCacheKey::Finish() {
  std::string digest(EVP_MAX_MD_SIZE, '\0');
  unsigned int size = 0;
  EVP_DigestFinal_ex(context_->md,
                     reinterpret_cast<unsigned char*>(digest.data()), &size);
  digest.resize(size);
  return digest;
}

OcrCache& OcrCache::Instance() {
  static OcrCache* cache = new OcrCache();  // never destroyed: used at exit
  return *cache;
}

std::optional<OcrReading> OcrCache::Lookup(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void OcrCache::Insert(const std::string& key, OcrReading reading,
                      size_t capacity_bytes) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= Cost(*it->second);
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.emplace_front(key, std::move(reading));
  bytes_ += Cost(lru_.front());
  index_.emplace(key, lru_.begin());
  while (bytes_ > capacity_bytes && !lru_.empty()) {
    bytes_ -= Cost(lru_.back());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

uint64_t OcrCache::hits() const {
  absl::MutexLock lock(&mu_);
  return hits_;
}

uint64_t OcrCache::misses() const {
  absl::MutexLock lock(&mu_);
  return misses_;
}

size_t OcrCache::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

void OcrCache::Clear() {
  absl::MutexLock lock(&mu_);
  lru_.clear();
  index_.clear();
  bytes_ = 0;
  hits_ = misses_ = 0;
}

}  // namespace leakhound
