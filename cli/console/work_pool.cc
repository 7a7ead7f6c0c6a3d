#include "cli/console/work_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

namespace leakhound {

WorkPool::WorkPool(unsigned threads, size_t queue_limit)
    : queue_limit_(queue_limit) {
  for (unsigned k = 0; k < std::max(threads, 1u); ++k) {
    workers_.emplace_back([this] { Work(); });
  }
}

WorkPool::~WorkPool() { Stop(); }

bool WorkPool::TrySubmit(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || queue_.size() >= queue_limit_) {
    ++refused_;
    return false;
  }
  queue_.push_back(std::move(task));
  return true;
}

void WorkPool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

size_t WorkPool::busy() const {
  absl::MutexLock lock(&mu_);
  return queue_.size() + running_;
}

size_t WorkPool::refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

void WorkPool::Work() {
  // Below the event loops: the scheduler serves a page before a hash.
  // (On Linux a thread's nice value is its own.)
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WorkPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
            return p->stopping_ || !p->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    task();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace leakhound
