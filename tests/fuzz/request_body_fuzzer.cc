// libFuzzer targets for the web channel's request bodies
// (cli/web/request_body.h): the input's first byte picks a Content-Type
// and a Content-Encoding, the rest is the body; built with
// LEAKHOUND_FUZZ_BODY_TYPE, the type is that one (fuzz_form_data,
// fuzz_urlencoded, fuzz_json_body: each reader fuzzed on its own). Besides
// crashes, leaks and hangs it checks the contract: a body that reads holds
// no part whose text passes the output limit, and JSON text stays within
// its limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/web/json_strings.h"
#include "cli/web/request_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr const char* kTypes[] = {
      "multipart/form-data; boundary=------------------------abc",
      "application/x-www-form-urlencoded", "application/json",
      "text/plain; charset=utf-8", "application/octet-stream"};
  static constexpr const char* kCodings[] = {"", "gzip", "deflate", "br"};
  leakhound::HttpRequestBody request;
#ifdef LEAKHOUND_FUZZ_BODY_TYPE
  request.content_type = kTypes[LEAKHOUND_FUZZ_BODY_TYPE];
#else
  request.content_type = kTypes[data[0] % 5];
#endif
  request.content_encoding = kCodings[(data[0] / 5) % 4];
  request.url_path = "/upload/file.bin";
  request.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  leakhound::ExtractionLimits limits;
  limits.max_input_bytes = 1 << 20;
  limits.max_output_bytes = 1 << 20;
  limits.max_members = 64;
  limits.max_seconds = 5;
  limits.ocr.enabled = false;
  auto e = leakhound::ExtractRequestBody(std::move(request), limits);
  if (e.ok()) {
    for (const leakhound::ExtractedPart& p : e->parts) {
      if (p.text.size() > limits.max_output_bytes) std::abort();
    }
  }
  // The JSON reader alone, on the raw input.
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  auto strings = leakhound::JsonStrings(raw, 1 << 16);
  if (strings.ok()) {
    size_t bytes = 0;
    for (const std::string& s : *strings) bytes += s.size() + 1;
    if (bytes > (1 << 16)) std::abort();
  }
  return 0;
}
