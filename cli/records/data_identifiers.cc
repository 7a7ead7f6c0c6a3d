#include "cli/records/data_identifiers.h"

#include "absl/strings/ascii.h"
#include "cli/records/data_validators.h"

namespace leakhound {
namespace {

// PERSISTED in policy files: the names of validators.
constexpr std::pair<Validator, std::string_view> kNames[] = {
    {Validator::kNone, "none"},
    {Validator::kCard, "card"},
    {Validator::kCard, "luhn"},
    {Validator::kIban, "iban"},
    {Validator::kIban, "mod97"},
    {Validator::kEmail, "email"},
    {Validator::kPhone, "phone"},
    {Validator::kUsSsn, "us_ssn"},
    {Validator::kUkNino, "uk_nino"},
    {Validator::kCnResidentId, "cn_resident_id"},
};

}  // namespace

std::optional<Validator> ValidatorNamed(std::string_view name) {
  for (const auto& [v, n] : kNames) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::string_view ValidatorName(Validator v) {
  for (const auto& [value, n] : kNames) {
    if (value == v) return n;
  }
  return "none";
}

bool Validate(Validator v, std::string_view text) {
  switch (v) {
    case Validator::kNone:
      return true;
    case Validator::kCard:
      return PaymentCardValid(text);
    case Validator::kIban:
      return IbanValid(text);
    case Validator::kEmail:
      return EmailValid(text);
    case Validator::kPhone:
      return PhoneValid(text);
    case Validator::kUsSsn:
      return UsSsnValid(text);
    case Validator::kUkNino:
      return UkNinoValid(text);
    case Validator::kCnResidentId:
      return CnResidentIdValid(text);
  }
  return false;
}

std::string_view ValidatorPattern(Validator v) {
  switch (v) {
    case Validator::kNone:
      return "";
    case Validator::kCard:
      // Unbroken, in groups of four (16 to 19 digits; 15 as 4-4-4-3), or
      // Amex/Diners' 4-6-5 and 4-6-4.
      return R"(\b(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2}[ -]\d{3,4}(?:[ -]?\d{1,3})?)"
             R"(|\d{4}[ -]\d{6}[ -]\d{4,5})\b)";
    case Validator::kIban:
      return R"(\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}\b)";
    case Validator::kEmail:
      return R"(\b[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9\-]+)"
             R"((?:\.[A-Za-z0-9\-]+)+\b)";
    case Validator::kPhone:
      // International (+ or 00 and a country code) or with an area code
      // in parentheses.
      return R"((?:(?:\+|\b00)\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?)"
             R"(|\(\d{2,5}\)[ .\-]?)\d{1,4}(?:[ .\-/]?\d{1,4}){1,5}\b)";
    case Validator::kUsSsn:
      return R"(\b\d{3}[ -]\d{2}[ -]\d{4}\b)";
    case Validator::kUkNino:
      return R"(\b[A-Za-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-Da-d]\b)";
    case Validator::kCnResidentId:
      return R"(\b\d{17}[\dXx]\b)";
  }
  return "";
}

const std::vector<IdentifierSpec>& BuiltInIdentifiers() {
  static const auto* kBuiltIn = new std::vector<IdentifierSpec>{
      {"card", "", false, Validator::kCard, {}, 20},
      {"iban", "", false, Validator::kIban, {}, 20},
      {"email", "", false, Validator::kEmail, {}, 20},
      {"phone", "", false, Validator::kPhone, {}, 20},
      {"us_ssn", "", false, Validator::kUsSsn, {}, 20},
      {"uk_nino", "", false, Validator::kUkNino, {}, 20},
      {"cn_resident_id", "", false, Validator::kCnResidentId, {}, 20},
  };
  return *kBuiltIn;
}

}  // namespace leakhound
