// RunInOrder: runs `produce` over items [0, count) on worker threads and
// hands each result to `consume` on the calling thread, in item order, so
// a command can work in parallel and still print (or commit) in the order
// of its inputs. At most `window` results wait ahead of the one consumed,
// which bounds memory whatever the workers' speed.
//
// Thread-safety: `produce(item, worker)` runs concurrently on `workers`
// threads (worker in [0, workers), so per-thread state can be indexed by
// it); `consume(item, result)` runs on the calling thread only. Returns
// when every item is consumed and every worker has stopped.
#ifndef LEAKHOUND_CLI_COMMANDS_ORDERED_WORK_H_
#define LEAKHOUND_CLI_COMMANDS_ORDERED_WORK_H_

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace leakhound {

// REQUIRES: workers >= 1, window >= 1.
template <class Result>
void RunInOrder(size_t count, size_t workers, size_t window,
                const std::function<Result(size_t, size_t)>& produce,
                const std::function<void(size_t, Result)>& consume) {
  absl::Mutex mu;
  absl::CondVar cv;
  std::vector<std::optional<Result>> results(count);
  size_t next = 0;      // next item to take
  size_t consumed = 0;  // items consumed so far
  std::vector<std::thread> pool;
  for (size_t w = 0; w < std::min(workers, count); ++w) {
    pool.emplace_back([&, w] {
      for (;;) {
        size_t i;
        {
          absl::MutexLock lock(&mu);
          while (next < count && next >= consumed + window) cv.Wait(&mu);
          if (next >= count) return;
          i = next++;
        }
        Result r = produce(i, w);
        {
          absl::MutexLock lock(&mu);
          results[i] = std::move(r);
        }
        cv.SignalAll();
      }
    });
  }
  for (size_t i = 0; i < count; ++i) {
    Result r;
    {
      absl::MutexLock lock(&mu);
      while (!results[i].has_value()) cv.Wait(&mu);
      r = std::move(*results[i]);
      results[i].reset();
      consumed = i + 1;
    }
    cv.SignalAll();
    consume(i, std::move(r));
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_ORDERED_WORK_H_
