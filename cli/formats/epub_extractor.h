// EpubExtractor: EPUB e-books (EPUB 2 and 3). META-INF/container.xml names
// the package document (OPF); its manifest maps ids to files and its spine
// gives the reading order; each spine document (XHTML) is read in that
// order by the HTML extractor's rules (html_extractor.h) into the part's
// text, after the title and description of the package's metadata. Every
// other entry but the package's own machinery (the mimetype, META-INF/,
// the OPF, the NCX, style sheets, fonts) is a member: an image is read by
// OCR or listed as skipped, an embedded file by its own format.
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_CLI_FORMATS_EPUB_EXTRACTOR_H_
#define LEAKHOUND_CLI_FORMATS_EPUB_EXTRACTOR_H_

#include "cli/formats/text_extractor.h"

namespace leakhound {

class EpubExtractor : public TextExtractor {
 public:
  absl::Status Extract(std::string_view bytes,
                       ExtractionSink& sink) const override;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_EPUB_EXTRACTOR_H_
