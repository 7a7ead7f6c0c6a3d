// libFuzzer target for protected locations (engine/protected_locations.h):
// the input's first line, normalized if it can be, is protected next to
// fixed keys, and the rest is searched as outbound text. Besides crashes
// and hangs it checks the contract: normalizing a key again gives the same
// key; every finding lies inside the text, its key normalizes from its
// bytes, and its prefix is a protected key that starts its key at a
// segment boundary (no false positive through the multi-layer filter).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/protected_locations.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using leakhound::ProtectedLocations;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view first = input.substr(0, newline);
  const std::string_view text =
      newline == std::string_view::npos ? input : input.substr(newline + 1);
  std::vector<std::string> keys = {"//wiki.corp.example/finance", "//fs01/hr",
                                   "/srv/legal", "c:/finance/2027"};
  if (auto key = ProtectedLocations::Normalize(first); key.ok()) {
    auto again = ProtectedLocations::Normalize(*key);
    if (!again.ok() || *again != *key) std::abort();
    keys.push_back(*key);
  }
  const std::vector<std::string> protected_keys = keys;
  const ProtectedLocations locations(std::move(keys));
  for (const leakhound::LocationFinding& f : locations.Find(text)) {
    if (f.byte_begin >= f.byte_end || f.byte_end > text.size()) std::abort();
    auto key = ProtectedLocations::Normalize(
        text.substr(f.byte_begin, f.byte_end - f.byte_begin));
    if (!key.ok() || *key != f.key) std::abort();
    bool known = false;
    for (const std::string& k : protected_keys) known |= k == f.prefix;
    if (!known || !f.key.starts_with(f.prefix)) std::abort();
    if (f.key.size() > f.prefix.size() && f.key[f.prefix.size()] != '/') {
      std::abort();
    }
  }
  return 0;
}
