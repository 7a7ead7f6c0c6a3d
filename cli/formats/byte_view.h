// ByteView: bounds-checked little-endian reads from the bytes of a binary
// format (OLE2 streams, BIFF records, PowerPoint atoms, TNEF, compressed
// RTF). Every read says whether the bytes were there, so a parser never
// reads past its input however the input lies about its lengths.
//
// Thread-safety: a plain value over bytes it does not own.
#ifndef LEAKHOUND_CLI_FORMATS_BYTE_VIEW_H_
#define LEAKHOUND_CLI_FORMATS_BYTE_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace leakhound {

// Calls fn(code point) for each code point of UTF-16LE `bytes`, surrogate
// pairs combined (an unpaired surrogate is passed as it is, an odd last
// byte ignored), until a call returns false; returns whether none did.
template <typename Fn>
bool ForEachUtf16LeCodePoint(std::string_view bytes, Fn fn) {
  const size_t units = bytes.size() / 2;
  auto unit = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[2 * i])) |
           static_cast<uint32_t>(static_cast<unsigned char>(bytes[2 * i + 1]))
               << 8;
  };
  for (size_t i = 0; i < units; ++i) {
    uint32_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
      const uint32_t low = unit(i + 1);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
        ++i;
      }
    }
    if (!fn(u)) return false;
  }
  return true;
}

// Appends UTF-16LE `bytes` (an odd last byte ignored) to *out as UTF-8;
// an unpaired surrogate becomes U+FFFD. The strings of Office's binary
// formats are UTF-16LE without a byte order mark.
void AppendUtf16Le(std::string_view bytes, std::string* out);

// Appends ISO-8859-1 `bytes` to *out as UTF-8 (BIFF8's "compressed"
// strings: UTF-16 whose high bytes were all zero and left out).
void AppendLatin1(std::string_view bytes, std::string* out);

// Appends code point `c` to *out as UTF-8. REQUIRES: c <= 0x10FFFF.
void AppendCodePoint(uint32_t c, std::string* out);

class ByteView {
 public:
  // REQUIRES: `bytes` outlives the view.
  explicit ByteView(std::string_view bytes) : bytes_(bytes) {}

  size_t size() const { return bytes_.size(); }
  std::string_view bytes() const { return bytes_; }

  // The unsigned little-endian integer of sizeof(T) bytes at `offset`, or
  // false (and *out unchanged) if it does not fit.
  template <typename T>
  bool Get(size_t offset, T* out) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) {
      return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      v |= uint64_t{static_cast<unsigned char>(bytes_[offset + i])} << (8 * i);
    }
    *out = static_cast<T>(v);
    return true;
  }

  // `length` bytes at `offset`, or an empty view with false if they are
  // not all there.
  bool Slice(size_t offset, size_t length, std::string_view* out) const {
    if (offset > bytes_.size() || bytes_.size() - offset < length) {
      return false;
    }
    *out = bytes_.substr(offset, length);
    return true;
  }

 private:
  std::string_view bytes_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_BYTE_VIEW_H_
