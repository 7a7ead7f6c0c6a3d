// FastContentHash: the catalogue's digest of a file's bytes (docs/
// discover.md): XXH3-128, fast enough that hashing every byte of a share
// costs little beside reading it (SHA-256 is kept for findings, whose
// incidents name it).
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_DISCOVER_CONTENT_HASH_H_
#define LEAKHOUND_CLI_DISCOVER_CONTENT_HASH_H_

#include <string>
#include <string_view>

namespace leakhound {

// PERSISTED (discover_files.digest): "xxh128:" and 32 lowercase hex
// digits of XXH3_128bits(bytes), high half first.
std::string FastContentHash(std::string_view bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_DISCOVER_CONTENT_HASH_H_
