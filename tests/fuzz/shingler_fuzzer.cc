// libFuzzer target for the text decoder and the shingler: the input is
// decoded as a file's bytes would be (shingler/text_decoder.h), then
// shingled twice, by the fast tokenizer (Shingler::Shingle) and by the
// plain ICU reference (Shingler::ShingleReference); the two must agree
// shingle for shingle. Besides crashes and hangs it checks the contract:
// the decoded text is valid UTF-8, every shingle's bytes and tokens lie
// inside the text in order, and shingling is deterministic.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "shingler/fingerprint_key.h"
#include "shingler/shingler.h"
#include "shingler/text_decoder.h"

namespace {

leakhound::Shingler& TheShingler() {
  static std::unique_ptr<leakhound::Shingler> shingler = [] {
    const std::array<uint8_t, 32> bytes{1, 2, 3};
    auto key = leakhound::FingerprintKey::FromBytes(bytes);
    if (!key.ok()) std::abort();
    auto s = leakhound::Shingler::Create(leakhound::ShinglerOptions{}, *key);
    if (!s.ok()) std::abort();
    return std::move(*s);
  }();
  return *shingler;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = leakhound::DecodeText(
      std::string(reinterpret_cast<const char*>(data), size));
  if (!decoded.ok()) std::abort();  // only an ICU failure may refuse
  const std::string& text = decoded->utf8;
  if (leakhound::RepairUtf8(text) != text) std::abort();  // valid UTF-8
  leakhound::Shingler& shingler = TheShingler();
  auto fast = shingler.Shingle(text);
  if (!fast.ok()) return 0;  // over the size limit
  const leakhound::ShingledText reference = shingler.ShingleReference(text);
  if (fast->token_count != reference.token_count ||
      fast->shingles != reference.shingles) {
    std::abort();
  }
  uint32_t last_begin = 0;
  for (const leakhound::Shingle& s : fast->shingles) {
    if (s.byte_begin >= s.byte_end || s.byte_end > text.size() ||
        s.token_begin >= s.token_end || s.token_end > fast->token_count ||
        s.byte_begin < last_begin) {
      std::abort();
    }
    last_begin = s.byte_begin;
  }
  auto again = shingler.Shingle(text);
  if (!again.ok() || again->shingles != fast->shingles) std::abort();
  return 0;
}
