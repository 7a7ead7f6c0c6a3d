// libFuzzer target for text extraction. Built once per extractor with
// LEAKHOUND_FUZZ_KIND naming the FileKind the input is read as (the
// extractor under test; members are still typed by content), and once
// without it (the whole dispatcher, type detection included).
//
// Besides crashes, leaks and hangs (the sanitizers and libFuzzer find
// those), it checks the extraction's contract: text within the output
// limit, members counted within their limit, every member part named.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cli/formats/extraction.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using leakhound::ExtractionLimits;
  ExtractionLimits limits;
  limits.max_input_bytes = size_t{1} << 20;
  limits.max_output_bytes = size_t{4} << 20;
  limits.max_members = 200;
  limits.max_seconds = 5;
  // OCR (images, PDF pages without text) within a fuzzer's time budget:
  // small images, one model (loading eng+chi_sim takes seconds under the
  // sanitizers), a second per image.
  limits.ocr.languages = "eng";
  limits.ocr.max_pixels = 1 << 18;
  limits.ocr.max_seconds = 1;
  std::string bytes(reinterpret_cast<const char*>(data), size);
#ifdef LEAKHOUND_FUZZ_KIND
  auto out = leakhound::ExtractBytesAs(leakhound::FileKind::LEAKHOUND_FUZZ_KIND,
                                       "input", std::move(bytes), limits);
#else
  auto out = leakhound::ExtractBytes("input", std::move(bytes), limits);
#endif
  if (!out.ok()) return 0;
  size_t text = 0;
  for (size_t i = 0; i < out->parts.size(); ++i) {
    text += out->parts[i].text.size();
    if (i > 0 && out->parts[i].name.empty()) std::abort();
  }
  if (text > limits.max_output_bytes) std::abort();
  if (out->members > limits.max_members) std::abort();
  return 0;
}
