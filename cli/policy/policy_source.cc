#include "cli/policy/policy_source.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "cli/policy/policy_file.h"
#include "engine/content_digest.h"

namespace leakhound {

PolicySource::PolicySource(std::string path, Reader reader,
                           std::shared_ptr<const Policy> policy, Text text)
    : path_(std::move(path)),
      reader_(std::move(reader)),
      policy_(std::move(policy)),
      text_(std::move(text)) {}

absl::StatusOr<std::unique_ptr<PolicySource>> PolicySource::Open(
    const std::string& path, Policy builtin) {
  if (path.empty()) {
    return std::unique_ptr<PolicySource>(new PolicySource(
        "", nullptr, std::make_shared<const Policy>(std::move(builtin)),
        Text()));
  }
  return OpenReader([path]() -> absl::StatusOr<Text> {
    absl::StatusOr<std::string> text = ReadPolicyText(path);
    if (!text.ok()) return text.status();
    return Text{path, *std::move(text), 0};
  });
}

absl::StatusOr<std::unique_ptr<PolicySource>> PolicySource::OpenReader(
    Reader reader) {
  absl::StatusOr<Text> text = reader();
  if (!text.ok()) return text.status();
  absl::StatusOr<Policy> policy = ParsePolicy(text->text, text->name);
  if (!policy.ok()) return policy.status();
  const std::string name = text->name;
  return std::unique_ptr<PolicySource>(new PolicySource(
      name, std::move(reader),
      std::make_shared<const Policy>(*std::move(policy)), *std::move(text)));
}

std::shared_ptr<const Policy> PolicySource::Current() const {
  absl::MutexLock lock(&mu_);
  return policy_;
}

std::string PolicySource::digest() const {
  absl::MutexLock lock(&mu_);
  if (reader_ == nullptr) return "";
  return absl::BytesToHexString(ContentDigest(text_.text));
}

int64_t PolicySource::version() const {
  absl::MutexLock lock(&mu_);
  return text_.version;
}

absl::StatusOr<bool> PolicySource::Reload() {
  if (reader_ == nullptr) return false;
  absl::StatusOr<Text> text = reader_();
  absl::StatusOr<Policy> policy =
      text.ok() ? ParsePolicy(text->text, text->name) : text.status();
  if (!policy.ok()) {
    failures_.fetch_add(1);
    return policy.status();
  }
  auto fresh = std::make_shared<const Policy>(*std::move(policy));
  absl::MutexLock lock(&mu_);
  if (text->text == text_.text) {
    text_.version = text->version;  // a republished copy of the same text
    return false;
  }
  text_ = *std::move(text);
  policy_ = std::move(fresh);
  return true;
}

}  // namespace leakhound
