// LegacyOfficeExtractor: OLE2 compound files (ole_storage.h), read by what
// their streams say they are:
//  - Word 97-2003 (a WordDocument stream): word97_text.h;
//  - Excel 97-2003 (Workbook): excel97_text.h;
//  - PowerPoint 97-2003 ("PowerPoint Document"): powerpoint97_text.h;
//  - an Outlook item (.msg): outlook_message.h;
//  - an encrypted Office Open XML package (EncryptionInfo and
//    EncryptedPackage streams), or a document whose own flags say it is
//    password-protected: the Unreadable error kEncrypted, never clean;
//  - anything else (Visio, an installer database, a thumbnail cache):
//    kUnsupported.
// Embedded objects are members: OLE objects under Word's ObjectPool and
// Excel's MBD storages (an embedded Office Open XML "Package" stream, an
// OLE1 "\x01Ole10Native" packaged file, or a legacy document of its own,
// read in place) and their "CONTENTS" streams.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_LEGACY_OFFICE_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_LEGACY_OFFICE_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class LegacyOfficeExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_LEGACY_OFFICE_EXTRACTOR_H_
