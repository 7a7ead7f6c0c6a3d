// MessageScanner on a real index (RocksDB in a temp dir): verdicts for
// real mail, errors, and the duplicate cache across a reload.
#include "cli/gateway/message_verdict.h"

#include <fstream>
#include <sstream>

#include "cli/gateway/duplicate_cache.h"
#include "cli/gateway/index_holder.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

std::string Sample(const std::string& relative) {
  return Slurp(std::string(test_paths::kSourceDir) + "/corpus/sample/" +
               relative);
}

class MessageVerdictTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.Sub("index");
    auto writer = ProtectedIndex::Create(dir_, IndexOptions{});
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (const char* doc : {"merger-memo.txt", "incident-report.txt"}) {
      const std::string text = Sample(std::string("protected/") + doc);
      ASSERT_TRUE((*writer)->Add(DocumentInput{doc, doc, {}, text}).ok());
    }
    writer_ = std::move(*writer);
    auto holder = IndexHolder::Open(dir_);
    ASSERT_TRUE(holder.ok()) << holder.status();
    holder_ = std::move(*holder);
    auto cache = DuplicateCache::Create(100);
    ASSERT_TRUE(cache.ok());
    cache_ = std::move(*cache);
  }

  TempDir tmp_;
  std::string dir_;
  std::unique_ptr<ProtectedIndex> writer_;
  std::unique_ptr<IndexHolder> holder_;
  std::unique_ptr<DuplicateCache> cache_;
};

TEST_F(MessageVerdictTest,
       EvidenceKeepsThePassageInItsSnippetOrOnlyItsOffsets) {
  const std::string mail = Sample("outbound/email-board-leak.txt");
  const MessageScanner none(holder_.get(), nullptr, ScanOptions{}, {});
  EXPECT_TRUE(none.Scan(mail).evidence.empty());

  const MessageScanner snippets(holder_.get(), nullptr, ScanOptions{}, {},
                                Evidence::kSnippets);
  const MessageVerdict v = snippets.Scan(mail);
  ASSERT_EQ(v.kind, MessageVerdict::Kind::kLeak);
  ASSERT_FALSE(v.evidence.empty());
  const IncidentMatch& e = v.evidence[0];
  EXPECT_EQ(e.document, "merger-memo.txt");
  EXPECT_EQ(e.source, "merger-memo.txt");  // as added in SetUp
  EXPECT_GE(e.words, 22u);
  EXPECT_GT(e.byte_end, e.byte_begin);
  const std::string passage =
      e.snippet.substr(e.snippet_begin, e.snippet_end - e.snippet_begin);
  EXPECT_NE(passage.find("Our advisers value Calloway"), std::string::npos)
      << passage;
  EXPECT_EQ(passage.size(), e.byte_end - e.byte_begin);

  const MessageScanner offsets(holder_.get(), nullptr, ScanOptions{}, {},
                               Evidence::kOffsets);
  const MessageVerdict o = offsets.Scan(mail);
  ASSERT_EQ(o.evidence.size(), v.evidence.size());
  EXPECT_TRUE(o.evidence[0].snippet.empty());
  EXPECT_EQ(o.evidence[0].byte_begin, e.byte_begin);
  EXPECT_EQ(o.evidence[0].byte_end, e.byte_end);
}

TEST_F(MessageVerdictTest, LeaksInTheBodyAndInAnAttachmentAreFound) {
  const MessageScanner scanner(holder_.get(), nullptr, ScanOptions{}, {});
  MessageVerdict body = scanner.Scan(Sample("outbound/email-board-leak.txt"));
  EXPECT_EQ(body.kind, MessageVerdict::Kind::kLeak);
  EXPECT_EQ(body.documents, std::vector<std::string>{"merger-memo.txt"});
  EXPECT_EQ(body.parts, std::vector<std::string>{""});
  MessageVerdict attachment =
      scanner.Scan(Sample("outbound/mail-docx-attachment-leak.eml"));
  EXPECT_EQ(attachment.kind, MessageVerdict::Kind::kLeak);
  EXPECT_EQ(attachment.documents,
            std::vector<std::string>{"incident-report.txt"});
  EXPECT_EQ(attachment.parts, std::vector<std::string>{"call-prep.docx"});
  MessageVerdict clean = scanner.Scan(
      "Subject: lunch\r\nFrom: a@example.com\r\n\r\nSee you at noon.\r\n");
  EXPECT_EQ(clean.kind, MessageVerdict::Kind::kClean);
}

TEST_F(MessageVerdictTest, PartsWithoutReadableTextAreNamedWithTheirClass) {
  const MessageScanner scanner(holder_.get(), cache_.get(), ScanOptions{}, {});
  const std::string message =
      "Subject: tool\r\nFrom: a@example.com\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
      "--b\r\nContent-Type: text/plain\r\n\r\nSee the tool.\r\n"
      "--b\r\nContent-Type: application/octet-stream\r\n"
      "Content-Disposition: attachment; filename=tool.bin\r\n"
      "Content-Transfer-Encoding: "
      "base64\r\n\r\nTEhCAAECA0xIQgABAgNMSEIAAQID\r\n"
      "--b--\r\n";
  MessageVerdict v = scanner.Scan(message);
  EXPECT_EQ(v.kind, MessageVerdict::Kind::kClean);
  EXPECT_EQ(v.unread, std::vector<std::string>{"tool.bin (unsupported)"});
  MessageVerdict again = scanner.Scan(message);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.unread, v.unread);
}

TEST_F(MessageVerdictTest, UnreadableMessageIsAnErrorNeverClean) {
  const MessageScanner scanner(holder_.get(), nullptr, ScanOptions{}, {});
  MessageVerdict v = scanner.Scan(
      "Subject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n\r\n"
      "no boundary\r\n");
  EXPECT_EQ(v.kind, MessageVerdict::Kind::kError);
  EXPECT_NE(v.error.find("multipart without a boundary"), std::string::npos);
}

TEST_F(MessageVerdictTest, TheSameTextAgainIsADuplicateWithTheSameVerdict) {
  const MessageScanner scanner(holder_.get(), cache_.get(), ScanOptions{}, {});
  const std::string leak = Sample("outbound/email-board-leak.txt");
  MessageVerdict first = scanner.Scan(leak);
  EXPECT_FALSE(first.duplicate);
  // Other headers (another recipient, a Received line): the same text.
  MessageVerdict again = scanner.Scan("Received: from relay\r\n" + leak);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.kind, first.kind);
  EXPECT_EQ(again.documents, first.documents);
  EXPECT_EQ(cache_->stats().hits, 1u);
}

TEST_F(MessageVerdictTest, AfterAReloadCachedVerdictsAreNotReused) {
  const std::string text =
      "The relocation of the archive servers to the Tallinn site begins on "
      "the fourth of May; the tape library moves first, the indexing cluster "
      "follows a week later, and the old racks are returned to the landlord "
      "at the end of June.";
  const std::string mail = "Subject: plan\r\n\r\n" + text + "\r\n";
  const MessageScanner scanner(holder_.get(), cache_.get(), ScanOptions{}, {});
  EXPECT_EQ(scanner.Scan(mail).kind, MessageVerdict::Kind::kClean);
  ASSERT_TRUE(
      writer_->Add(DocumentInput{"plan.txt", "plan.txt", {}, text}).ok());
  auto reloaded = holder_->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  ASSERT_TRUE(*reloaded);
  MessageVerdict after = scanner.Scan(mail);
  EXPECT_EQ(after.kind, MessageVerdict::Kind::kLeak);
  EXPECT_FALSE(after.duplicate);
}

TEST_F(MessageVerdictTest, AProtectedLocationMakesALeakOnceTheGatewayReloads) {
  const std::string mail =
      "Subject: files\r\n\r\nThey are on \\\\fs01\\hr\\pay.xlsx now.\r\n";
  const MessageScanner scanner(holder_.get(), nullptr, ScanOptions{}, {});
  EXPECT_EQ(scanner.Scan(mail).kind, MessageVerdict::Kind::kClean);
  const std::vector<std::string> given = {"smb://fs01/hr"};
  ASSERT_TRUE(writer_->AddLocations(given).ok());
  auto reloaded = holder_->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  ASSERT_TRUE(*reloaded);
  MessageVerdict v = scanner.Scan(mail);
  EXPECT_EQ(v.kind, MessageVerdict::Kind::kLeak);
  EXPECT_EQ(v.locations, std::vector<std::string>{"//fs01/hr"});
  EXPECT_TRUE(v.documents.empty());
  EXPECT_EQ(v.parts, std::vector<std::string>{""});
}

}  // namespace
}  // namespace leakhound
