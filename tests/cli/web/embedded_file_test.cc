#include "cli/web/embedded_file.h"

#include <gtest/gtest.h>

#include <string>

namespace leakhound {
namespace {

constexpr char kText[] =
    "The board approved the merger with the northern supplier.";
// base64 of kText.
constexpr char kBase64[] =
    "VGhlIGJvYXJkIGFwcHJvdmVkIHRoZSBtZXJnZXIgd2l0aCB0aGUgbm9ydGhlcm4gc3Vw"
    "cGxpZXIu";

TEST(EmbeddedFileTest, PlainTextIsNoFile) {
  EXPECT_FALSE(EmbeddedFileIn(kText).has_value());
  EXPECT_FALSE(EmbeddedFileIn("short").has_value());
  EXPECT_FALSE(EmbeddedFileIn("").has_value());
}

TEST(EmbeddedFileTest, DataUrisAreDecodedAndNamedByTheirType) {
  auto file = EmbeddedFileIn(std::string("data:text/plain;base64,") + kBase64);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->name, "data.txt");
  EXPECT_EQ(file->bytes, kText);
  EXPECT_FALSE(file->value_may_be_text);
  file = EmbeddedFileIn("data:,The%20board%20approved");
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->bytes, "The board approved");
  EXPECT_EQ(
      EmbeddedFileIn("data:application/pdf;base64,JVBERi0x")->name,
      "data.pdf");
}

// A bare base64 value is decoded, and its text is read too: a long word
// may look like base64.
TEST(EmbeddedFileTest, BareBase64IsDecodedAndItsValueKeptAsText) {
  auto file = EmbeddedFileIn(kBase64);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->bytes, kText);
  EXPECT_TRUE(file->value_may_be_text);
}

// A hash or an identifier that happens to be base64 decodes to bytes that
// are neither text nor a file: read as the text it is, nothing more.
TEST(EmbeddedFileTest, Base64OfRandomBytesIsNoFile) {
  EXPECT_FALSE(EmbeddedFileIn(
                   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
                   .has_value());
  EXPECT_FALSE(EmbeddedFileIn("q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQ").has_value());
}

TEST(EmbeddedFileTest, RawFileBytesAreAFile) {
  const std::string pdf = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<<>>\nendobj\n";
  auto file = EmbeddedFileIn(pdf);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->name, "value");
  EXPECT_EQ(file->bytes, pdf);
  // An HTML fragment is read as HTML (its character references decoded).
  EXPECT_TRUE(EmbeddedFileIn("<p>&#98;&#105;</p>").has_value());
}

}  // namespace
}  // namespace leakhound
