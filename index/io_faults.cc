#include "index/io_faults.h"

namespace leakhound {

void IoFaults::Arm(uint32_t kinds, uint64_t nth, bool sticky) {
  armed_.store(false);
  kinds_.store(kinds);
  nth_.store(nth);
  sticky_.store(sticky);
  counted_.store(0);
  injected_.store(0);
  for (auto& seen : seen_) seen.store(0);
  armed_.store(true);
}

bool IoFaults::ShouldFail(IoKind kind) {
  seen_[static_cast<size_t>(kind)].fetch_add(1);
  if (!armed_.load() || (kinds_.load() & IoMask(kind)) == 0) return false;
  const uint64_t n = counted_.fetch_add(1) + 1;
  const uint64_t nth = nth_.load();
  if (n == nth || (n > nth && sticky_.load())) {
    injected_.fetch_add(1);
    return true;
  }
  return false;
}

}  // namespace leakhound
