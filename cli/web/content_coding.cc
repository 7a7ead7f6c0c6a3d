#include "cli/web/content_coding.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace leakhound {
namespace {

constexpr size_t kChunk = 64 * 1024;

absl::Status TooLarge(size_t max_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "the request body decompresses to more than ", max_bytes, " bytes"));
}

// zlib's inflate with `window_bits` (15 + 16: gzip; 15: zlib; -15: raw).
absl::StatusOr<std::string> Inflate(std::string_view in, int window_bits,
                                    size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) {
    return absl::InternalError("zlib could not be initialized");
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, &inflateEnd);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  for (;;) {
    const size_t before = out.size();
    out.resize(before + kChunk);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = static_cast<uInt>(kChunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.resize(before + kChunk - z.avail_out);
    if (out.size() > max_bytes) return TooLarge(max_bytes);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) return out;
      // More after the end: the next member of a gzip file (cat a.gz
      // b.gz is one, which decoders read whole); in a zlib or raw stream,
      // bytes a reader would not see, so not read as clean.
      if (window_bits <= 15 || inflateReset(&z) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK || (z.avail_in == 0 && z.avail_out != 0)) break;
  }
  return absl::InvalidArgumentError(
      "the request body is a malformed or truncated compressed stream");
}

absl::StatusOr<std::string> Unbrotli(std::string_view in, size_t max_bytes) {
  std::unique_ptr<BrotliDecoderState, void (*)(BrotliDecoderState*)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr),
      &BrotliDecoderDestroyInstance);
  if (state == nullptr) return absl::InternalError("brotli could not start");
  size_t available_in = in.size();
  const auto* next_in = reinterpret_cast<const uint8_t*>(in.data());
  std::string out;
  for (;;) {
    const size_t before = out.size();
    out.resize(before + kChunk);
    size_t available_out = kChunk;
    auto* next_out = reinterpret_cast<uint8_t*>(out.data() + before);
    const BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(state.get(), &available_in, &next_in,
                                      &available_out, &next_out, nullptr);
    out.resize(before + kChunk - available_out);
    if (out.size() > max_bytes) return TooLarge(max_bytes);
    if (rc == BROTLI_DECODER_RESULT_SUCCESS && available_in == 0) return out;
    if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
    return absl::InvalidArgumentError(
        "the request body is a malformed or truncated brotli stream");
  }
}

}  // namespace

absl::StatusOr<std::string> DecodeContent(std::string_view encoding,
                                          std::string body, size_t max_bytes) {
  std::vector<std::string> codings;
  const absl::string_view list(encoding.data(), encoding.size());
  for (absl::string_view c : absl::StrSplit(list, ',')) {
    std::string coding = absl::AsciiStrToLower(absl::StripAsciiWhitespace(c));
    if (!coding.empty() && coding != "identity") codings.push_back(coding);
  }
  std::reverse(codings.begin(), codings.end());
  for (const std::string& coding : codings) {
    absl::StatusOr<std::string> decoded;
    if (coding == "gzip" || coding == "x-gzip") {
      decoded = Inflate(body, 15 + 16, max_bytes);
    } else if (coding == "deflate") {
      decoded = Inflate(body, 15, max_bytes);
      if (absl::IsInvalidArgument(decoded.status())) {
        decoded = Inflate(body, -15, max_bytes);  // raw, as some clients send
      }
    } else if (coding == "br") {
      decoded = Unbrotli(body, max_bytes);
    } else {
      return absl::UnimplementedError(
          absl::StrCat("the request body has Content-Encoding ", coding,
                       ", which leakhound does not decode"));
    }
    if (!decoded.ok()) return decoded.status();
    body = std::move(*decoded);
  }
  if (body.size() > max_bytes) return TooLarge(max_bytes);
  return body;
}

}  // namespace leakhound
