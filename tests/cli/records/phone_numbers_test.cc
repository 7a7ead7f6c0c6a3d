#include "cli/records/phone_numbers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace leakhound {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

TEST(PhoneNumbersTest, RegionsAreKnownByTheirCodesInAnyCase) {
  auto de = PhoneRegionNamed("de");
  ASSERT_TRUE(de.has_value());
  EXPECT_EQ(de->region, "DE");
  EXPECT_EQ(de->country_code, "49");
  EXPECT_EQ(de->trunk, "0");
  EXPECT_EQ(PhoneRegionNamed("IT")->trunk, "");
  EXPECT_FALSE(PhoneRegionNamed("XX").has_value());
  // China writes its mobiles without the trunk 0; Germany does not.
  EXPECT_EQ(PhoneRegionNamed("CN")->bare_mobile_length, 11u);
  EXPECT_EQ(PhoneRegionNamed("CN")->bare_mobile_first, '1');
  EXPECT_EQ(PhoneRegionNamed("DE")->bare_mobile_length, 0u);
  EXPECT_FALSE(PhoneRegionNamed("").has_value());
}

TEST(PhoneNumbersTest, EveryFormOfOneNumberIsOneE164Value) {
  for (const char* written : {"030 1234567", "+49 30 1234567",
                              "0049 30 1234567", "(030) 123 45 67",
                              "+49 (0)30 1234567"}) {
    EXPECT_EQ(PhoneE164(written, "DE").value_or(""), "49301234567") << written;
  }
  EXPECT_EQ(PhoneE164("06 12345678", "IT").value_or(""), "390612345678");
  EXPECT_EQ(PhoneE164("(415) 555-0134", "US").value_or(""), "14155550134");
  EXPECT_EQ(PhoneE164("01 42 68 53 00", "FR").value_or(""), "33142685300");
  EXPECT_EQ(PhoneE164("138 0013 8000", "CN").value_or(""), "8613800138000");
}

TEST(PhoneNumbersTest, ATrunkPrefixInParenthesesIsDropped) {
  EXPECT_EQ(WithoutTrunkInParentheses("+49 (0)30 1234567"), "+49 30 1234567");
  EXPECT_EQ(WithoutTrunkInParentheses("(030) 1234567"), "(030) 1234567");
}

TEST(PhoneNumbersTest, AnInvalidNumberIsNotAPhone) {
  EXPECT_FALSE(PhoneE164("1234567", "DE").has_value());
  EXPECT_FALSE(E164Valid("491234567"));
  EXPECT_TRUE(E164Valid("49301234567"));
}

TEST(PhoneNumbersTest, TheCountryCodeNamesItsRegion) {
  EXPECT_EQ(RegionOfInternational("49301234567"), "DE");
  EXPECT_EQ(RegionOfInternational("14155550134"), "US");
  EXPECT_EQ(RegionOfInternational("442079460958"), "GB");
  EXPECT_EQ(RegionOfInternational("8613800138000"), "CN");
  EXPECT_EQ(RegionOfInternational("0301234567"), "");
}

TEST(PhoneNumbersTest, NationalFormsDropATrunkPrefixOrKeepTheDigits) {
  const std::vector<PhoneRegion> regions = {*PhoneRegionNamed("DE"),
                                            *PhoneRegionNamed("IT")};
  std::vector<std::string> forms;
  AddNationalForms("0301234567", regions, &forms);
  EXPECT_THAT(forms, ElementsAre("49301234567", "390301234567"));
  // Without the trunk prefix, digits are no German national number; a
  // North American one has ten digits (or eleven after its 1).
  forms.clear();
  AddNationalForms("20260524", {*PhoneRegionNamed("DE"),
                                *PhoneRegionNamed("US")}, &forms);
  EXPECT_THAT(forms, ::testing::IsEmpty());
  forms.clear();
  AddNationalForms("14155550134", {*PhoneRegionNamed("US")}, &forms);
  EXPECT_THAT(forms, ElementsAre("14155550134"));
  forms.clear();
  AddNationalForms("4155550134", {*PhoneRegionNamed("US")}, &forms);
  EXPECT_THAT(forms, ElementsAre("14155550134"));
  // Every national reading agrees with libphonenumber's where it is valid.
  forms.clear();
  AddNationalForms("0612345678", {*PhoneRegionNamed("IT")}, &forms);
  EXPECT_THAT(forms, Contains(*PhoneE164("06 12345678", "IT")));
}

}  // namespace
}  // namespace leakhound
