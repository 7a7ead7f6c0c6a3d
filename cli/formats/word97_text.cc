#include "cli/formats/word97_text.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {
namespace {

constexpr uint16_t kWordIdent = 0xA5EC;
constexpr uint16_t kEncryptedFlag = 0x0100;
constexpr uint16_t kWhichTableFlag = 0x0200;
constexpr uint16_t kObfuscatedFlag = 0x8000;
constexpr size_t kFibBaseBytes = 32;
constexpr size_t kClxEntry = 33;  // fcClx/lcbClx in FibRgFcLcb97
constexpr uint32_t kCompressedFlag = 0x40000000;

// MS-DOC 2.4.1: bytes 0x80-0x9F of compressed text are Windows-1252's.
constexpr uint16_t kCp1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed Word document: ", std::string(what)));
}

// Turns the characters of a piece into text, keeping the field state
// across pieces.
class CharacterSink {
 public:
  CharacterSink(size_t max_bytes, std::string* out)
      : max_bytes_(max_bytes), out_(out) {}

  absl::Status Put(uint32_t c) {
    switch (c) {
      case 0x13:  // field begin: its code follows
        fields_.push_back(true);
        return absl::OkStatus();
      case 0x14:  // field separator: its result follows
        if (!fields_.empty()) fields_.back() = false;
        return absl::OkStatus();
      case 0x15:  // field end
        if (!fields_.empty()) fields_.pop_back();
        return absl::OkStatus();
      default:
        break;
    }
    for (bool in_code : fields_) {
      if (in_code) return absl::OkStatus();
    }
    switch (c) {
      case 0x0D: case 0x0B: case 0x0C: case 0x0E: c = '\n'; break;
      case 0x07: c = '\t'; break;  // cell or row end
      case 0x1E: c = '-'; break;   // non-breaking hyphen
      case 0x1F: return absl::OkStatus();  // optional hyphen
      case 0xA0: c = ' '; break;
      default:
        // Anchors of pictures, footnote and comment references, drawn
        // objects: no text of their own.
        if (c < 0x20 && c != '\t') return absl::OkStatus();
    }
    AppendCodePoint(c, out_);
    if (out_->size() > max_bytes_) {
      return TextLimitError(max_bytes_);
    }
    return absl::OkStatus();
  }

 private:
  size_t max_bytes_;
  std::string* out_;
  std::vector<bool> fields_;  // per open field: still in its code
};

// Where the CLX (the piece table's container) lies in the table stream,
// read off the WordDocument stream's File Information Block; and which
// table stream holds it.
struct ClxLocation {
  uint32_t fc = 0, lcb = 0;
  bool table1 = false;
};

absl::StatusOr<ClxLocation> ReadFib(std::string_view word) {
  const ByteView fib(word);
  uint16_t ident = 0, nfib = 0, flags = 0;
  if (!fib.Get(0, &ident) || !fib.Get(2, &nfib) || !fib.Get(0x0A, &flags)) {
    return Malformed("no File Information Block");
  }
  if (ident != kWordIdent) return Malformed("bad signature");
  if (flags & (kEncryptedFlag | kObfuscatedFlag)) {
    return UnreadableError(Unreadable::kEncrypted,
                           "password-protected Word document");
  }
  if (nfib < 101) {  // Word 6 and 95 keep no piece table in a table stream
    return UnreadableError(Unreadable::kUnsupported,
                           "Word 6/95 document: unsupported format");
  }
  // FibBase, then csw and FibRgW, cslw and FibRgLw, cbRgFcLcb and the
  // FibRgFcLcb blob.
  size_t pos = kFibBaseBytes;
  uint16_t csw = 0, cslw = 0, cb_fc_lcb = 0;
  if (!fib.Get(pos, &csw)) return Malformed("truncated FIB");
  pos += 2 + size_t{csw} * 2;
  if (!fib.Get(pos, &cslw)) return Malformed("truncated FIB");
  pos += 2 + size_t{cslw} * 4;
  if (!fib.Get(pos, &cb_fc_lcb)) return Malformed("truncated FIB");
  if (cb_fc_lcb <= kClxEntry) return Malformed("FIB without a piece table");
  ClxLocation clx;
  if (!fib.Get(pos + 2 + kClxEntry * 8, &clx.fc) ||
      !fib.Get(pos + 2 + kClxEntry * 8 + 4, &clx.lcb)) {
    return Malformed("truncated FIB");
  }
  clx.table1 = (flags & kWhichTableFlag) != 0;
  return clx;
}

// The PlcPcd of a CLX: Prc entries (0x01, cbGrpprl, grpprl) are skipped
// up to the Pcdt (0x02, lcb, PlcPcd).
absl::StatusOr<std::string_view> PieceTable(std::string_view clx) {
  const ByteView c(clx);
  size_t at = 0;
  for (;;) {
    uint8_t clxt = 0;
    if (!c.Get(at, &clxt)) return Malformed("CLX without a piece table");
    if (clxt == 0x01) {
      int16_t cb = 0;
      if (!c.Get(at + 1, &cb) || cb < 0) return Malformed("bad Prc");
      at += 3 + static_cast<size_t>(cb);
    } else if (clxt == 0x02) {
      uint32_t lcb = 0;
      std::string_view plc;
      if (!c.Get(at + 1, &lcb) || !c.Slice(at + 5, lcb, &plc)) {
        return Malformed("bad Pcdt");
      }
      return plc;
    } else {
      return Malformed("bad CLX entry");
    }
  }
}

// The text of every piece of PlcPcd `plc` (n+1 character positions, then
// n 8-byte piece descriptors) into `sink`: 8-bit pieces in cp1252,
// others UTF-16LE.
absl::Status AppendPieces(std::string_view plc, std::string_view word,
                          CharacterSink& sink) {
  if (plc.size() < 4 || (plc.size() - 4) % 12 != 0) {
    return Malformed("bad piece table size");
  }
  const size_t pieces = (plc.size() - 4) / 12;
  const ByteView p(plc);
  const ByteView doc(word);
  for (size_t i = 0; i < pieces; ++i) {
    uint32_t cp_start = 0, cp_end = 0, fc = 0;
    p.Get(i * 4, &cp_start);
    p.Get((i + 1) * 4, &cp_end);
    p.Get((pieces + 1) * 4 + i * 8 + 2, &fc);
    if (cp_end < cp_start) return Malformed("piece table out of order");
    const size_t count = cp_end - cp_start;
    const bool compressed = (fc & kCompressedFlag) != 0;
    const size_t offset = compressed ? (fc & ~kCompressedFlag) / 2 : fc;
    std::string_view chars;
    if (!doc.Slice(offset, compressed ? count : count * 2, &chars)) {
      return Malformed("piece out of range");
    }
    absl::Status s;
    if (compressed) {
      for (size_t k = 0; k < chars.size() && s.ok(); ++k) {
        const auto b = static_cast<unsigned char>(chars[k]);
        s = sink.Put((b >= 0x80 && b < 0xA0) ? kCp1252High[b - 0x80] : b);
      }
    } else {
      ForEachUtf16LeCodePoint(chars, [&](uint32_t u) {
        s = sink.Put(u);
        return s.ok();
      });
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendWord97Text(const Ole2Storage& storage, std::string_view dir,
                              size_t max_stream_bytes, size_t max_text_bytes,
                              std::string* out) {
  auto word = storage.Read(Ole2Path(dir, "WordDocument"), max_stream_bytes);
  if (!word.ok()) return word.status();
  auto location = ReadFib(*word);
  if (!location.ok()) return location.status();
  auto table = storage.Read(
      Ole2Path(dir, location->table1 ? "1Table" : "0Table"), max_stream_bytes);
  if (!table.ok()) return Malformed(std::string(table.status().message()));
  std::string_view clx;
  if (!ByteView(*table).Slice(location->fc, location->lcb, &clx)) {
    return Malformed("CLX out of range");
  }
  auto plc = PieceTable(clx);
  if (!plc.ok()) return plc.status();
  CharacterSink sink(max_text_bytes, out);
  return AppendPieces(*plc, *word, sink);
}

}  // namespace leakhound
