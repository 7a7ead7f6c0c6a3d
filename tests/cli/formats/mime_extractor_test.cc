#include "cli/formats/mime_extractor.h"

#include <string>

#include "cli/formats/extraction.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

std::string Body(const std::string& message) {
  auto out = ExtractBytesAs(FileKind::kMail, "m.eml", message, {});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() && !out->parts.empty() ? out->parts[0].text : "";
}

// Regression: the body used to be read as a C string, so a NUL byte hid
// everything after it (found by the mail gateway's load benchmark, whose
// GNU Info text carries control characters).
TEST(MimeExtractorTest, ANulByteDoesNotHideTheRestOfTheBody) {
  const std::string plain = std::string(
      "Subject: s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
      "before\0after the nul: the secret passage\r\n", 97);
  EXPECT_THAT(Body(plain), HasSubstr("after the nul: the secret passage"));
  const std::string html = std::string(
      "Subject: s\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
      "<p>before\0after the nul: the secret passage</p>\r\n", 103);
  EXPECT_THAT(Body(html), HasSubstr("after the nul: the secret passage"));
}

TEST(MimeExtractorTest, DeclaredCharsetsAndTransferEncodingsAreDecoded) {
  EXPECT_THAT(
      Body("Subject: s\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
           "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
           "caf=E9 cr=E8me br=FBl=E9e\r\n"),
      HasSubstr("café crème brûlée"));
  EXPECT_THAT(Body("Subject: =?utf-8?q?Re=CC=81sume=CC=81?=\r\n"
                   "Content-Type: text/plain; charset=utf-8\r\n"
                   "Content-Transfer-Encoding: base64\r\n\r\n"
                   "SGVsbG8sIHdvcmxk\r\n"),
              HasSubstr("Hello, world"));
}

}  // namespace
}  // namespace leakhound
