// The one file that calls libcurl.
#include "cli/siem/webhook_client.h"

#include <curl/curl.h>
#include <sodium.h>
#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "index/trusted_path.h"

namespace leakhound {

namespace {

CURL* Handle(void* p) { return static_cast<CURL*>(p); }

// Discards the answer's body.
size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

}  // namespace

std::string CurlVersion() {
  return curl_version_info(CURLVERSION_NOW)->version;
}

std::string WebhookSignature(std::string_view key, int64_t timestamp,
                             std::string_view body) {
  const std::string stamp = absl::StrCat(timestamp);
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(
      &state, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(
      &state, reinterpret_cast<const unsigned char*>(stamp.data()),
      stamp.size());
  crypto_auth_hmacsha256_update(&state,
                                reinterpret_cast<const unsigned char*>("."), 1);
  crypto_auth_hmacsha256_update(
      &state, reinterpret_cast<const unsigned char*>(body.data()), body.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, mac);
  char hex[2 * crypto_auth_hmacsha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return absl::StrCat("t=", stamp, ",v1=", hex);
}

absl::StatusOr<std::string> ReadWebhookKey(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrCat("webhook key ", path, ": cannot be read"));
  }
  if (st.st_mode & S_IROTH) {
    return absl::PermissionDeniedError(absl::StrCat(
        "webhook key ", path, " can be read by anyone; chmod o-r ", path));
  }
  if (absl::Status s = CheckTrustedFile(path, "webhook key"); !s.ok()) {
    return s;
  }
  std::ifstream in(path);
  std::string key;
  if (!in || !std::getline(in, key)) {
    return absl::NotFoundError(
        absl::StrCat("webhook key ", path, ": cannot be read"));
  }
  if (key.size() < 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("webhook key ", path,
                     ": shorter than 16 bytes (head -c 32 "
                     "/dev/urandom | base64 makes one)"));
  }
  return key;
}

absl::StatusOr<std::unique_ptr<WebhookClient>> WebhookClient::Create(
    const Options& options) {
  if (!options.url.starts_with("https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("webhook url '", options.url, "': expected https://"));
  }
  static const CURLcode kInit = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (kInit != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat("webhook: libcurl: ", curl_easy_strerror(kInit)));
  }
  std::unique_ptr<WebhookClient> client(new WebhookClient(options));
  if (client->curl_ == nullptr) {
    return absl::InternalError("webhook: libcurl: cannot make a handle");
  }
  return client;
}

WebhookClient::WebhookClient(const Options& options)
    : options_(options), curl_(curl_easy_init()) {
  CURL* c = Handle(curl_);
  if (c == nullptr) return;
  curl_easy_setopt(c, CURLOPT_URL, options_.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(options_.timeout_seconds * 1000));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.timeout_seconds * 1000));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "leakhound/" LEAKHOUND_VERSION);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Discard);
  if (!options_.ca_file.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
  }
}

WebhookClient::~WebhookClient() {
  if (curl_ != nullptr) curl_easy_cleanup(Handle(curl_));
}

absl::Status WebhookClient::Post(std::string_view body,
                                 std::string_view event_id,
                                 int64_t now_seconds) {
  CURL* c = Handle(curl_);
  curl_slist* headers = nullptr;
  const std::string signature =
      absl::StrCat("X-Leakhound-Signature: ",
                   WebhookSignature(options_.key, now_seconds, body));
  const std::string id =
      absl::StrCat("X-Leakhound-Event-Id: ", std::string(event_id));
  for (const char* h : {"Content-Type: application/json",
                        "Expect:", signature.c_str(), id.c_str()}) {
    headers = curl_slist_append(headers, h);
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);
  if (code == CURLE_PEER_FAILED_VERIFICATION) {
    return absl::UnavailableError(absl::StrCat(
        "webhook ", options_.url,
        ": the endpoint's certificate is refused: ", curl_easy_strerror(code)));
  }
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("webhook ", options_.url, ": ", curl_easy_strerror(code)));
  }
  if (status >= 200 && status < 300) return absl::OkStatus();
  const std::string what =
      absl::StrCat("webhook ", options_.url, ": HTTP status ", status);
  if (status == 408 || status == 429 || status >= 500) {
    return absl::UnavailableError(what);
  }
  return absl::FailedPreconditionError(what);
}

}  // namespace leakhound
