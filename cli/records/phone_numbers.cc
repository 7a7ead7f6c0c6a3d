#include "cli/records/phone_numbers.h"

#include <phonenumbers/phonenumber.pb.h>
#include <phonenumbers/phonenumberutil.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

using ::i18n::phonenumbers::PhoneNumber;
using ::i18n::phonenumbers::PhoneNumberUtil;

const PhoneNumberUtil& Util() { return *PhoneNumberUtil::GetInstance(); }

std::optional<std::string> ValidE164(std::string_view raw,
                                     const std::string& region) {
  PhoneNumber number;
  if (Util().Parse(std::string(raw), region, &number) !=
          PhoneNumberUtil::NO_PARSING_ERROR ||
      !Util().IsValidNumber(number)) {
    return std::nullopt;
  }
  std::string e164;
  Util().Format(number, PhoneNumberUtil::E164, &e164);
  if (e164.starts_with("+")) e164.erase(0, 1);
  return e164;
}

}  // namespace

std::optional<PhoneRegion> PhoneRegionNamed(std::string_view code) {
  PhoneRegion r;
  r.region = absl::AsciiStrToUpper(std::string(code));
  const int cc = Util().GetCountryCodeForRegion(r.region);
  if (cc == 0) return std::nullopt;
  r.country_code = absl::StrCat(cc);
  Util().GetNddPrefixForRegion(r.region, /*strip_non_digits=*/true, &r.trunk);
  PhoneNumber mobile;
  std::string national, significant;
  if (!r.trunk.empty() && Util().GetExampleNumberForType(
                              r.region, PhoneNumberUtil::MOBILE, &mobile)) {
    Util().Format(mobile, PhoneNumberUtil::NATIONAL, &national);
    Util().GetNationalSignificantNumber(mobile, &significant);
    const size_t first = national.find_first_of("0123456789");
    if (first != std::string::npos &&
        national.compare(first, r.trunk.size(), r.trunk) != 0 &&
        !significant.empty()) {
      r.bare_mobile_length = significant.size();
      r.bare_mobile_first = significant[0];
    }
  }
  return r;
}

std::string RegionOfInternational(std::string_view digits) {
  // Country codes are a prefix code of 1 to 3 digits.
  if (digits.empty() || digits[0] == '0') return "";
  for (size_t n = 1; n <= 3 && n < digits.size(); ++n) {
    int cc = 0;
    for (size_t i = 0; i < n; ++i) {
      if (digits[i] < '0' || digits[i] > '9') return "";
      cc = cc * 10 + (digits[i] - '0');
    }
    std::string region;
    Util().GetRegionCodeForCountryCode(cc, &region);
    if (region != PhoneNumberUtil::kRegionCodeForNonGeoEntity &&
        region != "ZZ") {
      return region;
    }
  }
  return "";
}

std::optional<std::string> PhoneE164(std::string_view raw,
                                     std::string_view region) {
  return ValidE164(raw, std::string(region));
}

std::string WithoutTrunkInParentheses(std::string_view raw) {
  std::string out(raw);
  if (const size_t zero = out.find("(0)"); zero != std::string::npos) {
    out.erase(zero, 3);
  }
  return out;
}

bool E164Valid(std::string_view digits) {
  return ValidE164("+" + std::string(digits), "ZZ").has_value();
}

void AddNationalForms(std::string_view digits,
                      const std::vector<PhoneRegion>& regions,
                      std::vector<std::string>* forms) {
  for (const PhoneRegion& r : regions) {
    const auto add = [&](std::string_view national) {
      const size_t n = r.country_code.size() + national.size();
      if (n >= 8 && n <= 15) {
        forms->push_back(r.country_code + std::string(national));
      }
    };
    if (r.country_code == "1") {
      // The North American plan: ten digits, or eleven after the trunk 1.
      if (digits.size() == 10) add(digits);
      if (digits.size() == 11 && digits.starts_with(r.trunk)) {
        add(digits.substr(1));
      }
    } else if (!r.trunk.empty()) {
      // Where there is a trunk prefix, a national number is written with
      // it (030 ..., 01 ..., 020 ...): a number without it is none.
      if (digits.starts_with(r.trunk)) {
        add(digits.substr(r.trunk.size()));
      } else if (digits.size() == r.bare_mobile_length &&
                 digits[0] == r.bare_mobile_first) {
        add(digits);
      }
    } else {
      add(digits);  // no trunk prefix (Italy): the digits as they are
    }
  }
}

}  // namespace leakhound
