// WorkPool: a few threads, at a lower scheduling priority, that run the
// console's slow work (directory binds and password hashing at login,
// document uploads with extraction and OCR) off the HTTP event loops, so
// that a logged-in user's page never waits behind it. The queue is
// bounded: past it, work is refused at once (the caller answers 503)
// rather than queued without end, so a flood of logins cannot hold memory
// or make everyone wait.
//
// Thread-safety: TrySubmit and Stop may be called from any thread.
#ifndef LEAKHOUND_CLI_CONSOLE_WORK_POOL_H_
#define LEAKHOUND_CLI_CONSOLE_WORK_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace leakhound {

class WorkPool {
 public:
  // `threads` workers (at least 1), at nice +10 (Linux: per thread);
  // at most `queue_limit` tasks waiting beyond those running.
  WorkPool(unsigned threads, size_t queue_limit);
  ~WorkPool();  // Stop()
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Queues `task`; false (and `task` dropped, never run) when the queue is
  // full or the pool is stopping.
  bool TrySubmit(std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);

  // Runs every queued task, then joins the workers. Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  // Tasks waiting and running now, and those refused since the start.
  size_t busy() const ABSL_LOCKS_EXCLUDED(mu_);
  size_t refused() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Work();

  const size_t queue_limit_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  size_t running_ ABSL_GUARDED_BY(mu_) = 0;
  size_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_WORK_POOL_H_
