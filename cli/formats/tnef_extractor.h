// TnefExtractor: Transport Neutral Encapsulation Format (MS-OXTNEF), the
// winmail.dat that Outlook and Exchange attach to mail. The stream is a
// signature, a key, then attribute records (level, id, length, data,
// checksum); the message's subject and body (the attribute, or the MAPI
// property list's plain, HTML or compressed RTF body) are the part's text,
// and each attachment (from its rendering record on: title, data, MAPI
// properties) is a member named by its long file name; an attached Outlook
// item (a TNEF stream in PR_ATTACH_DATA_OBJ) is read recursively.
//
// A reader of our own, not libytnef: libytnef reports damaged input with
// printf on standard output, which `scan --json` and the milter own, and
// builds every attachment before the caller can count them. This one
// checks each record's length against the stream and its checksum, and
// counts attachments against --max-members as it meets them.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_TNEF_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_TNEF_EXTRACTOR_H_

#include <string_view>

#include "cli/formats/text_extractor.h"

namespace leakhound {

inline constexpr std::string_view kTnefSignature = "\x78\x9F\x3E\x22";

class TnefExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_TNEF_EXTRACTOR_H_
