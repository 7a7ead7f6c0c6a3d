// Helpers of the reader tests that use the files make_legacy_fixtures.py
// builds once per test run (the CTest fixture legacy_fixtures), in the
// directory test_paths::kLegacyFixtures names.
#ifndef LEAKHOUND_TESTS_CLI_FORMATS_LEGACY_FIXTURES_H_
#define LEAKHOUND_TESTS_CLI_FORMATS_LEGACY_FIXTURES_H_

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/formats/extraction.h"
#include "tests/test_paths.h"

namespace leakhound {

// The passages make_legacy_fixtures.py writes.
inline constexpr char kLegacyPassage[] =
    "Valuation. Our advisers value Calloway between 212 and 236 million "
    "dollars on a debt-free basis, which is 11.5 to 12.8 times its trailing "
    "earnings before interest, taxes, depreciation and amortization.";
inline constexpr char kLegacyPassageZh[] =
    "本合同项下供应商应当在每个季度结束后十五个工作日内向采购方提交质量报告，"
    "报告应当包括不合格品数量、返工成本以及纠正措施的执行情况。";

inline std::string LegacyFixture(const std::string& name) {
  return std::string(test_paths::kLegacyFixtures) + "/" + name;
}

inline std::string SlurpFixture(const std::string& name) {
  std::ifstream in(LegacyFixture(name), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// White space runs collapsed to one space (Chinese: all white space
// dropped, as a layout may break lines anywhere).
inline std::string Collapsed(std::string_view text, bool drop_spaces = false) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty() && !drop_spaces;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Limits whose one-second time limit turns a reader that loops or crawls
// into a DeadlineExceeded error instead of a passing test.
inline ExtractionLimits OneSecond() {
  ExtractionLimits limits;
  limits.max_seconds = 1;
  return limits;
}

inline absl::StatusOr<Extraction> ExtractFixture(
    const std::string& name, const ExtractionLimits& limits = {}) {
  return ExtractBytes(name, SlurpFixture(name), limits);
}

// The text of the part named `part`, or "" if there is none.
inline std::string PartText(const Extraction& e, std::string_view part) {
  for (const ExtractedPart& p : e.parts) {
    if (p.name == part) return p.text;
  }
  return "";
}

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_CLI_FORMATS_LEGACY_FIXTURES_H_
