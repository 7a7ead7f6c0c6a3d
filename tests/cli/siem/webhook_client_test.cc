// The webhook's signature and key file; the HTTPS posts themselves are
// tested against a real receiver (tests/cli/siem/siem_integration_test.py).
#include "cli/siem/webhook_client.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/temp_dir.h"

namespace leakhound {
namespace {

WebhookClient::Options Hook(const std::string& url) {
  WebhookClient::Options o;
  o.url = url;
  o.timeout_seconds = 2;
  o.key = "0123456789abcdef";
  return o;
}

TEST(WebhookClientTest, TheSignatureIsHmacSha256OfTimestampDotBody) {
  // Python: hmac.new(b"0123456789abcdef-key", b'1795800000.{"id":"x"}',
  // hashlib.sha256).hexdigest()
  EXPECT_EQ(
      WebhookSignature("0123456789abcdef-key", 1795800000, "{\"id\":\"x\"}"),
      "t=1795800000,v1=5d9c71474883e6020f87a94a3ba3218024692d563439b018"
      "08e1f00b56bde6fd");
}

TEST(WebhookClientTest, AKeyFileOthersCanReadIsRefused) {
  TempDir dir;
  const std::string path = dir.Sub("key");
  std::ofstream(path) << "0123456789abcdef-key\n";
  chmod(path.c_str(), 0644);
  EXPECT_TRUE(absl::IsPermissionDenied(ReadWebhookKey(path).status()));
  chmod(path.c_str(), 0600);
  auto key = ReadWebhookKey(path);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, "0123456789abcdef-key");
  std::ofstream(path) << "short\n";
  EXPECT_TRUE(absl::IsInvalidArgument(ReadWebhookKey(path).status()));
  EXPECT_TRUE(absl::IsNotFound(ReadWebhookKey(dir.Sub("none")).status()));
}

TEST(WebhookClientTest, OnlyHttpsUrlsAreTaken) {
  EXPECT_TRUE(absl::IsInvalidArgument(
      WebhookClient::Create(Hook("http://x/hook")).status()));
  EXPECT_TRUE(WebhookClient::Create(Hook("https://x/hook")).ok());
}

TEST(WebhookClientTest, AnEndpointThatIsDownIsUnavailable) {
  auto client = WebhookClient::Create(Hook("https://127.0.0.1:9/hook"));
  ASSERT_TRUE(client.ok());
  EXPECT_TRUE(absl::IsUnavailable((*client)->Post("{}", "id", 1)));
}

}  // namespace
}  // namespace leakhound
