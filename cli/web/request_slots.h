// RequestSlots: how many requests one proxy user and one client address
// may have in the ICAP service at once. c-icap serves each connection on a
// thread of its child; 16 uploads that stop after 6 KB held all 16 and
// every other upload waited (issue 66). With caps below the thread count,
// a few slow clients hold only their own share: a request past its user's
// or its address's cap is refused at once (the ICAP error; Squid's bypass
// setting decides) instead of taking a thread for as long as its client
// likes.
//
// Thread-safety: TryAcquire and the Slot's release may run on any thread.
#ifndef LEAKHOUND_CLI_WEB_REQUEST_SLOTS_H_
#define LEAKHOUND_CLI_WEB_REQUEST_SLOTS_H_

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace leakhound {

class RequestSlots {
 public:
  // A held slot; released when destroyed. Movable, not copyable.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

   private:
    friend class RequestSlots;
    Slot(RequestSlots* owner, std::string user, std::string client)
        : owner_(owner), user_(std::move(user)), client_(std::move(client)) {}
    RequestSlots* owner_ = nullptr;
    std::string user_, client_;
  };

  // At most `per_user` requests of one (non-empty) proxy user and
  // `per_client` of one (non-empty) client address at once; 0: no cap.
  RequestSlots(int per_user, int per_client);

  // A slot for a request of `user` from `client` ("" for unknown: that
  // cap does not apply); ResourceExhausted naming the cap reached.
  // REQUIRES: the RequestSlots outlives the Slot.
  absl::StatusOr<Slot> TryAcquire(const std::string& user,
                                  const std::string& client)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Requests held now (for tests and logs).
  int held() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Release(const std::string& user, const std::string& client)
      ABSL_LOCKS_EXCLUDED(mu_);

  const int per_user_, per_client_;
  mutable absl::Mutex mu_;
  std::map<std::string, int> users_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> clients_ ABSL_GUARDED_BY(mu_);
  int held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_REQUEST_SLOTS_H_
