// Printable: text from outside (a file name, a subject, a sender, a
// document id, a message naming one) made safe for a terminal or a log
// line: control characters as "\x1b" and C1 controls as "\u009b", so that
// no such text forges a line or sends escape sequences. Every command's
// output and every daemon log line goes through it.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_GATEWAY_PRINTABLE_H_
#define LEAKHOUND_CLI_GATEWAY_PRINTABLE_H_

#include <string>
#include <string_view>

namespace leakhound {

// `text` (a file name, a part name, a document id, a message naming one)
// for a terminal: its control characters as "\x1b", so that a name cannot
// forge a line ("clean x" after a newline) or send escape sequences.
inline std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    const auto byte = static_cast<unsigned char>(text[k]);
    // The C1 controls (U+0080-U+009F, UTF-8 C2 80-C2 9F) too: some
    // terminals read U+009B as CSI.
    const bool c1 = byte == 0xc2 && k + 1 < text.size() &&
                    (static_cast<unsigned char>(text[k + 1]) & 0xe0) == 0x80;
    if (byte < 0x20 || byte == 0x7f || c1) {
      const auto shown = c1 ? static_cast<unsigned char>(text[++k]) : byte;
      out += c1 ? "\\u00" : "\\x";
      out += kHex[shown >> 4];
      out += kHex[shown & 0xf];
    } else {
      out += text[k];
    }
  }
  return out;
}

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_PRINTABLE_H_
