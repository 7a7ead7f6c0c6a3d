#include "cli/records/table_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/records/record_schema.h"
#include "engine/protected_index.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kSchema[] = R"(table = "customers"
min_matches = 1
[[column]]
name = "email"
type = "email"
primary = true
[[column]]
name = "name"
type = "name"
)";

class TableLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto index = ProtectedIndex::Create(tmp_.Sub("idx"), IndexOptions());
    ASSERT_TRUE(index.ok()) << index.status();
    index_ = std::move(*index);
  }
  absl::StatusOr<RecordTableRecord> Load(const std::string& csv,
                                         bool strict = false,
                                         TableLoadNotes* notes = nullptr) {
    const std::string path = tmp_.Sub("t" + std::to_string(++files_) + ".csv");
    std::ofstream(path) << csv;
    auto schema = ParseRecordSchema(kSchema, "s.toml");
    EXPECT_TRUE(schema.ok()) << schema.status();
    TableLoadOptions options;
    options.name = "customers" + std::to_string(files_);
    options.path = path;
    options.strict = strict;
    return LoadTable(*index_, *schema, options, notes);
  }

  TempDir tmp_;
  std::unique_ptr<ProtectedIndex> index_;
  int files_ = 0;
};

// A spreadsheet saved with ';' (LibreOffice's default in many locales)
// read as comma-separated: one field per line. The error names the
// delimiter and the option, not only "1 fields".
TEST_F(TableLoaderTest, AWrongDelimiterIsNamedWithTheOptionThatReadsIt) {
  auto loaded = Load("email;name;card\nann@x.example;Ann Lee;4111111111111111\n");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              HasSubstr(":1: the header has no column email; it reads as one "
                        "field, 'email;name;card': the file seems separated "
                        "by ';' (--delimiter ';')"));
  auto tabs = Load("email\tname\nann@x.example\tAnn Lee\n");
  EXPECT_THAT(tabs.status().message(), HasSubstr("(--delimiter tab)"));
}

TEST_F(TableLoaderTest, AMissingColumnListsTheHeadersColumns) {
  auto loaded = Load("mail,name,card\nann@x.example,Ann Lee,4111\n");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              HasSubstr("the header has no column email (its columns: "
                        "'mail', 'name', 'card'; without a header, set "
                        "header = false)"));
}

TEST_F(TableLoaderTest, ShortRowsAreCountedWithTheirLinesOrRefusedWhenStrict) {
  const std::string csv =
      "email,name,card,city\n"
      "ann@x.example,Ann Lee\n"
      "bob@x.example,Bob Ray,4111,Oslo\n"
      "cy@x.example\n";
  TableLoadNotes notes;
  auto loaded = Load(csv, /*strict=*/false, &notes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->rows, 3u);
  EXPECT_EQ(notes.short_rows, 2u);
  EXPECT_THAT(notes.short_lines, ElementsAre(2, 4));
  auto strict = Load(csv, /*strict=*/true);
  ASSERT_FALSE(strict.ok());
  EXPECT_THAT(strict.status().message(),
              HasSubstr(":2: 2 of the header's 4 fields (--strict refuses "
                        "short rows)"));
  // Nothing of the refused load is named.
  EXPECT_EQ(index_->record_tables()->tables().size(), 1u);
}

}  // namespace
}  // namespace leakhound
