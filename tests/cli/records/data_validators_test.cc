#include "cli/records/data_validators.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

// Card numbers: the card networks' published test numbers.
TEST(DataValidatorsTest, PublishedTestCardNumbersAreValid) {
  for (const char* number :
       {"4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111",
        "5500005555555559", "378282246310005", "3782 822463 10005",
        "6011111111111117", "2221000000000009", "4012888888881881"}) {
    EXPECT_TRUE(PaymentCardValid(number)) << number;
  }
}

TEST(DataValidatorsTest, SixteenDigitsFailingLuhnAreNeverACard) {
  for (const char* number : {"4111111111111112", "1234567812345678",
                             "5500005555555550", "6011111111111111"}) {
    EXPECT_FALSE(PaymentCardValid(number)) << number;
  }
}

TEST(DataValidatorsTest, CardsNeedTheirLengthAnIssuerPrefixAndOnlyDigits) {
  EXPECT_FALSE(PaymentCardValid("4111 1111 1111"));        // 12 digits
  EXPECT_FALSE(PaymentCardValid("00000000000000000"));     // prefix 0, Luhn ok
  EXPECT_FALSE(PaymentCardValid("91111111111111111"));     // prefix 9
  EXPECT_FALSE(PaymentCardValid("4111x1111 1111 1111"));   // a letter
  EXPECT_FALSE(PaymentCardValid("41111111111111111111"));  // 20 digits
}

// IBANs: ISO 13616's and the registry's examples.
TEST(DataValidatorsTest, PublishedIbansAreValid) {
  for (const char* iban :
       {"GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432",
        "DE89 3704 0044 0532 0130 00", "FR14 2004 1010 0505 0001 3M02 606",
        "NL91ABNA0417164300", "CH93 0076 2011 6238 5295 7",
        "BE68 5390 0754 7034", "gb82 west 1234 5698 7654 32"}) {
    EXPECT_TRUE(IbanValid(iban)) << iban;
  }
}

TEST(DataValidatorsTest, IbansWithAWrongCheckLengthOrCountryAreInvalid) {
  for (const char* iban :
       {"GB82 WEST 1234 5698 7654 33", "DE89 3704 0044 0532 0130 01",
        "DE89 3704 0044 0532 0130 0",  // 21 characters, DE has 22
        "XX89 3704 0044 0532 0130 00", "GB82-WEST-1234-5698-7654-32",
        "1234567890123456"}) {
    EXPECT_FALSE(IbanValid(iban)) << iban;
  }
}

TEST(DataValidatorsTest, SocialSecurityNumbersFollowTheSsaRules) {
  EXPECT_TRUE(UsSsnValid("123-45-6789"));
  EXPECT_TRUE(UsSsnValid("078 05 1120"));
  for (const char* bad : {"000-12-3456", "666-12-3456", "900-12-3456",
                          "123-00-4567", "123-45-0000", "123-45-678"}) {
    EXPECT_FALSE(UsSsnValid(bad)) << bad;
  }
}

TEST(DataValidatorsTest, NationalInsuranceNumbersFollowHmrcRules) {
  EXPECT_TRUE(UkNinoValid("AB 12 34 56 C"));
  EXPECT_TRUE(UkNinoValid("JG103759A"));
  for (const char* bad : {"DA123456A",  // D never first
                          "AO123456A",  // O never second
                          "BG123456A", "GB123456A", "NK123456A",  // unused
                          "QQ123456C",  // HMRC's format example, not a number
                          "AB123456E",  // suffix past D
                          "AB12345C"}) {
    EXPECT_FALSE(UkNinoValid(bad)) << bad;
  }
}

// GB 11643-1999's example and one with a digit check character.
TEST(DataValidatorsTest, ChineseResidentIdsCarryTheirCheckCharacter) {
  EXPECT_TRUE(CnResidentIdValid("11010519491231002X"));
  EXPECT_TRUE(CnResidentIdValid("11010519491231002x"));
  EXPECT_TRUE(CnResidentIdValid("440524188001010014"));
  EXPECT_FALSE(CnResidentIdValid("110105194912310021"));  // check is X
  EXPECT_FALSE(CnResidentIdValid("440524188013010014"));  // month 13
  EXPECT_FALSE(CnResidentIdValid("44052418800101001"));   // 17 characters
}

TEST(DataValidatorsTest, EmailAndPhoneChecksAreStructural) {
  EXPECT_TRUE(EmailValid("a.b@example.com"));
  EXPECT_FALSE(EmailValid("a@b"));
  EXPECT_FALSE(EmailValid("@example.com"));
  EXPECT_FALSE(EmailValid("a@@example.com"));
  EXPECT_TRUE(PhoneValid("+49 30 1234567"));
  EXPECT_TRUE(PhoneValid("(030) 123-4567"));
  EXPECT_FALSE(PhoneValid("12345"));
  EXPECT_FALSE(PhoneValid("+49 30 1234567 8901 234"));  // 16 digits
}

TEST(DataValidatorsTest, CalendarDatesKnowLeapYears) {
  EXPECT_EQ(CalendarDate(2024, 2, 29), "20240229");
  EXPECT_EQ(CalendarDate(1900, 2, 29), std::nullopt);
  EXPECT_EQ(CalendarDate(2000, 2, 29), "20000229");
  EXPECT_EQ(CalendarDate(1985, 4, 31), std::nullopt);
  EXPECT_EQ(CalendarDate(1985, 3, 2), "19850302");
}

}  // namespace
}  // namespace leakhound
