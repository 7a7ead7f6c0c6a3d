#include "cli/gateway/index_holder.h"

#include <atomic>

namespace leakhound {
namespace {

uint64_t NextSerial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<IndexHolder>> IndexHolder::Open(
    const std::string& dir) {
  auto index = ProtectedIndex::Open(dir, OpenMode::kRead);
  if (!index.ok()) return index.status();
  auto standby = ProtectedIndex::Open(dir, OpenMode::kRead);
  if (!standby.ok()) return standby.status();
  std::unique_ptr<IndexHolder> holder(
      new IndexHolder(dir, std::shared_ptr<ProtectedIndex>(std::move(*index))));
  {
    absl::MutexLock lock(&holder->reload_mu_);  // not shared yet
    holder->standby_ = std::shared_ptr<ProtectedIndex>(std::move(*standby));
  }
  return holder;
}

IndexHolder::IndexHolder(std::string dir, std::shared_ptr<ProtectedIndex> index)
    : dir_(std::move(dir)), current_(std::move(index)), serial_(NextSerial()) {}

IndexHolder::Snapshot IndexHolder::Current() const {
  absl::MutexLock lock(&mu_);
  return Snapshot{current_, current_->generation(), serial_};
}

absl::StatusOr<bool> IndexHolder::Reload() {
  absl::MutexLock reload(&reload_mu_);
  // The instance swapped out last time is the standby once no scan holds
  // it (use_count 1: only retired_ itself).
  if (standby_ == nullptr && retired_ != nullptr && retired_.use_count() == 1) {
    standby_ = std::move(retired_);
  }
  // A rekeyed index is another database: open it, never catch up.
  bool replaced;
  {
    absl::MutexLock lock(&mu_);
    replaced = current_->replaced();
  }
  if (standby_ != nullptr && standby_->replaced()) standby_.reset();
  if (standby_ == nullptr) {
    // No idle instance (a scan held the retired one across a whole reload
    // period), or the index was replaced: open one, which reads the latest
    // state.
    auto fresh = ProtectedIndex::Open(dir_, OpenMode::kRead);
    if (!fresh.ok()) return fresh.status();
    standby_ = std::shared_ptr<ProtectedIndex>(std::move(*fresh));
  } else {
    auto refreshed = standby_->Refresh();
    if (!refreshed.ok()) return refreshed.status();
  }
  {
    absl::MutexLock lock(&mu_);
    if (!replaced && standby_->generation() == current_->generation()) {
      return false;
    }
    std::swap(current_, standby_);
    serial_ = NextSerial();
  }
  // The old current instance: idle once its scans end.
  retired_ = std::move(standby_);
  return true;
}

}  // namespace leakhound
