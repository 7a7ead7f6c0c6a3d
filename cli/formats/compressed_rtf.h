// CompressedRtf: the RTF body of Outlook messages and TNEF attachments
// (PR_RTF_COMPRESSED), decompressed as MS-OXRTFCP specifies: a 16-byte
// header (compressed size, raw size, "LZFu" or "MELA"), then LZ77 runs
// against a 4096-byte ring dictionary preloaded with common RTF words.
//
// Thread-safety: a reentrant function.
#ifndef LEAKHOUND_CLI_FORMATS_COMPRESSED_RTF_H_
#define LEAKHOUND_CLI_FORMATS_COMPRESSED_RTF_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

// The RTF in `bytes`. At most `max_bytes` are produced; a header that
// announces more, or output that passes `max_ratio` times the compressed
// size (an LZ77 bomb: each 2-byte reference can write 17 bytes), is
// ResourceExhausted. InvalidArgument for a malformed or truncated stream
// or an unknown compression type.
absl::StatusOr<std::string> DecompressRtf(std::string_view bytes,
                                          size_t max_bytes, double max_ratio);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_COMPRESSED_RTF_H_
