// WebChannel over a real gateway (RocksDB index, policy file): requests
// judged by channel "web", destination host as recipient, block pages,
// incidents.
#include "cli/web/web_channel.h"

#include <fstream>
#include <mutex>
#include <vector>

#include "absl/strings/escaping.h"
#include "cli/records/record_schema.h"
#include "cli/records/table_loader.h"
#include "engine/content_digest.h"
#include "gtest/gtest.h"
#include "tests/file_text.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

constexpr char kPolicy[] = R"(
internal_domains = ["corp.test"]
help_url = "https://help.corp.test/dlp"

[[rule]]
name = "no-external-uploads"
severity = "high"
action = "reject"
reject_text = "Board papers stay <inside> & nowhere else"
[rule.when]
external_recipient = true
)";

constexpr char kCustomers[] = R"(
[[column]]
name = "card"
type = "card"
primary = true
[[column]]
name = "name"
type = "name"
[[column]]
name = "phone"
type = "phone"
)";

std::string Protected() {
  return Slurp(std::string(test_paths::kSourceDir) +
               "/corpus/sample/protected/merger-memo.txt");
}

// About 80 words of the memo, as a person would paste them.
std::string Passage() {
  const std::string memo = Protected();
  const size_t start = memo.find("Following the strategy session");
  return memo.substr(start, 520);
}

class WebChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = tmp_.Sub("index");
    auto writer = ProtectedIndex::Create(dir, IndexOptions{});
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE((*writer)
                    ->Add(DocumentInput{
                        "merger-memo.txt", "merger-memo.txt", {}, Protected()})
                    .ok());
    // A protected table of customers (docs/records.md).
    const std::string csv = tmp_.Sub("customers.csv");
    std::ofstream(csv) << "card,name,phone\n"
                          "4111111111111111,John Smith,+49 30 1234567\n"
                          "5500005555555559,Maria Garcia,+1 415 555 0134\n";
    auto schema = ParseRecordSchema(kCustomers, "customers.toml");
    ASSERT_TRUE(schema.ok()) << schema.status();
    TableLoadOptions table;
    table.name = "customers";
    table.path = csv;
    auto loaded = LoadTable(**writer, *schema, table);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    writer->reset();
    const std::string policy = tmp_.Sub("policy.toml");
    std::ofstream(policy) << kPolicy;
    GatewayOptions o;
    o.index_dir = dir;
    o.policy_file = policy;
    o.duplicate_window = 0;
    o.incidents = tmp_.Sub("incidents");  // evidence kept (never opened)
    auto gateway = Gateway::Open(o, log_.get());
    ASSERT_TRUE(gateway.ok()) << gateway.status();
    gateway_ = std::move(*gateway);
  }

  // A channel whose incidents land in incidents_.
  WebChannel Channel(WebPolicy policy = {}) {
    return WebChannel(gateway_.get(), std::move(policy), [this](Incident i) {
      std::lock_guard<std::mutex> lock(mu_);
      incidents_.push_back(std::move(i));
    });
  }

  static WebRequest Json(const std::string& url, const std::string& text) {
    WebRequest r;
    r.method = "POST";
    r.url = url;
    r.user = "Alice";
    r.client_ip = "10.1.2.3";
    r.body.content_type = "application/json";
    r.body.url_path = "/v1/chat";
    r.body.body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    r.body_bytes = r.body.body.size();
    return r;
  }

  TempDir tmp_;
  std::unique_ptr<DaemonLog> log_ =
      DaemonLog::WritingTo("test", [](const std::string&) {});
  std::unique_ptr<Gateway> gateway_;
  std::mutex mu_;
  std::vector<Incident> incidents_;
};

TEST_F(WebChannelTest, APasteToAnOutsideHostIsBlockedWithAJsonError) {
  const WebChannel channel = Channel();
  const WebAnswer a = channel.Judge(
      Json("https://bob:secret@chat.example.net:8443/v1/chat#x", Passage()));
  ASSERT_TRUE(a.block) << a.log_line;
  EXPECT_EQ(a.status, 403);
  EXPECT_EQ(a.content_type, "application/json");
  EXPECT_TRUE(a.reference.starts_with("LH-")) << a.reference;
  EXPECT_NE(a.page.find("\"incident\":\"" + a.reference + "\""),
            std::string::npos)
      << a.page;
  EXPECT_NE(a.page.find("\"rule\":\"no-external-uploads\""), std::string::npos);
  ASSERT_EQ(incidents_.size(), 1u);
  const Incident& i = incidents_[0];
  EXPECT_EQ(i.source, "web");
  EXPECT_EQ(i.kind, "leak");
  EXPECT_EQ(i.action, "reject");
  EXPECT_EQ(i.severity, "high");
  EXPECT_EQ(i.reference, a.reference);
  EXPECT_EQ(i.method, "POST");
  EXPECT_EQ(i.url, "https://chat.example.net:8443/v1/chat");  // no password
  EXPECT_EQ(i.sender, "Alice");
  EXPECT_EQ(i.recipients, std::vector<std::string>{"chat.example.net"});
  EXPECT_EQ(i.client, "10.1.2.3");
  ASSERT_FALSE(i.matches.empty());
  EXPECT_EQ(i.matches[0].document, "merger-memo.txt");
  EXPECT_EQ(i.matches[0].part, "");  // the request's own text
  EXPECT_NE(i.matches[0].snippet.find("strategy session"), std::string::npos);
  EXPECT_NE(a.log_line.find("host=chat.example.net"), std::string::npos);
  EXPECT_EQ(a.log_line.find("secret"), std::string::npos) << a.log_line;
}

TEST_F(WebChannelTest, ARowOfAProtectedTablePastedOutsideIsBlockedMasked) {
  const WebChannel channel = Channel();
  const WebAnswer a = channel.Judge(
      Json("https://chat.example.net/v1/chat",
           "please check the customer JOHN SMITH, card 4111-1111-1111-1111, "
           "who called from +49.30.123.4567 yesterday"));
  ASSERT_TRUE(a.block) << a.log_line;
  EXPECT_EQ(a.status, 403);
  ASSERT_EQ(incidents_.size(), 1u);
  const Incident& i = incidents_[0];
  EXPECT_EQ(i.action, "reject");
  ASSERT_EQ(i.matches.size(), 1u);
  const IncidentMatch& m = i.matches[0];
  EXPECT_EQ(m.document, "table customers");
  EXPECT_EQ(m.labels, (std::vector<std::string>{"card", "name", "phone"}));
  // The outbound text's cells, masked: never a whole value.
  EXPECT_EQ(m.snippet.find("4111-1111-1111-1111"), std::string::npos);
  EXPECT_NE(m.snippet.find("4111-11**-****-1111"), std::string::npos)
      << m.snippet;
  // A card that is not in the table is only an identifier: no leak.
  incidents_.clear();
  const WebAnswer clean = channel.Judge(
      Json("https://chat.example.net/v1/chat",
           "JOHN SMITH, card 4012-8888-8888-1881, +49.30.123.4567"));
  EXPECT_FALSE(clean.block) << clean.log_line;
  EXPECT_TRUE(incidents_.empty());
}

TEST_F(WebChannelTest, TheSameUploadToAnInternalHostPassesAndIsLogged) {
  const WebChannel channel = Channel();
  const WebAnswer a =
      channel.Judge(Json("http://wiki.corp.test/api/page", Passage()));
  EXPECT_FALSE(a.block) << a.log_line;
  EXPECT_TRUE(a.page.empty());
  ASSERT_EQ(incidents_.size(), 1u);
  EXPECT_EQ(incidents_[0].action, "log");
  EXPECT_EQ(incidents_[0].recipients,
            std::vector<std::string>{"wiki.corp.test"});
}

TEST_F(WebChannelTest, ABrowserFormGetsAnHtmlPageWithTheRuleTextEscaped) {
  const WebChannel channel = Channel();
  WebRequest r;
  r.method = "POST";
  r.url = "http://upload.example.net/form";
  r.accept = "text/html,application/xhtml+xml";
  r.body.content_type = "application/x-www-form-urlencoded";
  r.body.body = "note=" + Passage();
  for (char& c : r.body.body) {
    if (c == ' ') c = '+';
  }
  const WebAnswer a = channel.Judge(r);
  ASSERT_TRUE(a.block) << a.log_line;
  EXPECT_EQ(a.content_type, "text/html; charset=utf-8");
  EXPECT_NE(a.page.find("Board papers stay &lt;inside&gt; &amp; nowhere else"),
            std::string::npos)
      << a.page;
  EXPECT_EQ(a.page.find("<inside>"), std::string::npos);
  EXPECT_NE(a.page.find(a.reference), std::string::npos);
  EXPECT_NE(a.page.find("https://help.corp.test/dlp"), std::string::npos);
}

TEST_F(WebChannelTest, ACleanRequestPassesWithoutAnIncident) {
  const WebChannel channel = Channel();
  const WebAnswer a = channel.Judge(
      Json("https://chat.example.net/v1/chat",
           "What is a good name for a sailing boat painted green?"));
  EXPECT_FALSE(a.block) << a.log_line;
  EXPECT_TRUE(a.reference.empty());
  EXPECT_TRUE(incidents_.empty());
  EXPECT_NE(a.log_line.find("verdict=clean"), std::string::npos) << a.log_line;
}

TEST_F(WebChannelTest, AnOversizedBodyGetsOnOversizeNotTheRules) {
  WebRequest r = Json("http://wiki.corp.test/upload", "");
  r.oversized = true;
  r.body.body.clear();
  r.body_bytes = 30'000'000;
  // Internal host, no rule would block: on_oversize decides.
  const WebAnswer blocked = Channel().Judge(r);
  EXPECT_TRUE(blocked.block);
  EXPECT_NE(blocked.page.find("too large"), std::string::npos);
  WebPolicy allow;
  allow.on_oversize = Disposition::kLog;
  EXPECT_FALSE(Channel(allow).Judge(r).block);
  ASSERT_EQ(incidents_.size(), 2u);
  EXPECT_EQ(incidents_[0].kind, "error");
  EXPECT_EQ(incidents_[0].file_size, 30'000'000u);
}

TEST_F(WebChannelTest, ABodyThatCannotBeReadIsAnErrorAndBlockedByDefault) {
  WebRequest r = Json("https://files.example.net/up", "");
  r.body.content_type = "application/octet-stream";
  r.body.content_encoding = "gzip";
  r.body.body = "this is not gzip at all";
  const WebAnswer a = Channel().Judge(r);
  EXPECT_TRUE(a.block) << a.log_line;
  ASSERT_EQ(incidents_.size(), 1u);
  EXPECT_EQ(incidents_[0].kind, "error");
  EXPECT_FALSE(incidents_[0].detail.empty());
}

TEST(UrlTest, CredentialsAndFragmentsAreDroppedAndTheHostRead) {
  EXPECT_EQ(UrlWithoutCredentials("https://u:p@h.example:8080/a?b=c#f"),
            "https://h.example:8080/a?b=c");
  EXPECT_EQ(UrlWithoutCredentials("http://h.example"), "http://h.example");
  EXPECT_EQ(UrlWithoutCredentials("/relative/path"), "");
  EXPECT_EQ(UrlHost("https://u:p@H.Example:8080/a"), "h.example");
  EXPECT_EQ(UrlHost("http://[::1]:3128/x"), "::1");
  EXPECT_EQ(UrlHost("http://a.test?q=@evil.test"), "a.test");
  EXPECT_EQ(UrlHost("no scheme"), "");
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

constexpr char kCoachingPolicy[] = R"(
internal_domains = ["corp.test"]

[[rule]]
name = "coached"
severity = "medium"
action = "reject"
override = "justify"
override_minutes = 7
override_min_chars = 15
[rule.when]
external_recipient = true
min_documents = 1
)";

// The coaching rule over the fixture's gateway, and a grant taker that
// notes what it was asked and answers `grant`.
class WebCoachingTest : public WebChannelTest {
 protected:
  void SetUp() override {
    WebChannelTest::SetUp();
    std::ofstream(tmp_.Sub("policy.toml")) << kCoachingPolicy;
    gateway_->Reload("test");
    ASSERT_EQ(gateway_->policy()->rules.at(0).name, "coached");
  }
  WebChannel Coached(std::string console = "https://dlp.corp.test") {
    WebPolicy p;
    p.console_url = std::move(console);
    return WebChannel(
        gateway_.get(), p,
        [this](Incident i) {
          std::lock_guard<std::mutex> lock(mu_);
          incidents_.push_back(std::move(i));
        },
        [this](const std::string& user, const std::string& host,
               const std::string& digest)
            -> absl::StatusOr<std::optional<WebGrant>> {
          asked_.push_back(user + " " + host + " " + digest);
          return grant_;
        });
  }
  static WebRequest Form(const std::string& boundary, const std::string& text) {
    WebRequest r;
    r.method = "POST";
    r.url = "https://chat.example.net/upload";
    r.user = "alice";
    r.client_ip = "10.1.2.3";
    r.body.content_type = "multipart/form-data; boundary=" + boundary;
    r.body.url_path = "/upload";
    r.body.body = "--" + boundary +
                  "\r\nContent-Disposition: form-data; name=\"f\"; "
                  "filename=\"a.txt\"\r\n\r\n" +
                  text + "\r\n--" + boundary + "--\r\n";
    r.body_bytes = r.body.body.size();
    return r;
  }
  std::vector<std::string> asked_;
  std::optional<WebGrant> grant_;
};

TEST_F(WebCoachingTest, ABlockOffersAFormBoundToUserHostAndBody) {
  const WebChannel channel = Coached();
  const WebAnswer a = channel.Judge(Form("AaB03x", Passage()));
  ASSERT_TRUE(a.block) << a.log_line;
  const std::string action =
      "action=\"https://dlp.corp.test/coach/" + a.reference + "?t=";
  const size_t at = a.page.find(action);
  ASSERT_NE(at, std::string::npos) << a.page;
  const std::string token = a.page.substr(at + action.size(), 32);
  EXPECT_NE(a.page.find("within 7 minutes"), std::string::npos);
  EXPECT_NE(a.page.find("minlength=\"15\""), std::string::npos);
  ASSERT_EQ(incidents_.size(), 1u);
  const IncidentOverride& o = incidents_[0].override_offer;
  EXPECT_EQ(o.kind, "justify");
  EXPECT_EQ(o.rule, "coached");
  EXPECT_EQ(o.host, "chat.example.net");
  EXPECT_EQ(o.min_chars, 15u);
  EXPECT_EQ(o.until_ms, incidents_[0].time_ms + 7 * 60'000);
  // The token itself is not kept: its SHA-256 is.
  EXPECT_EQ(o.token_hash, absl::BytesToHexString(ContentDigest(token)));
  ASSERT_EQ(asked_.size(), 1u);
  EXPECT_EQ(asked_[0], "alice chat.example.net " + o.digest);
  // The same form sent again with a new boundary: the same digest.
  channel.Judge(Form("----WebKitFormBoundaryX", Passage()));
  ASSERT_EQ(asked_.size(), 2u);
  EXPECT_EQ(asked_[1], asked_[0]);
  // Another text: another digest.
  channel.Judge(Form("AaB03x", Passage() + " and more"));
  ASSERT_EQ(asked_.size(), 3u);
  EXPECT_NE(asked_[2], asked_[0]);
}

TEST_F(WebCoachingTest, AGrantedRetryPassesAndIsRecordedWithTheJustification) {
  grant_ = WebGrant{41, "LH-ABCDEFGHJK", {}};
  grant_->grant.kind = "justify";
  grant_->grant.rule = "coached";
  grant_->grant.state = "used";
  grant_->grant.used_by = "alice";
  grant_->grant.text = "for the auditors, engagement 14";
  grant_->grant.token_hash = std::string(64, 'a');
  const WebAnswer a = Coached().Judge(Form("AaB03x", Passage()));
  EXPECT_FALSE(a.block) << a.page;
  ASSERT_EQ(incidents_.size(), 1u);
  const Incident& i = incidents_[0];
  EXPECT_EQ(i.action, "log");
  EXPECT_EQ(i.detail, "let through once by the override of LH-ABCDEFGHJK");
  EXPECT_EQ(i.override_offer.state, "retried");
  EXPECT_EQ(i.override_offer.text, "for the auditors, engagement 14");
  EXPECT_EQ(i.override_offer.address, "10.1.2.3");
  EXPECT_TRUE(i.override_offer.token_hash.empty());
}

TEST_F(WebCoachingTest, WithoutAUserOrAConsoleTheBlockIsFinal) {
  WebRequest anonymous = Form("AaB03x", Passage());
  anonymous.user.clear();
  const WebAnswer a = Coached().Judge(anonymous);
  EXPECT_TRUE(a.block);
  EXPECT_EQ(a.page.find("<form"), std::string::npos);
  const WebAnswer b = Coached("").Judge(Form("AaB03x", Passage()));
  EXPECT_TRUE(b.block);
  EXPECT_EQ(b.page.find("<form"), std::string::npos);
  EXPECT_TRUE(asked_.empty());
  for (const Incident& i : incidents_) {
    EXPECT_TRUE(i.override_offer.kind.empty());
  }
}

TEST_F(WebCoachingTest, AJsonClientGetsTheGrantUrl) {
  WebRequest chat = Json("https://chat.example.net/v1/chat", Passage());
  const WebAnswer a = Coached().Judge(chat);
  ASSERT_TRUE(a.block);
  EXPECT_NE(a.page.find("\"override\":{\"kind\":\"justify\",\"url\":\"https://"
                        "dlp.corp.test/coach/" +
                        a.reference + "?t="),
            std::string::npos)
      << a.page;
  EXPECT_NE(a.page.find("\"min_chars\":15,\"retry_minutes\":7}"),
            std::string::npos);
}

}  // namespace
}  // namespace leakhound
