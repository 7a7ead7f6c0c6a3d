#include "cli/policy/policy_source.h"

#include <utility>

#include "cli/policy/policy_file.h"

namespace leakhound {

PolicySource::PolicySource(std::string path,
                           std::shared_ptr<const Policy> policy,
                           std::string text)
    : path_(std::move(path)),
      policy_(std::move(policy)),
      text_(std::move(text)) {}

absl::StatusOr<std::unique_ptr<PolicySource>> PolicySource::Open(
    const std::string& path, Policy builtin) {
  if (path.empty()) {
    return std::unique_ptr<PolicySource>(new PolicySource(
        "", std::make_shared<const Policy>(std::move(builtin)), ""));
  }
  absl::StatusOr<std::string> text = ReadPolicyText(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Policy> policy = ParsePolicy(*text, path);
  if (!policy.ok()) return policy.status();
  return std::unique_ptr<PolicySource>(
      new PolicySource(path, std::make_shared<const Policy>(*std::move(policy)),
                       *std::move(text)));
}

std::shared_ptr<const Policy> PolicySource::Current() const {
  absl::MutexLock lock(&mu_);
  return policy_;
}

absl::StatusOr<bool> PolicySource::Reload() {
  if (path_.empty()) return false;
  absl::StatusOr<std::string> text = ReadPolicyText(path_);
  absl::StatusOr<Policy> policy =
      text.ok() ? ParsePolicy(*text, path_) : text.status();
  if (!policy.ok()) {
    failures_.fetch_add(1);
    return policy.status();
  }
  auto fresh = std::make_shared<const Policy>(*std::move(policy));
  absl::MutexLock lock(&mu_);
  if (*text == text_) return false;
  text_ = *std::move(text);
  policy_ = std::move(fresh);
  return true;
}

}  // namespace leakhound
