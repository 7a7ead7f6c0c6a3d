// Request bodies as real clients send them: curl posts forms, JSON, url-
// encoded fields and compressed bodies to a capture server
// (capture_request.py), and the captured bytes are read back.
#include "cli/web/request_body.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_split.h"
#include "cli/web/content_coding.h"
#include "cli/web/json_strings.h"
#include "cli/web/url_decode.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The passage tests/cli/formats/make_fixtures.py writes into passage.txt.
constexpr char kPassage[] =
    "Valuation. Our advisers value Calloway between 212 and 236 million "
    "dollars on a debt-free basis";

class RequestBodyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string d = dir_->path();
    const std::string passage = Fixture("passage.txt");
    const std::string docx = Fixture("passage-docx.docx");
    Run("/usr/bin/python3 -c \"import json,sys; print(json.dumps({'model': "
        "'m', 'messages': [{'role': 'user', 'content': open(sys.argv[1])."
        "read()}]}))\" " +
        passage + " > " + d + "/chat.json");
    Run("gzip -c " + passage + " > " + d + "/passage.txt.gz");
    Run("brotli -c " + passage + " > " + d + "/passage.txt.br");
    const std::string curl = "/usr/bin/curl -s -S ";
    Capture("form", curl + "-F note=hello -F 'file=@" + docx +
                        ";filename=passage.docx' -F 'doc=@" +
                        Fixture("passage-pdf.pdf") +
                        ";filename=passage.pdf' -F text=@" + passage +
                        " {url}");
    Capture("json", curl +
                        "-H 'Content-Type: application/json' "
                        "--data-binary @" +
                        d + "/chat.json {url}");
    Capture("chunked", curl +
                           "-H 'Content-Type: application/json' "
                           "-H 'Transfer-Encoding: chunked' "
                           "--data-binary @" +
                           d + "/chat.json {url}");
    Capture("urlencoded",
            curl + "--data-urlencode comment@" + passage + " -d a=1 {url}");
    Capture("gzip", curl +
                        "-H 'Content-Type: text/plain' "
                        "-H 'Content-Encoding: gzip' --data-binary @" +
                        d + "/passage.txt.gz {url}");
    Capture("br", curl +
                      "-H 'Content-Type: text/plain' "
                      "-H 'Content-Encoding: br' --data-binary @" +
                      d + "/passage.txt.br {url}");
    Capture("put", curl + "-T " + docx + " {url}");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // A file make_format_fixtures.sh built (the CTest fixture format_fixtures).
  static std::string Fixture(const std::string& name) {
    return std::string(test_paths::kFormatFixtures) + "/" + name;
  }
  static void Run(const std::string& command) {
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  // Runs a client through capture_request.py into `name`.headers/.body.
  static void Capture(const std::string& name, const std::string& client) {
    Run("/usr/bin/python3 " + std::string(test_paths::kSourceDir) +
        "/tests/cli/web/capture_request.py " + dir_->Sub(name) + " -- " +
        client);
  }

  // The request `name` as captured, its URL path /upload/ plus `file`.
  static HttpRequestBody Request(const std::string& name,
                                 const std::string& file = "") {
    HttpRequestBody r;
    for (absl::string_view line :
         absl::StrSplit(Slurp(dir_->Sub(name + ".headers")), '\n')) {
      const size_t colon = line.find(": ");
      if (colon == absl::string_view::npos) continue;
      const std::string header(line.substr(0, colon));
      const std::string value(line.substr(colon + 2));
      if (header == "content-type") r.content_type = value;
      if (header == "content-encoding") r.content_encoding = value;
    }
    r.url_path = "/upload/" + file;
    r.body = Slurp(dir_->Sub(name + ".body"));
    return r;
  }

  // The text of part `name`, or "(none)".
  static std::string PartText(const Extraction& e, const std::string& name) {
    for (const ExtractedPart& p : e.parts) {
      if (p.name == name) return Collapsed(p.text);
    }
    return "(none)";
  }

  static TempDir* dir_;
};

TempDir* RequestBodyTest::dir_ = nullptr;

TEST_F(RequestBodyTest, FormFilesAreMembersNamedByFieldAndFileName) {
  auto e = ExtractRequestBody(Request("form"), ExtractionLimits{});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->format, "form");
  EXPECT_THAT(PartText(*e, ""), HasSubstr("hello"));
  EXPECT_THAT(PartText(*e, "file/passage.docx"), HasSubstr(kPassage));
  EXPECT_THAT(PartText(*e, "doc/passage.pdf"), HasSubstr(kPassage));
  EXPECT_THAT(PartText(*e, "text/passage.txt"), HasSubstr(kPassage));
}

TEST_F(RequestBodyTest, AJsonChatRequestIsItsStringValues) {
  for (const char* name : {"json", "chunked"}) {
    auto e = ExtractRequestBody(Request(name), ExtractionLimits{});
    ASSERT_TRUE(e.ok()) << name << ": " << e.status();
    ASSERT_EQ(e->parts.size(), 1u) << name;
    EXPECT_EQ(e->parts[0].format, "json");
    EXPECT_THAT(Collapsed(e->parts[0].text), HasSubstr(kPassage)) << name;
    EXPECT_THAT(e->parts[0].text, HasSubstr("user\n"));     // a value
    EXPECT_THAT(e->parts[0].text, Not(HasSubstr("role")));  // a key
  }
}

TEST_F(RequestBodyTest, UrlencodedFieldsAreDecoded) {
  auto e = ExtractRequestBody(Request("urlencoded"), ExtractionLimits{});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->format, "form");
  EXPECT_THAT(PartText(*e, ""), HasSubstr(kPassage));
}

TEST_F(RequestBodyTest, CompressedBodiesAreDecoded) {
  for (const char* name : {"gzip", "br"}) {
    auto e = ExtractRequestBody(Request(name), ExtractionLimits{});
    ASSERT_TRUE(e.ok()) << name << ": " << e.status();
    EXPECT_THAT(PartText(*e, ""), HasSubstr(kPassage)) << name;
  }
}

// A file that cannot be read fails the request with its member's name and
// keeps its class: an encrypted upload is not merely skipped.
TEST_F(RequestBodyTest, AnEncryptedFileFailsTheRequestAsEncrypted) {
  HttpRequestBody r;
  r.content_type = "multipart/form-data; boundary=zzz";
  r.body =
      "--zzz\r\nContent-Disposition: form-data; name=\"file\"; "
      "filename=\"locked.pdf\"\r\nContent-Type: application/pdf\r\n\r\n" +
      Slurp(Fixture("locked.pdf")) + "\r\n--zzz--\r\n";
  auto e = ExtractRequestBody(r, ExtractionLimits{});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(std::string(e.status().message()),
              ::testing::StartsWith("file/locked.pdf: "));
  EXPECT_EQ(UnreadableOf(e.status()), Unreadable::kEncrypted);
}

TEST_F(RequestBodyTest, APutUploadIsAFileNamedByItsPathAndTypedByContent) {
  auto e =
      ExtractRequestBody(Request("put", "passage.docx"), ExtractionLimits{});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->format, "docx");
  EXPECT_THAT(PartText(*e, ""), HasSubstr(kPassage));
}

TEST_F(RequestBodyTest, AGzipBombStopsAtTheInputLimit) {
  HttpRequestBody r;
  r.content_type = "text/plain";
  r.content_encoding = "gzip";
  // gzip -c of 4 MiB of one letter, written by the real gzip.
  const std::string plain = dir_->Sub("bomb"), packed = dir_->Sub("bomb.gz");
  std::ofstream(plain, std::ios::binary) << std::string(size_t{4} << 20, 'a');
  Run("gzip -c " + plain + " > " + packed);
  r.body = Slurp(packed);
  ASSERT_LT(r.body.size(), size_t{64} << 10);
  ExtractionLimits limits;
  limits.max_input_bytes = size_t{1} << 20;
  auto e = ExtractRequestBody(r, limits);
  EXPECT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted)
      << e.status();
  // Truncated: an error, not a shorter text.
  r.body.resize(r.body.size() / 2);
  e = ExtractRequestBody(r, ExtractionLimits{});
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument)
      << e.status();
}

// `cat a.gz b.gz` is one gzip body; bytes after a stream's end are not.
TEST_F(RequestBodyTest, AllMembersOfAGzipBodyAreReadAndTrailingBytesRefused) {
  const std::string first = dir_->Sub("first"), second = dir_->Sub("second");
  std::ofstream(first, std::ios::binary) << "the first member\n";
  std::ofstream(second, std::ios::binary) << "the second member\n";
  const std::string both = dir_->Sub("both.gz");
  Run("gzip -c " + first + " > " + both + " && gzip -c " + second + " >> " +
      both);
  auto decoded = DecodeContent("gzip", Slurp(both), 1 << 20);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, "the first member\nthe second member\n");
  const std::string br = Slurp(dir_->Sub("passage.txt.br"));
  EXPECT_EQ(DecodeContent("br", br + "hidden", 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A zlib stream (Python's zlib) with a byte after its end.
  const std::string deflated = dir_->Sub("deflated");
  Run("/usr/bin/python3 -c \"import sys, zlib; sys.stdout.buffer.write("
      "zlib.compress(b'abc') + b'x')\" > " +
      deflated);
  EXPECT_EQ(DecodeContent("deflate", Slurp(deflated), 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto whole = DecodeContent("deflate", Slurp(deflated).substr(0, 11), 1 << 20);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(*whole, "abc");
}

TEST(ContentCodingTest, AnUnknownCodingIsUnreadNotClean) {
  auto d = DecodeContent("zstd", "abc", 100);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("zstd"));
  auto identity = DecodeContent(" Identity ", "abc", 100);
  ASSERT_TRUE(identity.ok());
  EXPECT_EQ(*identity, "abc");
}

TEST(JsonStringsTest, BrokenJsonIsReadAsPlainText) {
  HttpRequestBody r;
  r.content_type = "application/json";
  r.body = std::string("{\"content\": \"") + kPassage;  // cut off
  auto e = ExtractRequestBody(r, ExtractionLimits{});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_THAT(Collapsed(e->JoinedText()), HasSubstr(kPassage));
}

TEST(JsonStringsTest, DeepNestingIsRefusedAndKeysAreLeftOut) {
  const std::string deep(kMaxJsonDepth + 1, '[');
  EXPECT_EQ(JsonStrings(deep + std::string(kMaxJsonDepth + 1, ']'), 1000)
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  auto fine = JsonStrings(
      "[[\"a\", 1, null, true, {\"k\": \"b\", \"n\": -2.50}]]", 1000);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(*fine, (std::vector<std::string>{"a", "1", "b", "-2.50"}));
}

TEST(RequestBodyFormTest, AMultipartBodyWithoutItsBoundaryIsAnError) {
  HttpRequestBody r;
  r.content_type = "multipart/form-data; boundary=zzz";
  r.body = "no boundary here";
  EXPECT_EQ(ExtractRequestBody(r, ExtractionLimits{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Text outside the parts reaches the server too: it is read, not dropped.
TEST(RequestBodyFormTest, TextBeforeAndAfterThePartsIsRead) {
  HttpRequestBody r;
  r.content_type = "multipart/form-data; boundary=zzz";
  r.body =
      "before the first\r\n--zzz\r\nContent-Disposition: form-data; "
      "name=\"a\"\r\n\r\ninside\r\n--zzz--\r\nafter the last\r\n";
  auto e = ExtractRequestBody(r, ExtractionLimits{});
  ASSERT_TRUE(e.ok()) << e.status();
  const std::string text = e->JoinedText();
  EXPECT_THAT(text, HasSubstr("before the first"));
  EXPECT_THAT(text, HasSubstr("inside"));
  EXPECT_THAT(text, HasSubstr("after the last"));
}

// A form of two text files of `bytes` bytes each.
HttpRequestBody TwoFiles(size_t bytes) {
  HttpRequestBody r;
  r.content_type = "multipart/form-data; boundary=zzz";
  for (const char* name : {"a.txt", "b.txt"}) {
    r.body += std::string(
                  "--zzz\r\nContent-Disposition: form-data; "
                  "name=\"f\"; filename=\"") +
              name + "\"\r\nContent-Type: text/plain\r\n\r\n" +
              std::string(bytes, 'x') + "\r\n";
  }
  r.body += "--zzz--\r\n";
  return r;
}

// As a mail's attachments do, a request's files share one budget: two
// files that each fit the text limit but not together fail the request.
TEST(RequestBodyFormTest, ItsFilesShareTheRequestsTextBudget) {
  ExtractionLimits limits;
  limits.max_output_bytes = 1500;
  ASSERT_TRUE(ExtractRequestBody(TwoFiles(700), limits).ok());
  auto e = ExtractRequestBody(TwoFiles(1000), limits);
  EXPECT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted)
      << e.status();
}

TEST(RequestBodyFormTest, ARequestPastItsTimeIsAnError) {
  ExtractionLimits limits;
  limits.max_seconds = 1e-9;  // gone before the first file is read
  auto e = ExtractRequestBody(TwoFiles(10), limits);
  EXPECT_EQ(e.status().code(), absl::StatusCode::kDeadlineExceeded)
      << e.status();
  EXPECT_THAT(std::string(e.status().message()), HasSubstr("--max-seconds"));
}

TEST(UrlDecodeTest, PlusAndPercentEscapesAreUndone) {
  EXPECT_EQ(UrlDecode("a+b%20c%2Bd"), "a b c+d");
  EXPECT_EQ(UrlDecode("100%"), "100%");
  EXPECT_EQ(UrlDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(UrlDecode("%E4%B8%AD"), "\xE4\xB8\xAD");
}

}  // namespace
}  // namespace leakhound
