// The one file of cli/ that calls xxHash.
#include "cli/discover/content_hash.h"

#include <xxhash.h>

#include "absl/strings/str_format.h"

namespace leakhound {

std::string FastContentHash(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return absl::StrFormat("xxh128:%016x%016x", h.high64, h.low64);
}

}  // namespace leakhound
