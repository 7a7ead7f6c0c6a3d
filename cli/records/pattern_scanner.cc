#include "cli/records/pattern_scanner.h"

#include <hs/hs.h>

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

struct ScanContext {
  std::string_view text;
  const std::vector<MatchStart>* starts;
  std::vector<PatternMatch>* matches;
};

int OnMatch(unsigned int id, unsigned long long from,  // NOLINT(runtime/int)
            unsigned long long to, unsigned int /*flags*/,  // NOLINT
            void* context) {
  auto* c = static_cast<ScanContext*>(context);
  if (c->matches->size() >= kMaxPatternMatches) return 1;  // stops the scan
  const auto end = static_cast<uint32_t>(to);
  const MatchStart start = (*c->starts)[id];
  c->matches->push_back(
      {id, start != nullptr ? start(c->text, end) : static_cast<uint32_t>(from),
       end});
  return 0;
}

}  // namespace

PatternScanner::Scratch::~Scratch() {
  if (scratch_ != nullptr)
    hs_free_scratch(static_cast<hs_scratch_t*>(scratch_));
}

PatternScanner::~PatternScanner() {
  if (database_ != nullptr) {
    hs_free_database(static_cast<hs_database_t*>(database_));
  }
}

absl::StatusOr<std::unique_ptr<PatternScanner>> PatternScanner::Create(
    const std::vector<ScanPattern>& patterns) {
  auto scanner = std::unique_ptr<PatternScanner>(new PatternScanner());
  scanner->count_ = patterns.size();
  if (patterns.empty()) return scanner;
  if (hs_valid_platform() != HS_SUCCESS) {
    return absl::FailedPreconditionError(
        "this processor lacks SSSE3, which Hyperscan needs");
  }
  std::vector<const char*> expressions;
  std::vector<unsigned int> flags, ids;
  for (size_t i = 0; i < patterns.size(); ++i) {
    expressions.push_back(patterns[i].regex.c_str());
    flags.push_back((patterns[i].start != nullptr ? 0u : HS_FLAG_SOM_LEFTMOST) |
                    (patterns[i].caseless ? HS_FLAG_CASELESS : 0u));
    ids.push_back(static_cast<unsigned int>(i));
    scanner->starts_.push_back(patterns[i].start);
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                       static_cast<unsigned int>(patterns.size()),
                       HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
    const int which = error != nullptr ? error->expression : -1;
    std::string message = absl::StrCat(
        "pattern ",
        which >= 0
            ? absl::StrCat("'", patterns[static_cast<size_t>(which)].regex, "'")
            : std::string("set"),
        " does not compile: ",
        error != nullptr && error->message != nullptr ? error->message
                                                      : "unknown error");
    hs_free_compile_error(error);
    return absl::InvalidArgumentError(message);
  }
  scanner->database_ = db;
  return scanner;
}

absl::StatusOr<std::unique_ptr<PatternScanner::Scratch>>
PatternScanner::NewScratch() const {
  auto scratch = std::unique_ptr<Scratch>(new Scratch());
  if (database_ == nullptr) return scratch;
  hs_scratch_t* raw = nullptr;
  if (hs_alloc_scratch(static_cast<const hs_database_t*>(database_), &raw) !=
      HS_SUCCESS) {
    return absl::ResourceExhaustedError("cannot allocate Hyperscan scratch");
  }
  scratch->scratch_ = raw;
  return scratch;
}

absl::Status PatternScanner::Scan(std::string_view text, Scratch& scratch,
                                  std::vector<PatternMatch>* matches) const {
  matches->clear();
  if (database_ == nullptr || text.empty()) return absl::OkStatus();
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("text too large to scan (4 GiB)");
  }
  ScanContext context{text, &starts_, matches};
  const hs_error_t e =
      hs_scan(static_cast<const hs_database_t*>(database_), text.data(),
              static_cast<unsigned int>(text.size()), 0,
              static_cast<hs_scratch_t*>(scratch.scratch_), OnMatch, &context);
  if (e == HS_SCAN_TERMINATED) {
    matches->clear();
    return absl::ResourceExhaustedError(absl::StrCat(
        "more than ", kMaxPatternMatches,
        " candidate values in one text (a limit): not scanned for records "
        "and identifiers"));
  }
  if (e != HS_SUCCESS) {
    return absl::InternalError(absl::StrCat("Hyperscan scan failed (", e, ")"));
  }
  std::sort(matches->begin(), matches->end(),
            [](const PatternMatch& a, const PatternMatch& b) {
              if (a.pattern != b.pattern) return a.pattern < b.pattern;
              if (a.begin != b.begin) return a.begin < b.begin;
              return a.end > b.end;
            });
  return absl::OkStatus();
}

std::string HyperscanVersion() { return hs_version(); }

}  // namespace leakhound
