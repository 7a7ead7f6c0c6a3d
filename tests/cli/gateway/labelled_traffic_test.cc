// Labelled files as they travel (docs/labels.md): mail with labelled
// attachments (docx, xlsx, pptx in both OOXML storages, legacy .doc,
// OpenDocument, PDF) and a msip_labels header, and the same files uploaded
// through the web channel, judged by a real gateway (RocksDB index whose
// protected document took its label at add, policy file) under every label
// condition, each with a case where it holds and one where it does not.
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/document_sensitivity.h"
#include "cli/gateway/gateway.h"
#include "cli/web/web_channel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/formats/legacy_fixtures.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kPolicy[] = R"(
internal_domains = ["corp.test"]

[labels]
order = ["Public", "General", "Confidential", "Highly Confidential"]
"87867195-f2b8-4ac2-b0b6-6bb73cb33afc" = "Public"
"f42aa342-8706-4288-bd11-ebb85995028c" = "Confidential"
"3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162" = "Highly Confidential"

[[rule]]
name = "highly-confidential-out"
action = "reject"
when = { sensitivity = ["Highly Confidential"], external_recipient = true }

[[rule]]
name = "confidential-or-above"
action = "tag"
when = { sensitivity_at_least = "Confidential" }

[[rule]]
name = "unlabelled-attachment"
action = "log"
when = { unlabelled_attachment = true }

[[rule]]
name = "downgrade"
action = "quarantine"
when = { label_downgrade = true }
)";

std::string Fixture(const std::string& name) {
  return SlurpFixture("labels/" + name);
}

// A mail from ann@corp.test with `attachments` (name, bytes), and the
// msip_labels header when `header` is set.
std::string Mail(const std::vector<std::pair<std::string, std::string>>& files,
                 const std::string& header = "") {
  std::string m =
      "From: ann@corp.test\r\nTo: bob@partner.example\r\nSubject: figures\r\n";
  if (!header.empty()) m += "msip_labels: " + header + "\r\n";
  m += "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
       "--b\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n";
  for (const auto& [name, bytes] : files) {
    m += "--b\r\nContent-Type: application/octet-stream\r\n"
         "Content-Disposition: attachment; filename=" +
         name + "\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
         absl::Base64Escape(bytes) + "\r\n";
  }
  return m + "--b--\r\n";
}

class LabelledTrafficTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = tmp_.Sub("index");
    auto writer = ProtectedIndex::Create(dir, IndexOptions{});
    ASSERT_TRUE(writer.ok()) << writer.status();
    // protected.docx is labelled Confidential: `add` takes the label.
    auto extracted = ExtractBytes("protected.docx", Fixture("protected.docx"),
                                  ExtractionLimits());
    ASSERT_TRUE(extracted.ok()) << extracted.status();
    const std::string text = extracted->JoinedText();
    DocumentInput doc{"deals/protected.docx", "protected.docx", {}, text};
    doc.sensitivity = SensitivityOf(*extracted, std::nullopt);
    ASSERT_EQ(doc.sensitivity.size(), 1u);
    ASSERT_TRUE((*writer)->Add(doc).ok());
    writer->reset();
    std::ofstream(tmp_.Sub("policy.toml")) << kPolicy;
    GatewayOptions o;
    o.index_dir = dir;
    o.policy_file = tmp_.Sub("policy.toml");
    o.duplicate_window = 0;
    auto gateway = Gateway::Open(o, log_.get());
    ASSERT_TRUE(gateway.ok()) << gateway.status();
    gateway_ = std::move(*gateway);
  }

  // The rules the milter's decision has matched for `message`, and its
  // action.
  std::vector<std::string> MailRules(const std::string& message,
                                     Disposition* action = nullptr) {
    const MessageVerdict v = gateway_->scanner().Scan(message);
    EXPECT_NE(v.kind, MessageVerdict::Kind::kError) << v.error;
    const VerdictFacts f =
        FactsOf(Envelope{"mail", "ann@corp.test", {"bob@partner.example"}}, v);
    const Judgement j =
        JudgeFacts(*gateway_->policy(), f, v.kind, DefaultsFor("mail"));
    if (action != nullptr) *action = j.action;
    std::vector<std::string> out;
    for (const RuleMatch& m : j.decision.matches) out.push_back(m.rule->name);
    return out;
  }

  // The upload of `name` to an outside host through the web channel, and
  // the rules its incident records.
  std::vector<std::string> UploadRules(const std::string& name, bool* blocked) {
    std::vector<Incident> incidents;
    std::mutex mu;
    WebChannel channel(gateway_.get(), WebPolicy{}, [&](Incident i) {
      std::lock_guard<std::mutex> lock(mu);
      incidents.push_back(std::move(i));
    });
    WebRequest r;
    r.method = "POST";
    r.url = "https://files.example.net/upload";
    r.user = "alice";
    r.client_ip = "10.1.2.3";
    r.body.content_type = "multipart/form-data; boundary=xyz";
    r.body.url_path = "/upload";
    r.body.body =
        "--xyz\r\nContent-Disposition: form-data; name=\"file\"; "
        "filename=\"" +
        name + "\"\r\n\r\n" + Fixture(name) + "\r\n--xyz--\r\n";
    r.body_bytes = r.body.body.size();
    *blocked = channel.Judge(r).block;
    std::vector<std::string> out;
    for (const Incident& i : incidents) {
      for (const IncidentRule& rule : i.rules) out.push_back(rule.rule);
    }
    return out;
  }

  TempDir tmp_;
  std::unique_ptr<DaemonLog> log_ =
      DaemonLog::WritingTo("test", [](const std::string&) {});
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(LabelledTrafficTest, AHighlyConfidentialAttachmentIsRefusedOutside) {
  for (const char* name :
       {"label-custom.xlsx", "label-info.xlsx", "label.xls"}) {
    Disposition action = Disposition::kLog;
    EXPECT_THAT(MailRules(Mail({{name, Fixture(name)}}), &action),
                ElementsAre("highly-confidential-out", "confidential-or-above"))
        << name;
    EXPECT_EQ(action, Disposition::kReject) << name;
  }
}

TEST_F(LabelledTrafficTest, EveryConfidentialStorageIsTaggedNotRefused) {
  for (const char* name :
       {"label-custom.docx", "label-info.docx", "label-custom.pptx",
        "label-info.pptx", "label.doc", "label.odt", "label.pdf"}) {
    Disposition action = Disposition::kLog;
    EXPECT_THAT(MailRules(Mail({{name, Fixture(name)}}), &action),
                ElementsAre("confidential-or-above"))
        << name;
    EXPECT_EQ(action, Disposition::kTag) << name;
  }
}

TEST_F(LabelledTrafficTest, TheMessageHeaderLabelsTheMailAsAWhole) {
  EXPECT_THAT(MailRules(Mail({},
                             "MSIP_Label_3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162_"
                             "Enabled=True; MSIP_Label_3c6a5b1e-9d0f-4e2a-8b7c-"
                             "1d2e3f405162_SiteId=72f988bf-86f1-41af-91ab-"
                             "2d7cd011db47")),
              ElementsAre("highly-confidential-out", "confidential-or-above"));
  // Removed (Enabled=False): no label.
  EXPECT_THAT(MailRules(Mail({},
                             "MSIP_Label_3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162_"
                             "Enabled=False")),
              IsEmpty());
}

TEST_F(LabelledTrafficTest, AnUnlabelledOfficeAttachmentIsNamedAndTextIsNot) {
  EXPECT_THAT(
      MailRules(Mail({{"unlabelled.docx", Fixture("unlabelled.docx")}})),
      ElementsAre("unlabelled-attachment"));
  EXPECT_THAT(MailRules(Mail({{"notes.txt", "Lunch at noon."}})), IsEmpty());
}

TEST_F(LabelledTrafficTest,
       AConfidentialDocumentPastedIntoAPublicOneIsADowngrade) {
  Disposition action = Disposition::kLog;
  EXPECT_THAT(
      MailRules(Mail({{"public-copy.docx", Fixture("public-copy.docx")}}),
                &action),
      ElementsAre("downgrade"));
  EXPECT_EQ(action, Disposition::kQuarantine);
  // The same text in a docx labelled Confidential is no downgrade.
  EXPECT_THAT(MailRules(Mail({{"confidential-copy.docx",
                               Fixture("confidential-copy.docx")}})),
              ElementsAre("confidential-or-above"));
}

TEST_F(LabelledTrafficTest, UploadsAreJudgedByTheirLabelsAsAttachmentsAre) {
  bool blocked = false;
  EXPECT_THAT(UploadRules("label-info.xlsx", &blocked),
              ElementsAre("highly-confidential-out", "confidential-or-above"));
  EXPECT_TRUE(blocked);
  EXPECT_THAT(UploadRules("public-copy.docx", &blocked),
              ElementsAre("downgrade"));
  EXPECT_TRUE(blocked);
  EXPECT_THAT(UploadRules("unlabelled.docx", &blocked),
              ElementsAre("unlabelled-attachment"));
  EXPECT_FALSE(blocked);
  EXPECT_THAT(UploadRules("label.pdf", &blocked),
              ElementsAre("confidential-or-above"));
  EXPECT_FALSE(blocked);
}

}  // namespace
}  // namespace leakhound
