#include "cli/formats/rtf_extractor.h"

#include <cctype>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cli/formats/byte_view.h"
#include "shingler/text_decoder.h"

namespace leakhound {
namespace {

enum class Destination { kText, kSkip, kFontTable, kObjectData };

struct Group {
  Destination destination = Destination::kText;
  int fallback = 1;  // \ucN: characters after \uN to skip
  int font = -1;     // \fN
  bool ignorable = false;  // \* seen: the next control word is a
                           // destination we may not know
};

// Destinations whose content is not text a reader sees.
bool SkippedDestination(std::string_view word) {
  static constexpr std::string_view kSkipped[] = {
      "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl",
      "rsidtbl", "generator", "pict", "themedata", "colorschememapping",
      "datastore", "latentstyles", "xmlnstbl", "author", "operator",
      "creatim", "revtim", "printim", "buptim", "fldinst", "filetbl",
      "objclass", "objname", "bkmkstart", "bkmkend", "pntxta", "pntxtb",
      "falt", "panose", "mmathPr", "wgrffmtfilter", "pgdsctbl", "nonshppict",
      "shpinst", "xe", "tc", "template", "userprops", "result"};
  for (std::string_view s : kSkipped) {
    if (word == s) return true;
  }
  return false;
}

// \fcharset values to Windows code pages (the RTF specification's table).
int CodePageOfCharset(int charset) {
  switch (charset) {
    case 128: return 932;
    case 129: return 949;
    case 130: return 1361;
    case 134: return 936;
    case 136: return 950;
    case 161: return 1253;
    case 162: return 1254;
    case 163: return 1258;
    case 177: return 1255;
    case 178: return 1256;
    case 186: return 1257;
    case 204: return 1251;
    case 222: return 874;
    case 238: return 1250;
    default: return 0;  // the document's \ansicpg
  }
}

// Single characters some control words stand for.
uint32_t SymbolOf(std::string_view word) {
  static constexpr std::pair<std::string_view, uint32_t> kSymbols[] = {
      {"par", '\n'},      {"line", '\n'},      {"sect", '\n'},
      {"page", '\n'},     {"row", '\n'},       {"column", '\n'},
      {"tab", '\t'},      {"cell", '\t'},      {"nestcell", '\t'},
      {"emdash", 0x2014}, {"endash", 0x2013},  {"bullet", 0x2022},
      {"lquote", 0x2018}, {"rquote", 0x2019},  {"ldblquote", 0x201C},
      {"rdblquote", 0x201D}, {"emspace", ' '}, {"enspace", ' '},
      {"qmspace", ' '}};
  for (const auto& [name, c] : kSymbols) {
    if (word == name) return c;
  }
  return 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class RtfReader {
 public:
  RtfReader(std::string_view in, ExtractionSink& sink) : in_(in), sink_(sink) {}

  absl::Status Run() {
    if (!in_.starts_with("{\\rtf")) {
      return absl::InvalidArgumentError("malformed RTF: no {\\rtf header");
    }
    size_t next_check = 0;
    while (pos_ < in_.size()) {
      if (pos_ >= next_check) {
        if (auto s = sink_.CheckTime(); !s.ok()) return s;
        next_check = pos_ + 65536;
      }
      const char c = in_[pos_++];
      absl::Status s;
      switch (c) {
        case '{':
          s = Open();
          break;
        case '}':
          s = Close();
          if (s.ok() && stack_.empty()) return Finish();
          break;
        case '\\':
          s = Control();
          break;
        case '\r':
        case '\n':
          break;
        default:
          s = Byte(c);
          break;
      }
      if (!s.ok()) return s;
    }
    return Finish();  // an unterminated document: its text still counts
  }

 private:
  Group& top() { return stack_.back(); }

  absl::Status Open() {
    if (stack_.size() >= kRtfMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed RTF: groups nested deeper than ", kRtfMaxDepth));
    }
    Group g = stack_.empty() ? Group{} : top();
    g.ignorable = false;
    stack_.push_back(g);
    skip_ = 0;
    return absl::OkStatus();
  }

  absl::Status Close() {
    if (stack_.empty()) return absl::OkStatus();
    if (auto s = Flush(); !s.ok()) return s;
    const Group closed = top();
    stack_.pop_back();
    skip_ = 0;
    if (closed.destination == Destination::kObjectData &&
        (stack_.empty() || top().destination != Destination::kObjectData)) {
      return EmitObject();
    }
    return absl::OkStatus();
  }

  absl::Status Byte(char c) {
    if (stack_.empty()) return absl::OkStatus();
    if (skip_ > 0) {
      --skip_;
      return absl::OkStatus();
    }
    switch (top().destination) {
      case Destination::kText:
        return PutByte(c);
      case Destination::kObjectData:
        if (HexValue(c) >= 0) object_hex_.push_back(c);
        return absl::OkStatus();
      default:
        return absl::OkStatus();
    }
  }

  absl::Status Control() {
    if (pos_ >= in_.size()) return absl::OkStatus();
    const char c = in_[pos_];
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      ++pos_;
      return Symbol(c);
    }
    const size_t start = pos_;
    while (pos_ < in_.size() && pos_ - start < 32 &&
           std::isalpha(static_cast<unsigned char>(in_[pos_]))) {
      ++pos_;
    }
    const std::string_view word = in_.substr(start, pos_ - start);
    bool has_param = false;
    bool negative = false;
    int64_t param = 0;
    if (pos_ < in_.size() && in_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    for (int digits = 0; pos_ < in_.size() && digits < 10 &&
                         std::isdigit(static_cast<unsigned char>(in_[pos_]));
         ++digits) {
      param = param * 10 + (in_[pos_++] - '0');
      has_param = true;
    }
    if (negative) param = -param;
    if (pos_ < in_.size() && in_[pos_] == ' ') ++pos_;
    return Word(word, has_param, param);
  }

  absl::Status Symbol(char c) {
    if (stack_.empty()) return absl::OkStatus();
    switch (c) {
      case '\'': {
        if (pos_ + 2 > in_.size()) return absl::OkStatus();
        const int hi = HexValue(in_[pos_]), lo = HexValue(in_[pos_ + 1]);
        pos_ += 2;
        if (hi < 0 || lo < 0) return absl::OkStatus();
        if (skip_ > 0) {
          --skip_;
          return absl::OkStatus();
        }
        if (top().destination != Destination::kText) return absl::OkStatus();
        return PutByte(static_cast<char>(hi * 16 + lo));
      }
      case '*':
        top().ignorable = true;
        return absl::OkStatus();
      case '\\': case '{': case '}':
        return Byte(c);
      case '~':
        return Byte(' ');
      case '_':
        return Byte('-');
      case '\r': case '\n':
        return Character('\n');
      default:  // \- optional hyphen, \: index subentry, \| formula
        return absl::OkStatus();
    }
  }

  absl::Status Word(std::string_view word, bool has_param, int64_t param) {
    if (stack_.empty()) return absl::OkStatus();
    Group& g = top();
    if (g.ignorable) {
      g.ignorable = false;
      if (g.destination != Destination::kSkip) {
        g.destination = word == "objdata" ? Destination::kObjectData
                                          : Destination::kSkip;
      }
      return absl::OkStatus();
    }
    if (word == "bin") {
      // Raw bytes follow: skipped whole, never read as control words.
      const size_t n = has_param && param > 0 ? static_cast<size_t>(param) : 0;
      pos_ = std::min(in_.size(), pos_ + n);
      return absl::OkStatus();
    }
    if (word == "fonttbl") {
      g.destination = Destination::kFontTable;
      return absl::OkStatus();
    }
    if (word == "objdata") {
      g.destination = Destination::kObjectData;
      return absl::OkStatus();
    }
    if (SkippedDestination(word)) {
      g.destination = Destination::kSkip;
      return absl::OkStatus();
    }
    if (word == "ansicpg" && has_param && param > 0) {
      document_code_page_ = static_cast<int>(param);
      return absl::OkStatus();
    }
    if (word == "uc" && has_param && param >= 0 && param < 16) {
      g.fallback = static_cast<int>(param);
      return absl::OkStatus();
    }
    if (g.destination == Destination::kFontTable) {
      if (word == "f" && has_param) table_font_ = static_cast<int>(param);
      if (word == "fcharset" && has_param) {
        const int cp = CodePageOfCharset(static_cast<int>(param));
        if (cp != 0) font_code_pages_[table_font_] = cp;
      }
      return absl::OkStatus();
    }
    if (word == "f" && has_param) {
      g.font = static_cast<int>(param);
      return absl::OkStatus();
    }
    if (g.destination != Destination::kText) return absl::OkStatus();
    if (word == "u" && has_param) {
      if (skip_ > 0) --skip_;
      uint32_t u =
          static_cast<uint32_t>(param < 0 ? param + 65536 : param) & 0xFFFF;
      skip_ = g.fallback;
      if (u >= 0xD800 && u <= 0xDBFF) {
        high_surrogate_ = u;
        return absl::OkStatus();
      }
      if (u >= 0xDC00 && u <= 0xDFFF && high_surrogate_ != 0) {
        u = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (u - 0xDC00);
      }
      high_surrogate_ = 0;
      return Character(u);
    }
    if (skip_ > 0) {  // a control word counts as one fallback character
      --skip_;
      return absl::OkStatus();
    }
    if (const uint32_t c = SymbolOf(word); c != 0) return Character(c);
    return absl::OkStatus();
  }

  // A byte of 8-bit text in the current font's code page.
  absl::Status PutByte(char c) {
    const int cp = CodePage();
    if (cp != pending_code_page_) {
      if (auto s = Flush(); !s.ok()) return s;
      pending_code_page_ = cp;
    }
    pending_.push_back(c);
    return absl::OkStatus();
  }

  absl::Status Character(uint32_t c) {
    if (auto s = Flush(); !s.ok()) return s;
    std::string utf8;
    AppendCodePoint(c, &utf8);
    return Append(utf8);
  }

  int CodePage() const {
    if (!stack_.empty()) {
      auto it = font_code_pages_.find(stack_.back().font);
      if (it != font_code_pages_.end()) return it->second;
    }
    return document_code_page_;
  }

  absl::Status Flush() {
    if (pending_.empty()) return absl::OkStatus();
    std::string bytes;
    bytes.swap(pending_);
    bool ascii = true;
    for (char c : bytes) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) return Append(bytes);
    auto utf8 =
        ConvertToUtf8(bytes, absl::StrCat("windows-", pending_code_page_));
    if (!utf8.ok())
      utf8 = ConvertToUtf8(bytes, absl::StrCat("cp", pending_code_page_));
    if (!utf8.ok()) utf8 = ConvertToUtf8(bytes, "windows-1252");
    if (!utf8.ok()) return utf8.status();
    return Append(*utf8);
  }

  absl::Status Append(std::string_view utf8) {
    return AppendWithin(utf8, sink_.limits().max_output_bytes, &text_);
  }

  // An \objdata group ended: its OLE1 object's native data is a member.
  absl::Status EmitObject() {
    std::string bytes;
    bytes.reserve(object_hex_.size() / 2);
    for (size_t i = 0; i + 1 < object_hex_.size(); i += 2) {
      bytes.push_back(static_cast<char>(HexValue(object_hex_[i]) * 16 +
                                        HexValue(object_hex_[i + 1])));
    }
    object_hex_.clear();
    // OLE1 ObjectHeader: version, format (2: embedded), then class, topic
    // and item names (length-prefixed), then the native data's size.
    const ByteView v(bytes);
    uint32_t format = 0;
    size_t at = 8;
    std::string_view native;
    bool ok = v.Get(4, &format) && format == 2;
    for (int name = 0; ok && name < 3; ++name) {
      uint32_t length = 0;
      ok = v.Get(at, &length) && length <= bytes.size();
      at += 4 + length;
    }
    uint32_t size = 0;
    if (ok && v.Get(at, &size) && v.Slice(at + 4, size, &native)) {
      bytes = std::string(native);
    }
    if (bytes.empty()) return absl::OkStatus();
    return sink_.AddMember(absl::StrCat("object", ++objects_),
                           std::move(bytes));
  }

  absl::Status Finish() {
    if (auto s = Flush(); !s.ok()) return s;
    return sink_.AppendText(text_);
  }

  std::string_view in_;
  ExtractionSink& sink_;
  size_t pos_ = 0;
  std::vector<Group> stack_;
  std::string text_;
  std::string pending_;  // 8-bit text not yet decoded
  int pending_code_page_ = 1252;
  int document_code_page_ = 1252;
  absl::flat_hash_map<int, int> font_code_pages_;
  int table_font_ = -1;
  int skip_ = 0;  // \uN fallback characters still to skip
  uint32_t high_surrogate_ = 0;
  std::string object_hex_;
  int objects_ = 0;
};

}  // namespace

absl::Status RtfExtractor::Extract(std::string_view bytes,
                                   ExtractionSink& sink) const {
  return RtfReader(bytes, sink).Run();
}

}  // namespace leakhound
