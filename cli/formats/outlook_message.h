// OutlookMessage: an Outlook item saved as .msg (MS-OXMSG) in an OLE2
// compound file. Each property is a stream "__substg1.0_IIIITTTT" (id and
// type in hex); the subject and body (plain, HTML or compressed RTF, as
// mapi_properties.h reads them) are the part's text; each attachment
// storage ("__attach_version1.0_#N") is a member named by its file name,
// and an attached Outlook item (its "__substg1.0_3701000D" storage) is a
// member read the same way, recursively within --max-depth.
//
// Thread-safety: a reentrant function.
#ifndef LEAKHOUND_CLI_FORMATS_OUTLOOK_MESSAGE_H_
#define LEAKHOUND_CLI_FORMATS_OUTLOOK_MESSAGE_H_

#include <string_view>

#include "absl/status/status.h"
#include "cli/formats/ole_storage.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// Whether storage `dir` of `storage` holds an Outlook item's properties.
bool IsOutlookMessage(const Ole2Storage& storage, std::string_view dir);

// Extracts the item in storage `dir` ("" for the root) into `sink`.
absl::Status ExtractOutlookMessage(const Ole2Storage& storage,
                                   std::string_view dir, ExtractionSink& sink);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OUTLOOK_MESSAGE_H_
