#include "cli/records/record_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace leakhound {
namespace {

using ::testing::HasSubstr;

constexpr char kGood[] = R"(table = "staff"
min_matches = 1
proximity = 30
date_order = "mdy"
[[column]]
name = "Tax ID"
type = "national_id"
pattern = "[A-Z]{2}\\d{6}"
primary = true
[[column]]
name = "name"
type = "name"
[[column]]
name = "born"
type = "date"
)";

TEST(RecordSchemaTest, ReadsColumnsRolesAndSettings) {
  auto schema = ParseRecordSchema(kGood, "s.toml");
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->table, "staff");
  EXPECT_EQ(schema->min_matches, 1u);
  EXPECT_EQ(schema->proximity, 30u);
  EXPECT_EQ(schema->date_order, DateOrder::kMonthDayYear);
  ASSERT_EQ(schema->columns.size(), 3u);
  EXPECT_EQ(schema->columns[0].type, CellType::kNationalId);
  EXPECT_TRUE(schema->columns[0].primary);
  EXPECT_EQ(schema->columns[0].pattern, "[A-Z]{2}\\d{6}");
  EXPECT_FALSE(schema->columns[1].primary);
}

TEST(RecordSchemaTest, DefaultsAreTwoCellsWithinFiftyWords) {
  auto schema = ParseRecordSchema(
      "[[column]]\nname=\"c\"\ntype=\"card\"\nprimary=true\n"
      "[[column]]\nname=\"n\"\ntype=\"name\"\n[[column]]\nname=\"e\"\n"
      "type=\"email\"\n",
      "s.toml");
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->min_matches, 2u);
  EXPECT_EQ(schema->proximity, 50u);
  EXPECT_TRUE(schema->header);
}

TEST(RecordSchemaTest, PhoneColumnsTakeTheTablesRegionOrTheirOwn) {
  auto schema = ParseRecordSchema(
      "region = \"de\"\nmin_matches = 1\n"
      "[[column]]\nname=\"tel\"\ntype=\"phone\"\nprimary=true\n"
      "[[column]]\nname=\"fax\"\ntype=\"phone\"\nregion=\"FR\"\n"
      "[[column]]\nname=\"n\"\ntype=\"name\"\n",
      "s.toml");
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->region, "DE");
  EXPECT_EQ(schema->columns[0].region, "DE");
  EXPECT_EQ(schema->columns[1].region, "FR");
  EXPECT_EQ(schema->columns[2].region, "");
}

TEST(RecordSchemaTest, MistakesNameTheFileAndLine) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"[[column]]\nname=\"n\"\ntype=\"name\"\nprimary=true\n",
       "s.toml:1: column n is of type name, which cannot be primary"},
      {"[[column]]\nname=\"c\"\ntype=\"cc\"\n",
       "s.toml:1: column c needs a type"},
      {"[[column]]\nname=\"i\"\ntype=\"national_id\"\nprimary=true\n",
       "needs a pattern"},
      {"min_matches = -1\n[[column]]\nname=\"c\"\ntype=\"card\"\n",
       "s.toml:1: 'min_matches' must be a whole number"},
      {"colour = 1\n", "s.toml:1: unknown key 'colour'"},
      {"[[column]]\nname=\"c\"\ntype=\"card\"\n", "no column is primary"},
      {"[[column]]\nname=\"c\"\ntype=\"card\"\nprimary=true\n",
       "min_matches is 2 but the table has only 0 other columns"},
      {"[[column]]\nname=\"c\"\ntype=\"card\"\nprimary=true\n[[column]]\n"
       "name=\"C\"\ntype=\"name\"\n",
       "s.toml:5: column C is named twice"},
      {"table = \n", "s.toml:1:"},
      {"region = \"XX\"\n[[column]]\nname=\"c\"\ntype=\"card\"\n",
       "s.toml:1: 'region' must be a country's two-letter code"},
      {"[[column]]\nname=\"c\"\ntype=\"card\"\nregion=\"DE\"\n",
       "s.toml:1: column c: only a phone column takes a region"},
  };
  for (const Case& c : cases) {
    auto schema = ParseRecordSchema(c.text, "s.toml");
    ASSERT_FALSE(schema.ok()) << c.text;
    EXPECT_THAT(std::string(schema.status().message()), HasSubstr(c.says))
        << c.text;
  }
}

}  // namespace
}  // namespace leakhound
