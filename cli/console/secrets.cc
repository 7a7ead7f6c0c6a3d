// The one file that calls libsodium.
#include "cli/console/secrets.h"

#include <sodium.h>

#include <cstdlib>
#include <mutex>

namespace leakhound {
namespace {

void InitSecrets() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (sodium_init() < 0)
      std::abort();  // no randomness source: unsafe to go on
  });
}

}  // namespace

absl::StatusOr<std::string> HashPassword(std::string_view password) {
  InitSecrets();
  if (password.empty()) return absl::InvalidArgumentError("empty password");
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(),
                        crypto_pwhash_OPSLIMIT_INTERACTIVE,
                        crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) {
    return absl::ResourceExhaustedError("not enough memory to hash a password");
  }
  return std::string(out);
}

bool CheckPassword(std::string_view password, const std::string& hash) {
  InitSecrets();
  if (hash.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(hash.c_str(), password.data(),
                                  password.size()) == 0;
}

std::string RandomToken() {
  InitSecrets();
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  char hex[2 * sizeof bytes + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return hex;
}

bool TokensEqual(std::string_view a, std::string_view b) {
  InitSecrets();
  return a.size() == b.size() &&
         sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  InitSecrets();
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(
      &state, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(
      &state, reinterpret_cast<const unsigned char*>(message.data()),
      message.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, mac);
  char hex[2 * sizeof mac + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

std::string SodiumVersion() { return sodium_version_string(); }

}  // namespace leakhound
