// Validators of data identifiers: the checks that tell a number that has
// the form of an identifier from one that is one (docs/records.md lists
// each with its source). Each takes the identifier as written (separators
// allowed where the identifier has them) and answers whether it is valid.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_RECORDS_DATA_VALIDATORS_H_
#define LEAKHOUND_CLI_RECORDS_DATA_VALIDATORS_H_

#include <optional>
#include <string>
#include <string_view>

namespace leakhound {

// The ASCII digits and letters of `text`, letters in upper case.
std::string AlnumUpper(std::string_view text);

// Luhn's mod-10 check over the digits of `digits` (only digits).
bool LuhnValid(std::string_view digits);
// A payment card number: 13 to 19 digits (spaces and dashes between
// them ignored), issuer prefix 2 to 6, Luhn-valid.
bool PaymentCardValid(std::string_view text);
// An IBAN (ISO 13616): a known country's length and the mod-97 check.
bool IbanValid(std::string_view text);
// A US social security number AAA-GG-SSSS: area not 000, 666 or 9xx,
// group not 00, serial not 0000 (SSA's rules since 2011).
bool UsSsnValid(std::string_view text);
// A UK national insurance number: two prefix letters (not D F I Q U V;
// the second not O; not BG GB KN NK NT TN ZZ), six digits, suffix A-D.
bool UkNinoValid(std::string_view text);
// A Chinese resident identity number (GB 11643-1999): 17 digits with a
// plausible birth date at 7-14, then the ISO 7064 MOD 11-2 check
// character (0-9 or X).
bool CnResidentIdValid(std::string_view text);
// An e-mail address: one '@' with a local part and a dotted domain.
bool EmailValid(std::string_view text);
// A phone number: 7 to 15 digits (ITU-T E.164's maximum).
bool PhoneValid(std::string_view text);

// A calendar date as YYYYMMDD (years 1000-2999), or nullopt.
std::optional<std::string> CalendarDate(int year, int month, int day);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_DATA_VALIDATORS_H_
