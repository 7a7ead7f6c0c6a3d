#include "cli/records/csv_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Read {
  std::vector<std::vector<std::string>> rows;
  std::vector<uint64_t> lines;
};

absl::StatusOr<Read> ReadAll(std::string_view bytes, char delimiter = ',') {
  Read out;
  absl::Status s =
      ReadCsvRows(bytes, delimiter,
                  [&](uint64_t line, std::span<const std::string> fields) {
                    out.rows.emplace_back(fields.begin(), fields.end());
                    out.lines.push_back(line);
                    return absl::OkStatus();
                  });
  if (!s.ok()) return s;
  return out;
}

TEST(CsvTableTest, QuotedFieldsKeepDelimitersQuotesAndLineBreaks) {
  auto read = ReadAll(
      "\xEF\xBB\xBFname,note\r\n\"Smith, John\",\"said \"\"hi\"\"\"\n"
      "\"two\nlines\",x\nlast,row");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->rows.size(), 4u);
  EXPECT_THAT(read->rows[0], ElementsAre("name", "note"));
  EXPECT_THAT(read->rows[1], ElementsAre("Smith, John", "said \"hi\""));
  EXPECT_THAT(read->rows[2], ElementsAre("two\nlines", "x"));
  EXPECT_THAT(read->rows[3], ElementsAre("last", "row"));
  EXPECT_THAT(read->lines, ElementsAre(1u, 2u, 3u, 5u));
}

TEST(CsvTableTest, TabsSeparateWhenAsked) {
  auto read = ReadAll("a\tb,c\n", '\t');
  ASSERT_TRUE(read.ok());
  EXPECT_THAT(read->rows[0], ElementsAre("a", "b,c"));
}

TEST(CsvTableTest, AQuoteLeftOpenIsAnErrorWithItsLine) {
  auto read = ReadAll("a,b\nc,\"open\nd\n");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("line 2: a quoted field is not closed"));
}

TEST(CsvTableTest, AnOverlongFieldIsRefused) {
  const std::string big(kMaxCsvField + 1, 'x');
  auto read = ReadAll("a\n" + big + "\n");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()),
              HasSubstr("line 2: a field longer than 64 KiB"));
}

TEST(CsvTableTest, BinaryJunkReadsAsFieldsNotACrash) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>(i * 37));
  auto read = ReadAll(junk);
  // Junk with a quote inside a field is either rows or an error: never a
  // crash, and an error names a line.
  if (!read.ok()) {
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("line "));
  }
}

TEST(CsvTableTest, AMissingFileIsNotFound) {
  absl::Status s = ReadCsvFile(
      "/nonexistent/table.csv", ',',
      [](uint64_t, std::span<const std::string>) { return absl::OkStatus(); });
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("/nonexistent/table.csv"));
}

}  // namespace
}  // namespace leakhound
