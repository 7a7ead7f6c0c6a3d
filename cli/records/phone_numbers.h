// Phone numbers as a country writes them, through libphonenumber (the only
// file that calls it): a table's phone cells and a text's phone numbers
// meet in one form, the E.164 digits without '+' ("49301234567" for
// "+49 30 1234567", "0049 30 1234567", "030 1234567" in Germany and
// "+49 (0)30 1234567").
//
// A text's number written without a country code is read in each region
// the tables' phone columns name or hold (RecordColumnRecord::regions) by
// a rule that needs no parse (AddNationalForms: the country code, and the
// number less its trunk prefix), so that the many number-like candidates
// of a text cost a hash each; libphonenumber checks only those that hit a
// table (E164Valid): an invalid number is not a phone.
//
// Thread-safety: pure functions over libphonenumber's immutable metadata.
#ifndef LEAKHOUND_CLI_RECORDS_PHONE_NUMBERS_H_
#define LEAKHOUND_CLI_RECORDS_PHONE_NUMBERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace leakhound {

// What reading a national number of one region needs.
struct PhoneRegion {
  std::string region;        // ISO 3166 alpha-2, upper case ("DE")
  std::string country_code;  // "49"
  std::string trunk;         // the national prefix, "0"; "" if none
  // Where mobile numbers are written without the trunk prefix although
  // the region has one (China: 138 0013 8000): their length and first
  // digit, from libphonenumber's example; 0 and '\0' elsewhere.
  size_t bare_mobile_length = 0;
  char bare_mobile_first = '\0';
};

// The region named `code` (any case); nullopt if libphonenumber does not
// know it.
std::optional<PhoneRegion> PhoneRegionNamed(std::string_view code);

// The main region of the country code `digits` (an international number's
// digits, without '+' or 00) begins with; "" if none.
std::string RegionOfInternational(std::string_view digits);

// The E.164 digits of `raw`, a number written in any form, read in
// `region` when it has no country code; nullopt unless libphonenumber
// finds a valid number. REQUIRES: `region` is PhoneRegionNamed's.
std::optional<std::string> PhoneE164(std::string_view raw,
                                     std::string_view region);

// `raw` without the first "(0)", the trunk prefix some write after the
// country code ("+49 (0)30 1234567" reads as "+49 30 1234567").
std::string WithoutTrunkInParentheses(std::string_view raw);

// Whether `digits` (E.164 without '+') is a valid number.
bool E164Valid(std::string_view digits);

// Appends the E.164 digits `digits`, a number written without a country
// code, may stand for in each of `regions`: the country code before the
// digits less the region's trunk prefix, where the region has one and the
// digits begin with it (030 1234567 in Germany) or they are a mobile
// number of a region that writes those without it, before the digits as
// they are where it has none (Italy keeps its leading 0), and before ten
// digits (or eleven after the 1) in the North American plan; only forms
// of 8 to 15 digits. Digits that fit none of these are no national
// number: a date or an order number costs no lookup.
void AddNationalForms(std::string_view digits,
                      const std::vector<PhoneRegion>& regions,
                      std::vector<std::string>* forms);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_PHONE_NUMBERS_H_
