// MapiProperties: the MAPI property values leakhound reads from Outlook's
// two containers, .msg files (one OLE2 stream per property,
// "__substg1.0_IIIITTTT") and TNEF (winmail.dat: a packed property list,
// MS-OXTNEF 2.1.3.4). Property ids and types are Microsoft's (MS-OXPROPS).
//
// Thread-safety: plain values and reentrant functions.
#ifndef LEAKHOUND_CLI_FORMATS_MAPI_PROPERTIES_H_
#define LEAKHOUND_CLI_FORMATS_MAPI_PROPERTIES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// Property ids.
inline constexpr uint16_t kPrSubject = 0x0037;
inline constexpr uint16_t kPrBody = 0x1000;
inline constexpr uint16_t kPrRtfCompressed = 0x1009;
inline constexpr uint16_t kPrBodyHtml = 0x1013;
inline constexpr uint16_t kPrDisplayName = 0x3001;
inline constexpr uint16_t kPrAttachDataObject = 0x3701;
inline constexpr uint16_t kPrAttachFilename = 0x3704;
inline constexpr uint16_t kPrAttachLongFilename = 0x3707;
inline constexpr uint16_t kPrInternetCodePage = 0x3FDE;
inline constexpr uint16_t kPrMessageCodePage = 0x3FFD;

// Property types.
inline constexpr uint16_t kPtLong = 0x0003;
inline constexpr uint16_t kPtObject = 0x000D;
inline constexpr uint16_t kPtString8 = 0x001E;
inline constexpr uint16_t kPtUnicode = 0x001F;
inline constexpr uint16_t kPtBinary = 0x0102;

// The values of one property list, by id: the raw bytes of a string,
// binary or object value (a string of type kPtUnicode is UTF-16LE), and
// the type it had. Named properties (ids 0x8000 and up) are left out.
struct MapiValue {
  uint16_t type = 0;
  std::string bytes;
};
using MapiProperties = std::map<uint16_t, MapiValue>;

// A string property as UTF-8 ("" when absent): UTF-16LE for kPtUnicode,
// else 8-bit text in Windows code page `code_page` (1252 when 0).
std::string MapiString(const MapiProperties& props, uint16_t id,
                       uint32_t code_page);

// Parses a TNEF MAPI property list (attMAPIProps, attAttachment):
// count, then per property type, id, [named-property name], value(s).
// InvalidArgument when a length runs past `bytes`.
absl::StatusOr<MapiProperties> ParseTnefProperties(std::string_view bytes);

// Puts a message's text into `sink`: the subject line, then the plain
// body; the HTML body (through html_extractor.h) when there is no plain
// one; and the compressed RTF body (compressed_rtf.h) as the member
// "body.rtf" when there is neither. Errors as the sink's and the
// decompressor's.
absl::Status ExtractMapiBody(const MapiProperties& props, uint32_t code_page,
                             ExtractionSink& sink);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_MAPI_PROPERTIES_H_
