#include "shingler/fingerprint_key.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace leakhound {

absl::StatusOr<FingerprintKey> FingerprintKey::Generate() {
  std::array<uint8_t, kKeyBytes> bytes{};
  size_t filled = 0;
  while (filled < bytes.size()) {
    ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("getrandom failed: ", std::strerror(errno)));
    }
    filled += static_cast<size_t>(got);
  }
  return FingerprintKey(bytes);
}

absl::StatusOr<FingerprintKey> FingerprintKey::FromBytes(
    std::span<const uint8_t> bytes) {
  if (bytes.size() != kKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fingerprint key must be ", kKeyBytes, " bytes, got ", bytes.size()));
  }
  return FingerprintKey(bytes);
}

FingerprintKey::FingerprintKey(std::span<const uint8_t> bytes) : key_{} {
  std::copy(bytes.begin(), bytes.end(), key_.begin());
  for (size_t block = 0; block < kSecretBytes / 16; ++block) {
    XXH128_hash_t h = XXH3_128bits_withSeed(key_.data(), key_.size(), block);
    for (size_t b = 0; b < 8; ++b) {
      secret_[block * 16 + b] = static_cast<uint8_t>(h.low64 >> (8 * b));
      secret_[block * 16 + 8 + b] = static_cast<uint8_t>(h.high64 >> (8 * b));
    }
  }
}

}  // namespace leakhound
