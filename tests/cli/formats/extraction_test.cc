// Extraction of real files of every format, built once per test run by
// independent producers (corpus/make_formats.py: python3-docx, openpyxl,
// odfpy, Pango/Cairo, the email and zipfile modules, LibreOffice headless
// for Word 97, RTF, Excel 97 and PowerPoint 97, pandoc for EPUB;
// make_fixtures.py: bombs, nested archives, locked and image-only PDFs).
#include "cli/formats/extraction.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// The passage make_fixtures.py writes into passage.txt and the others.
constexpr char kPassage[] =
    "Valuation. Our advisers value Calloway between 212 and 236 million "
    "dollars on a debt-free basis, which is 11.5 to 12.8 times its trailing "
    "earnings before interest, taxes, depreciation and amortization.";

std::string Extension(const std::string& format) {
  return format.substr(0, format.find('-'));
}

// The files are built once per test run by make_format_fixtures.sh (the
// CTest fixture format_fixtures), in test_paths::kFormatFixtures.
class ExtractionTest : public ::testing::Test {
 protected:
  static std::string Path(const std::string& name) {
    return std::string(test_paths::kFormatFixtures) + "/" + name;
  }
  static std::string Variant(const std::string& format) {
    return Path("passage-" + format + "." + Extension(format));
  }

  static absl::StatusOr<Extraction> Extract(
      const std::string& path, const ExtractionLimits& limits = {}) {
    return ExtractBytes(path, Slurp(path), limits);
  }
};

TEST_F(ExtractionTest, EveryFormatYieldsThePassageOnceWithItsPartName) {
  struct Expected {
    const char* format;
    const char* file_format;
    const char* part;  // where the passage is
  };
  const Expected kExpected[] = {
      {"docx", "docx", ""},
      {"xlsx", "xlsx", ""},
      {"pptx", "pptx", ""},
      {"odt", "odt", ""},
      {"pdf", "pdf", ""},
      {"eml-qp", "mail", ""},
      {"eml-base64", "mail", ""},
      {"eml-alternative", "mail", ""},
      {"eml-docx", "mail", "report.docx"},
      {"eml-attachment", "mail", "notes.txt"},
      {"eml-forward", "mail", "forwarded-1.eml"},
      {"zip", "zip", "docs/notes.txt"},
      {"doc", "doc", ""},
      {"rtf", "rtf", ""},
      {"xls", "xls", ""},
      {"ppt", "ppt", ""},
      {"epub", "epub", ""},
  };
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.format);
    auto out = Extract(Variant(e.format));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->format, e.file_format);
    bool found = false;
    for (const ExtractedPart& part : out->parts) {
      const std::string text = Collapsed(part.text);
      const size_t at = text.find(kPassage);
      if (at == std::string::npos) continue;
      EXPECT_EQ(part.name, e.part);
      // Once: the two halves of multipart/alternative are not both kept.
      EXPECT_EQ(text.find(kPassage, at + 1), std::string::npos);
      found = true;
    }
    EXPECT_TRUE(found) << "passage not extracted";
  }
}

TEST_F(ExtractionTest, WordRunsSplitInsideWordsAreJoined) {
  // make_formats.py cuts every 7 characters: "Calloway" spans two runs.
  auto out = Extract(Variant("docx"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->parts[0].text, HasSubstr("advisers value Calloway between"));
}

TEST_F(ExtractionTest, HeadersFootersAndSpeakerNotesAreRead) {
  auto docx = Extract(Path("header.docx"));
  ASSERT_TRUE(docx.ok()) << docx.status();
  EXPECT_THAT(docx->parts[0].text, HasSubstr("Body text of the memo."));
  EXPECT_THAT(docx->parts[0].text,
              HasSubstr(std::string("Header: ") + kPassage));
  EXPECT_THAT(docx->parts[0].text, HasSubstr("Footer: company confidential"));
  auto pptx = Extract(Path("notes.pptx"));
  ASSERT_TRUE(pptx.ok()) << pptx.status();
  EXPECT_THAT(pptx->parts[0].text, HasSubstr("Quarterly update"));
  EXPECT_THAT(pptx->parts[0].text, HasSubstr(kPassage));
}

TEST_F(ExtractionTest, TypeComesFromContentNotTheName) {
  auto renamed = ExtractBytes("report.txt", Slurp(Variant("docx")), {});
  ASSERT_TRUE(renamed.ok()) << renamed.status();
  EXPECT_EQ(renamed->format, "docx");
  EXPECT_THAT(Collapsed(renamed->parts[0].text), HasSubstr(kPassage));
  auto mail = ExtractBytes("mail.dat", Slurp(Variant("eml-base64")), {});
  ASSERT_TRUE(mail.ok()) << mail.status();
  EXPECT_EQ(mail->format, "mail");
  EXPECT_THAT(Collapsed(mail->parts[0].text), HasSubstr(kPassage));
}

TEST_F(ExtractionTest, MailboxMessagesAndNestedArchivesAreParts) {
  auto mbox = Extract(Path("mailbox.mbox"));
  ASSERT_TRUE(mbox.ok()) << mbox.status();
  ASSERT_EQ(mbox->parts.size(), 2u);
  EXPECT_EQ(mbox->parts[0].name, "message-1");
  EXPECT_EQ(mbox->parts[1].name, "message-2");
  EXPECT_THAT(Collapsed(mbox->parts[1].text), HasSubstr(kPassage));
  auto deep = Extract(Path("deep.zip"));
  ASSERT_TRUE(deep.ok()) << deep.status();
  ASSERT_EQ(deep->parts.size(), 1u);
  EXPECT_EQ(deep->parts[0].name,
            "level3.zip!/level2.zip!/level1.zip!/level0.zip!/leak.txt");
}

TEST_F(ExtractionTest, MembersWithoutTextAreSkippedWithTheirClass) {
  ExtractionLimits no_ocr;
  no_ocr.ocr.enabled = false;
  auto zip = Extract(Path("image-and-text.zip"), no_ocr);
  ASSERT_TRUE(zip.ok()) << zip.status();
  ASSERT_THAT(zip->skipped,
              ElementsAre(Field(&SkippedPart::name, "logo.png")));
  EXPECT_THAT(zip->skipped[0].reason, HasSubstr("PNG image"));
  EXPECT_EQ(zip->skipped[0].kind, Unreadable::kNoText);
  EXPECT_THAT(zip->parts,
              ElementsAre(Field(&ExtractedPart::name, "notes.txt")));
  auto png = Extract(Path("logo.png"), no_ocr);
  EXPECT_EQ(png.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(UnreadableOf(png.status()), Unreadable::kNoText);
  EXPECT_THAT(std::string(png.status().message()),
              HasSubstr("PNG image: no text to extract (OCR is off"));
  // With OCR on, the fixture's PNG (its data checksum is wrong) cannot be
  // decoded: still listed, never an error for the mail that carries it.
  auto damaged = Extract(Path("image-and-text.zip"));
  ASSERT_TRUE(damaged.ok()) << damaged.status();
  ASSERT_EQ(damaged->skipped.size(), 1u);
  EXPECT_EQ(damaged->skipped[0].kind, Unreadable::kUnsupported);
  auto binary = ExtractBytes("blob", std::string("\x01\x02\0\0\xfe", 5), {});
  EXPECT_EQ(UnreadableOf(binary.status()), Unreadable::kUnsupported);
}

TEST_F(ExtractionTest, PdfWithoutTextIsNoTextAndWithAPasswordIsEncrypted) {
  auto image = Extract(Path("image-only.pdf"));
  EXPECT_EQ(image.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(UnreadableOf(image.status()), Unreadable::kNoText);
  EXPECT_THAT(std::string(image.status().message()),
              StartsWith("PDF document: no text in 1 page"));
  auto locked = Extract(Path("locked.pdf"));
  EXPECT_EQ(locked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(UnreadableOf(locked.status()), Unreadable::kEncrypted);
  EXPECT_EQ(locked.status().message(),
            "encrypted PDF (password required): no extractable text");
}

TEST_F(ExtractionTest, ZipBombsAreStoppedByTheExpansionRatio) {
  for (const char* bomb : {"bomb.zip", "nested-bomb.zip"}) {
    SCOPED_TRACE(bomb);
    auto out = Extract(Path(bomb));
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("times its size (--max-ratio)"));
  }
}

TEST_F(ExtractionTest, EachLimitIsEnforcedWithItsOptionNamed) {
  ExtractionLimits few_members;
  few_members.max_members = 100;
  EXPECT_THAT(
      std::string(Extract(Path("many.zip"), few_members).status().message()),
      HasSubstr("more than 100 members (--max-members)"));
  EXPECT_TRUE(Extract(Path("many.zip")).ok());

  ExtractionLimits shallow;
  shallow.max_depth = 3;
  EXPECT_THAT(
      std::string(Extract(Path("deep.zip"), shallow).status().message()),
      HasSubstr("nested deeper than 3 levels (--max-depth)"));

  ExtractionLimits little_text;
  little_text.max_output_bytes = 100;
  EXPECT_THAT(
      std::string(
          Extract(Path("passage-docx.docx"), little_text).status().message()),
      HasSubstr("(--max-text-size)"));

  ExtractionLimits small_files;
  small_files.max_input_bytes = 1000;
  auto big = Extract(Path("passage-docx.docx"), small_files);
  EXPECT_EQ(big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(big.status().message()),
              HasSubstr("(--max-file-size)"));

  ExtractionLimits no_time;
  no_time.max_seconds = 1e-9;
  auto late = Extract(Path("many.zip"), no_time);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(late.status().message()),
              HasSubstr("(--max-seconds)"));
}

TEST_F(ExtractionTest, TruncatedFilesAreOneLineErrors) {
  // Every format with a structure to break; a single-part mail cut short
  // is still a (shorter) mail, which no reader can tell.
  for (const char* format : {"docx", "xlsx", "pptx", "odt", "pdf", "zip",
                             "eml-alternative", "eml-docx", "eml-attachment",
                             "eml-forward"}) {
    SCOPED_TRACE(format);
    const std::string bytes = Slurp(Variant(format));
    auto out =
        ExtractBytes(Variant(format), bytes.substr(0, bytes.size() / 2), {});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
        << out.status();
    EXPECT_EQ(std::string(out.status().message()).find('\n'),
              std::string::npos);
  }
}

TEST_F(ExtractionTest, JoinedTextSeparatesPartsByABlankLine) {
  Extraction e;
  e.parts = {{"", "mail", "body", ""}, {"a.txt", "text", "attachment", ""}};
  EXPECT_EQ(e.JoinedText(), "body\n\nattachment");
  EXPECT_THAT(Extraction{}.JoinedText(), IsEmpty());
}

}  // namespace
}  // namespace leakhound
