#include "cli/web/request_slots.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace leakhound {

RequestSlots::Slot::Slot(Slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      user_(std::move(other.user_)),
      client_(std::move(other.client_)) {}

RequestSlots::Slot& RequestSlots::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Release(user_, client_);
    owner_ = std::exchange(other.owner_, nullptr);
    user_ = std::move(other.user_);
    client_ = std::move(other.client_);
  }
  return *this;
}

RequestSlots::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release(user_, client_);
}

RequestSlots::RequestSlots(int per_user, int per_client)
    : per_user_(per_user), per_client_(per_client) {}

absl::StatusOr<RequestSlots::Slot> RequestSlots::TryAcquire(
    const std::string& user, const std::string& client) {
  absl::MutexLock lock(&mu_);
  if (!user.empty() && per_user_ > 0 && users_[user] >= per_user_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "proxy user '", user, "' has ", per_user_, " requests in progress"));
  }
  if (!client.empty() && per_client_ > 0 && clients_[client] >= per_client_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "client ", client, " has ", per_client_, " requests in progress"));
  }
  if (!user.empty()) ++users_[user];
  if (!client.empty()) ++clients_[client];
  ++held_;
  return Slot(this, user, client);
}

int RequestSlots::held() const {
  absl::MutexLock lock(&mu_);
  return held_;
}

void RequestSlots::Release(const std::string& user, const std::string& client) {
  absl::MutexLock lock(&mu_);
  if (!user.empty() && --users_[user] == 0) users_.erase(user);
  if (!client.empty() && --clients_[client] == 0) clients_.erase(client);
  --held_;
}

}  // namespace leakhound
