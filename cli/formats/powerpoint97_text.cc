#include "cli/formats/powerpoint97_text.h"

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {
namespace {

// Record types (MS-PPT 2.13.24).
constexpr uint16_t kTextCharsAtom = 0x0FA0;
constexpr uint16_t kTextBytesAtom = 0x0FA8;
constexpr uint16_t kCString = 0x0FBA;
constexpr uint16_t kHeadersFootersContainer = 0x0FD9;
constexpr uint16_t kCryptSession10Container = 0x2F14;
constexpr size_t kHeaderBytes = 8;

class Walker {
 public:
  Walker(size_t max_bytes, std::string* out)
      : max_bytes_(max_bytes), out_(out) {}

  // The records of `bytes`, the body of a container of type `parent`.
  absl::Status Walk(std::string_view bytes, uint16_t parent, int depth) {
    if (depth > kPowerPointMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed PowerPoint presentation: containers nested deeper than ",
          kPowerPointMaxDepth));
    }
    const ByteView v(bytes);
    for (size_t pos = 0; pos + kHeaderBytes <= bytes.size();) {
      uint16_t ver_instance = 0, type = 0;
      uint32_t length = 0;
      v.Get(pos, &ver_instance);
      v.Get(pos + 2, &type);
      v.Get(pos + 4, &length);
      std::string_view body;
      if (!v.Slice(pos + kHeaderBytes, length, &body)) {
        // The top level ends in the stream's padding or in records that
        // later saves left behind; text read so far stands.
        if (depth == 0) return absl::OkStatus();
        return absl::InvalidArgumentError(
            "malformed PowerPoint presentation: record past its container");
      }
      if (type == kCryptSession10Container) {
        return UnreadableError(Unreadable::kEncrypted,
                               "password-protected PowerPoint presentation");
      }
      absl::Status s;
      if ((ver_instance & 0x000F) == 0x000F) {
        s = Walk(body, type, depth + 1);
      } else if (type == kTextCharsAtom ||
                 (type == kCString && parent == kHeadersFootersContainer)) {
        std::string text;
        AppendUtf16Le(body, &text);
        s = Keep(std::move(text));
      } else if (type == kTextBytesAtom) {
        std::string text;
        AppendLatin1(body, &text);
        s = Keep(std::move(text));
      }
      if (!s.ok()) return s;
      pos += kHeaderBytes + length;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Keep(std::string text) {
    for (char& c : text) {
      if (c == '\r' || c == '\x0B') c = '\n';
    }
    if (text.empty() || !seen_.insert(text).second) return absl::OkStatus();
    if (out_->size() + text.size() + 1 > max_bytes_) {
      return TextLimitError(max_bytes_);
    }
    out_->append(text);
    out_->push_back('\n');
    return absl::OkStatus();
  }

  size_t max_bytes_;
  std::string* out_;
  absl::flat_hash_set<std::string> seen_;
};

}  // namespace

absl::Status AppendPowerPoint97Text(std::string_view document,
                                    size_t max_text_bytes, std::string* out) {
  return Walker(max_text_bytes, out).Walk(document, 0, 0);
}

}  // namespace leakhound
