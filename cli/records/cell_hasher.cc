#include "cli/records/cell_hasher.h"

#include <sodium.h>

#include <cstring>

namespace leakhound {

struct CellHasher::State {
  // The keyed state after the key block: each hash copies it.
  crypto_generichash_blake2b_state keyed;
};

CellHasher::CellHasher(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
CellHasher::~CellHasher() = default;

absl::StatusOr<std::unique_ptr<CellHasher>> CellHasher::Create(
    std::string_view index_key) {
  if (sodium_init() < 0) return absl::InternalError("libsodium cannot start");
  if (index_key.size() < crypto_generichash_blake2b_KEYBYTES_MIN ||
      index_key.size() > crypto_generichash_blake2b_KEYBYTES_MAX) {
    return absl::InvalidArgumentError("the index key has the wrong size");
  }
  static constexpr char kLabel[] = "leakhound records v1";
  unsigned char records_key[32];
  crypto_generichash_blake2b(
      records_key, sizeof records_key,
      reinterpret_cast<const unsigned char*>(kLabel), sizeof kLabel - 1,
      reinterpret_cast<const unsigned char*>(index_key.data()),
      index_key.size());
  auto state = std::make_unique<State>();
  crypto_generichash_blake2b_init(&state->keyed, records_key,
                                  sizeof records_key, 16);
  sodium_memzero(records_key, sizeof records_key);
  return std::unique_ptr<CellHasher>(new CellHasher(std::move(state)));
}

uint64_t CellHasher::Hash(CellType type, std::string_view normalized) const {
  crypto_generichash_blake2b_state s = state_->keyed;
  const auto tag = static_cast<unsigned char>(type);
  crypto_generichash_blake2b_update(&s, &tag, 1);
  crypto_generichash_blake2b_update(
      &s, reinterpret_cast<const unsigned char*>(normalized.data()),
      normalized.size());
  unsigned char out[16];
  crypto_generichash_blake2b_final(&s, out, sizeof out);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | out[i];
  return v == 0 ? 1 : v;
}

std::string CellHasher::RowKey(std::string_view table, uint32_t row) const {
  crypto_generichash_blake2b_state s = state_->keyed;
  const unsigned char zero = 0;
  crypto_generichash_blake2b_update(&s, &zero, 1);
  crypto_generichash_blake2b_update(
      &s, reinterpret_cast<const unsigned char*>(table.data()), table.size());
  crypto_generichash_blake2b_update(&s, &zero, 1);
  const unsigned char ordinal[4] = {
      static_cast<unsigned char>(row), static_cast<unsigned char>(row >> 8),
      static_cast<unsigned char>(row >> 16),
      static_cast<unsigned char>(row >> 24)};
  crypto_generichash_blake2b_update(&s, ordinal, sizeof ordinal);
  unsigned char out[16];
  crypto_generichash_blake2b_final(&s, out, sizeof out);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (int i = 0; i < 8; ++i) {
    key.push_back(kHex[out[i] >> 4]);
    key.push_back(kHex[out[i] & 15]);
  }
  return key;
}

}  // namespace leakhound
