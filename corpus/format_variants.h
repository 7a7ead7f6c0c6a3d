// FormatVariants: the evaluation's outbound documents again in every
// format leakhound reads (Word, Excel, PowerPoint, OpenDocument, PDF, six
// kinds of e-mail, zip, and the legacy Word 97, RTF, Excel 97 and
// PowerPoint 97 that LibreOffice saves and pandoc's EPUB), made from the
// very same text by independent producers (corpus/make_formats.py),
// scanned as `leakhound scan` scans
// them, and compared with the plain-text scan of the same documents.
//
// The documents: every sample_every-th case of the `size` and `chinese`
// groups (every excerpt size and obfuscation) and of the clean-host and
// held-out negatives, so recall and false alarms per format stand next to
// the text figures of exactly those documents.
//
// Thread-safety: not thread-safe (runs Python and writes files).
#ifndef LEAKHOUND_CORPUS_FORMAT_VARIANTS_H_
#define LEAKHOUND_CORPUS_FORMAT_VARIANTS_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "corpus/index_run.h"
#include "corpus/report_section.h"
#include "corpus/test_set.h"

namespace leakhound {

// make_formats.py's format names, in report order.
inline constexpr const char* kVariantFormats[] = {
    "docx",  "xlsx", "pptx", "odt", "pdf", "eml-qp", "eml-base64",
    "eml-alternative", "eml-docx", "eml-attachment", "eml-forward", "zip"};

// The formats LibreOffice (Word 97, RTF, Excel 97, PowerPoint 97) and
// pandoc (EPUB) write: a few files a second, so fewer documents.
inline constexpr const char* kLegacyVariantFormats[] = {"doc", "rtf", "xls",
                                                        "ppt", "epub"};

// The formats whose text only OCR reads: every page rendered at 150 dpi as
// one tall PNG, and as a PDF of page images without a text layer.
inline constexpr const char* kOcrVariantFormats[] = {"png", "pdf-scan"};

struct FormatSummary {
  // Largest drop of any format's recall below the text recall of the same
  // documents (30+ word English excerpts, every obfuscation but
  // substitute_15, and Chinese), in percentage points; negative when every
  // format does better.
  double worst_recall_gap_pp = 0;
  // Negatives flagged in some format but not as text.
  uint32_t new_false_alarms = 0;
  uint32_t scan_errors = 0;  // over every variant
  // The lowest 30+ word recall of any format, English (every obfuscation
  // but substitute_15) and Chinese, in percent.
  double lowest_english_30 = 100;
  double lowest_chinese_30 = 100;
};

struct FormatRun {
  ReportSection section;
  FormatSummary summary;
};

// Writes the variants in `formats` under set_dir/formats/<format>/
// (set_dir holds outbound/ as WriteTestSet wrote it), scans them against
// `built`, and reports them under the heading `title`. `text_results` are
// the scans of set.cases. Every sample_every-th eligible case is written:
// a positive of the size or chinese group, a clean host or a held-out
// document, of at most max_text_bytes (0: any size). Errors: the producer
// failed, or an index read error.
absl::StatusOr<FormatRun> RunFormatVariants(
    const TestSet& set, const std::vector<CaseResult>& text_results,
    const BuiltIndex& built, const MatchRule& rule, const std::string& set_dir,
    size_t sample_every, size_t max_text_bytes,
    std::span<const char* const> formats, const std::string& title);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_FORMAT_VARIANTS_H_
