#include "cli/formats/file_type.h"

#include "gtest/gtest.h"

namespace leakhound {
namespace {

TEST(FileTypeTest, MailIsRecognizedByItsHeadersNotItsName) {
  EXPECT_TRUE(LooksLikeMailHeaders(
      "From: a@example.com\r\nSubject: hi\r\n\r\nbody"));
  EXPECT_TRUE(LooksLikeMailHeaders(
      "Received: from x\n\tby y\nTo: b@example.com\n\nbody"));
  EXPECT_FALSE(LooksLikeMailHeaders("Subject: only one known field\n\nbody"));
  EXPECT_FALSE(LooksLikeMailHeaders("Dear Sam,\nFrom: me\nTo: you\n\n"));
  EXPECT_FALSE(LooksLikeMailHeaders("From: a\nnot a header line\nTo: b\n\n"));
  EXPECT_EQ(DetectFileType("notes.eml", "just some text\n").kind,
            FileKind::kText);
  EXPECT_EQ(DetectFileType("x.txt", "From: a@b.c\nTo: d@e.f\n\nhello\n").kind,
            FileKind::kMail);
  EXPECT_EQ(DetectFileType("box", "From a@b.c Thu Jan  1 00:00:00 2026\n"
                                  "From: a@b.c\nSubject: s\n\nhello\n")
                .kind,
            FileKind::kMbox);
}

TEST(FileTypeTest, ExtensionIsOnlyAHintForText) {
  EXPECT_EQ(DetectFileType("a.md", "# Title\n\ntext\n").kind,
            FileKind::kMarkdown);
  EXPECT_EQ(DetectFileType("a.html", "plain words\n").kind, FileKind::kHtml);
  EXPECT_EQ(DetectFileType("a.txt", "<!DOCTYPE html><html><p>x</p>").kind,
            FileKind::kHtml);
  EXPECT_EQ(DetectFileType("a.txt", "%PDF-1.7\n").kind, FileKind::kPdf);
  EXPECT_EQ(
      DetectFileType("a.txt", std::string("\x1F\x8B\x08\0\0\0\0\0", 8)).kind,
      FileKind::kArchive);
  EXPECT_EQ(DetectFileType("a.txt", std::string("\x01\x02\0\0x", 5)).kind,
            FileKind::kUnknownBinary);
  EXPECT_EQ(DetectFileType("u16.txt", std::string("\xFF\xFEh\0i\0", 6)).kind,
            FileKind::kText);
}

TEST(FileTypeTest, TextWithAFewControlBytesIsStillText) {
  // GNU Info: node separators (0x1F) and NULs in index entries; libmagic
  // calls such files "data".
  std::string info = "This is grep.info, produced by makeinfo.\n";
  for (int node = 0; node < 8; ++node) {
    info += "\x1f\nFile: grep.info,  Node: Usage\n\n";
    info += std::string(1500, 'w') + " words of the manual\n";
    info += std::string_view("* \0\b[index\0\b]\n", 14);  // NULs inside
  }
  EXPECT_EQ(DetectFileType("grep.info", info).kind, FileKind::kText);
  // Binary with control bytes in more than one byte in 256 is not text.
  std::string binary(4096, 'a');
  for (size_t i = 0; i < binary.size(); i += 64) binary[i] = '\0';
  EXPECT_EQ(DetectFileType("blob", binary).kind, FileKind::kUnknownBinary);
}

}  // namespace
}  // namespace leakhound
