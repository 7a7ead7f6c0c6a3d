#include "shingler/host_name.h"

#include <unicode/idna.h>
#include <unicode/unistr.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// The first of UTS #46's errors, in words.
std::string Reason(uint32_t errors) {
  if (errors & (UIDNA_ERROR_EMPTY_LABEL)) return "an empty label ('..')";
  if (errors & (UIDNA_ERROR_LEADING_HYPHEN | UIDNA_ERROR_TRAILING_HYPHEN |
                UIDNA_ERROR_HYPHEN_3_4)) {
    return "a label starts or ends with '-'";
  }
  if (errors & UIDNA_ERROR_LABEL_TOO_LONG) return "a label over 63 characters";
  if (errors & UIDNA_ERROR_DOMAIN_NAME_TOO_LONG) {
    return "longer than 253 characters";
  }
  if (errors & UIDNA_ERROR_PUNYCODE) return "a malformed xn-- label";
  return "a character a host name cannot hold";
}

}  // namespace

absl::StatusOr<std::string> HostName(std::string_view domain) {
  const auto bad = [domain](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", std::string(domain), "' is not a domain: ", std::string(why)));
  };
  if (domain.empty()) return bad("it is empty");
  if (domain.find("://") != std::string_view::npos) {
    return bad("a domain, not a URL (write the host name only)");
  }
  if (domain.front() == '@') return bad("write it without '@'");
  if (domain.find('@') != std::string_view::npos) {
    return bad("an address, not a domain");
  }
  if (domain.find('/') != std::string_view::npos) return bad("it holds '/'");
  std::string_view name = domain;
  if (name.size() > 1 && name.back() == '.') name.remove_suffix(1);
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::IDNA> idna(icu::IDNA::createUTS46Instance(
      UIDNA_USE_STD3_RULES | UIDNA_NONTRANSITIONAL_TO_ASCII |
          UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ,
      status));
  if (U_FAILURE(status)) {
    return absl::InternalError(
        absl::StrCat("ICU's IDNA: ", u_errorName(status)));
  }
  icu::IDNAInfo info;
  std::string ascii;
  icu::StringByteSink<std::string> sink(&ascii);
  idna->nameToASCII_UTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size())), sink,
      info, status);
  if (U_FAILURE(status)) {
    return absl::InternalError(
        absl::StrCat("ICU's IDNA: ", u_errorName(status)));
  }
  if (info.hasErrors()) return bad(Reason(info.getErrors()));
  if (ascii.find('.') == std::string::npos && ascii != "localhost") {
    return bad("a single label (a domain has a dot: corp.example)");
  }
  return absl::AsciiStrToLower(ascii);
}

}  // namespace leakhound
