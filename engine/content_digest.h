// ContentDigest: the SHA-256 of a document's extracted text, as the index
// stores it (DocumentRecord::digest) to recognize identical content added
// under another id.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_ENGINE_CONTENT_DIGEST_H_
#define LEAKHOUND_ENGINE_CONTENT_DIGEST_H_

#include <string>
#include <string_view>

namespace leakhound {

// Returns the 32 raw bytes of SHA-256(text).
std::string ContentDigest(std::string_view text);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_CONTENT_DIGEST_H_
