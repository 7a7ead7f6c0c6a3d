// FingerprintKey: the per-index secret that keys every shingle fingerprint.
//
// An index never stores fingerprints that anyone could recompute from
// guessed text: each fingerprint is XXH3-64 under a 192-byte secret expanded
// from this 32-byte key. XXH3 is not a cryptographic PRF; the key stops
// offline dictionary recomputation by someone without it, it does not make
// fingerprints unforgeable for someone who can query the index freely.
//
// Thread-safety: immutable after construction; safe to share across threads.
#ifndef LEAKHOUND_SHINGLER_FINGERPRINT_KEY_H_
#define LEAKHOUND_SHINGLER_FINGERPRINT_KEY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/statusor.h"

namespace leakhound {

class FingerprintKey {
 public:
  static constexpr size_t kKeyBytes = 32;
  // Size of the expanded XXH3 secret (XXH3_SECRET_DEFAULT_SIZE).
  static constexpr size_t kSecretBytes = 192;

  // Returns a fresh key from the kernel's CSPRNG (getrandom(2)).
  static absl::StatusOr<FingerprintKey> Generate();

  // Returns the key with exactly these bytes.
  // REQUIRES: bytes.size() == kKeyBytes, else InvalidArgument.
  static absl::StatusOr<FingerprintKey> FromBytes(
      std::span<const uint8_t> bytes);

  // The raw key, for persisting it (owner-only file). Never print it.
  const std::array<uint8_t, kKeyBytes>& bytes() const { return key_; }

  // The XXH3 secret derived from the key:
  // block i (16 bytes, i = 0..11) = XXH3_128bits_withSeed(key, 32, seed = i),
  // low 64 bits then high 64 bits, little-endian. Persisted fingerprints
  // depend on this derivation: changing it is a format change.
  const std::array<uint8_t, kSecretBytes>& secret() const { return secret_; }

 private:
  explicit FingerprintKey(std::span<const uint8_t> bytes);

  std::array<uint8_t, kKeyBytes> key_;
  alignas(64) std::array<uint8_t, kSecretBytes> secret_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_FINGERPRINT_KEY_H_
