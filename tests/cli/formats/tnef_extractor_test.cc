// winmail.dat (TNEF) as make_legacy_fixtures.py writes it from MS-OXTNEF:
// a compressed RTF body and a Word 97 attachment saved by LibreOffice.
#include "cli/formats/tnef_extractor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(TnefExtractorTest, SubjectRtfBodyAndAttachmentsAreRead) {
  auto out = ExtractFixture("winmail.dat");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->format, "tnef");
  EXPECT_THAT(PartText(*out, ""), HasSubstr("Board pack"));
  EXPECT_THAT(Collapsed(PartText(*out, "body.rtf")), HasSubstr(kLegacyPassage));
  EXPECT_THAT(Collapsed(PartText(*out, "valuation.doc")),
              HasSubstr(kLegacyPassage));
}

TEST(TnefExtractorTest, AHundredThousandAttachmentsStopAtTheMemberLimit) {
  auto out = ExtractFixture("many-attachments.dat", OneSecond());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("--max-members"));
}

TEST(TnefExtractorTest, DamagedRecordsAreMalformed) {
  std::string tnef = SlurpFixture("winmail.dat");
  std::string flipped = tnef;
  flipped[40] = static_cast<char>(flipped[40] ^ 0x55);  // inside a record
  auto checksum = ExtractBytesAs(FileKind::kTnef, "w.dat", flipped, {});
  EXPECT_EQ(checksum.status().code(), absl::StatusCode::kInvalidArgument);
  auto cut = ExtractBytesAs(FileKind::kTnef, "w.dat", tnef.substr(0, 100), {});
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(cut.status().message()), HasSubstr("malformed TNEF"));
}

}  // namespace
}  // namespace leakhound
