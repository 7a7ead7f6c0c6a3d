#include "cli/formats/compressed_rtf.h"

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/formats/byte_view.h"

namespace leakhound {
namespace {

constexpr uint32_t kCompressed = 0x75465A4C;    // "LZFu"
constexpr uint32_t kUncompressed = 0x414C454D;  // "MELA"
constexpr size_t kHeaderBytes = 16;
constexpr size_t kDictionaryBytes = 4096;

// MS-OXRTFCP 2.1.3.1.1: the dictionary's initial contents.
constexpr std::string_view kPreload =
    "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman "
    "\\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New "
    "RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
    "\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx";

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed compressed RTF: ", std::string(what)));
}

}  // namespace

absl::StatusOr<std::string> DecompressRtf(std::string_view bytes,
                                          size_t max_bytes, double max_ratio) {
  const ByteView v(bytes);
  uint32_t comp_size = 0, raw_size = 0, type = 0;
  if (!v.Get(0, &comp_size) || !v.Get(4, &raw_size) || !v.Get(8, &type)) {
    return Malformed("truncated header");
  }
  const double ratio_bound =
      max_ratio * static_cast<double>(std::max<size_t>(bytes.size(), 1024));
  if (raw_size > max_bytes || static_cast<double>(raw_size) > ratio_bound) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "compressed RTF announces %u bytes, more than %g times its size or "
        "the limit (--max-ratio, --max-text-size): a decompression bomb?",
        raw_size, max_ratio));
  }
  // comp_size counts the bytes after its own field.
  std::string_view data;
  if (comp_size < kHeaderBytes - 4 ||
      !v.Slice(kHeaderBytes, comp_size - (kHeaderBytes - 4), &data)) {
    return Malformed("truncated data");
  }
  if (type == kUncompressed) {
    return std::string(data.substr(0, std::min<size_t>(raw_size, data.size())));
  }
  if (type != kCompressed) return Malformed("unknown compression type");

  std::array<char, kDictionaryBytes> dictionary{};
  std::copy(kPreload.begin(), kPreload.end(), dictionary.begin());
  size_t write = kPreload.size();
  std::string out;
  out.reserve(raw_size);
  size_t pos = 0;
  while (pos < data.size()) {
    const auto control = static_cast<unsigned char>(data[pos++]);
    for (int bit = 0; bit < 8; ++bit) {
      if ((control & (1u << bit)) == 0) {  // a literal byte
        if (pos >= data.size()) return out;  // the last run may be short
        const char c = data[pos++];
        dictionary[write] = c;
        write = (write + 1) % kDictionaryBytes;
        out.push_back(c);
      } else {  // a reference: 12-bit offset, 4-bit length - 2
        if (pos + 2 > data.size()) return Malformed("truncated reference");
        const unsigned ref =
            (unsigned{static_cast<unsigned char>(data[pos])} << 8) |
            unsigned{static_cast<unsigned char>(data[pos + 1])};
        pos += 2;
        const size_t offset = ref >> 4;
        const size_t length = (ref & 0x0F) + 2;
        if (offset == write) return out;  // the end marker
        for (size_t k = 0; k < length; ++k) {
          const char c = dictionary[(offset + k) % kDictionaryBytes];
          dictionary[write] = c;
          write = (write + 1) % kDictionaryBytes;
          out.push_back(c);
        }
      }
      if (out.size() > raw_size + 17) {
        return Malformed("more output than the header announces");
      }
    }
  }
  return out;
}

}  // namespace leakhound
