// Extraction: picks the TextExtractor for a file and runs it. Files no
// extractor reads (binary data, formats not supported yet) are refused
// with the reason.
//
// Thread-safety: safe to call concurrently.
#ifndef LEAKHOUND_CLI_EXTRACTION_H_
#define LEAKHOUND_CLI_EXTRACTION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/text_extractor.h"

namespace leakhound {

// Extracts the text of a file named `path` (used for its extension only)
// holding `bytes`. Unimplemented for a recognized format leakhound cannot
// read yet (PDF, Office, archives, images...), InvalidArgument for other
// binary data (NUL bytes), else as TextExtractor::Extract, with
// input_bytes set. An empty file is an empty text.
absl::StatusOr<ExtractedText> ExtractText(std::string_view path,
                                          std::string bytes,
                                          const ExtractionLimits& limits);

// Reads the file at `path` ("-": standard input) within
// limits.max_input_bytes and extracts its text. Errors as ReadFileBounded
// (input_files.h) and ExtractText; messages do not repeat the path.
absl::StatusOr<ExtractedText> ExtractFile(const std::string& path,
                                          const ExtractionLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_EXTRACTION_H_
