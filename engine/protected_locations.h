// ProtectedLocations: the URL and share-path prefixes an admin protects
// (`leakhound locations add https://wiki.corp.example/finance/`), and the
// search of outbound text for URLs and paths that lie under one of them.
//
// A location is compared in its normalized form (its key):
//  - network: "//host/path", from scheme://[user@]host[:port]/path (any
//    scheme: https, ftp, smb, ...), \\server\share\path (UNC) and
//    //server/share; a bare "host.domain/path" in text counts as network
//    when its first segment has a dot;
//  - local: "/path" (absolute Unix paths, file:///path) and "c:/path"
//    (drive paths, either slash);
// then ASCII-lowercased (share paths are case-insensitive, and a DLP check
// prefers a false alarm to a miss), backslashes made slashes, repeated
// slashes collapsed, and the query ("?"), fragment ("#") and trailing
// slashes dropped. Percent-escapes are compared as written. Segments are
// the parts between slashes, the first one holding its "//" or "/" mark
// ("//host", "/srv", "c:"). A text location lies under a prefix when the
// prefix's segments are its first segments: "//wiki.corp.example/finance"
// covers ".../finance" and ".../finance/q3", not ".../finance-public".
//
// Membership of each of a found location's prefixes is answered first by a
// multi-layer Bloom filter (seed 000; engine/filter/multi_layer_bloom_filter.h)
// over the keys' segments, then confirmed exactly against the keys, so a
// finding is never a filter false positive.
//
// Thread-safety: immutable after construction; safe to share.
#ifndef LEAKHOUND_ENGINE_PROTECTED_LOCATIONS_H_
#define LEAKHOUND_ENGINE_PROTECTED_LOCATIONS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "engine/filter/multi_layer_bloom_filter.h"

namespace leakhound {

// A URL or path in scanned text under a protected prefix.
struct LocationFinding {
  uint32_t byte_begin = 0;  // the location's bytes in the scanned text
  uint32_t byte_end = 0;
  std::string key;     // its normalized form
  std::string prefix;  // the shortest protected key it lies under
};

class ProtectedLocations {
 public:
  ProtectedLocations();  // none protected

  // The key of a location as an admin gives it: InvalidArgument (with the
  // reason) when it is not a URL, a UNC path, an absolute path or a
  // host/path, or has no host.
  static absl::StatusOr<std::string> Normalize(std::string_view location);

  // REQUIRES: every key is a Normalize result.
  explicit ProtectedLocations(std::vector<std::string> keys);

  // Every URL or path in `text` under a protected prefix, in text order.
  // Empty when none is protected. `text` need not be valid UTF-8.
  std::vector<LocationFinding> Find(std::string_view text) const;

  size_t size() const { return keys_.size(); }

 private:
  // The shortest protected key `key` lies under, or empty.
  std::string CoveringPrefix(std::string_view key) const;

  absl::flat_hash_set<std::string> keys_;
  MultiLayerBloomFilter filter_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_PROTECTED_LOCATIONS_H_
