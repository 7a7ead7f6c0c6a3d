#include "cli/incidents/incident_writer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/incidents/outbox_event.h"

namespace leakhound {

IncidentWriter::IncidentWriter(std::string path, const Options& options,
                               Log log)
    : path_(std::move(path)), options_(options), log_(std::move(log)) {
  thread_ = std::thread([this] { Run(); });
}

IncidentWriter::~IncidentWriter() { Stop(5); }

void IncidentWriter::NoteDrops(uint64_t n) {
  counters_.dropped += n;
  unlogged_drops_ += n;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_drop_log_ >= std::chrono::seconds(kDropLogSeconds)) {
    log_(absl::StrCat("incidents: dropped ", unlogged_drops_,
                      " incident records (", counters_.dropped,
                      " in all): the spool of ", options_.spool_capacity,
                      " is full, the store at ", RedactedTarget(path_),
                      " is not taking them"));
    unlogged_drops_ = 0;
    last_drop_log_ = now;
  }
}

void IncidentWriter::Submit(Incident incident) {
  if (incident.uid.empty()) incident.uid = NewEventId();
  absl::MutexLock lock(&mu_);
  ++counters_.submitted;
  if (stopping_ || spool_.size() >= options_.spool_capacity) {
    NoteDrops(1);
    return;
  }
  spool_.push_back(std::move(incident));
  counters_.spooled = spool_.size();
  cv_.Signal();
}

void IncidentWriter::Stop(double seconds) {
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_) {
      stopping_ = true;
      stop_deadline_ =
          std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(seconds));
    }
    cv_.SignalAll();
    // Past the deadline a statement still running is cancelled, again
    // every 100 ms: a slow store must not hold the stop (what it was
    // writing goes to the spool folder).
    while (thread_.joinable() && !finished_) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= stop_deadline_) {
        absl::MutexLock live(&live_mu_);
        if (live_ != nullptr) live_->Interrupt();
      }
      cv_.WaitWithTimeout(&mu_, now >= stop_deadline_
                                    ? absl::Milliseconds(100)
                                    : absl::FromChrono(stop_deadline_ - now));
    }
  }
  if (thread_.joinable()) thread_.join();
}

IncidentWriter::Counters IncidentWriter::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

void IncidentWriter::WaitForWork(
    bool failing, std::chrono::steady_clock::time_point next_try) {
  if (!failing) {
    while (Idle() && !stopping_) cv_.Wait(&mu_);
    return;
  }
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if ((stopping_ && now >= stop_deadline_) || now >= next_try) break;
    if (disk_ != nullptr && !disk_blocked_ && !spool_.empty()) {
      break;  // to disk at once
    }
    const auto until =
        stopping_ ? std::min(next_try, stop_deadline_) : next_try;
    cv_.WaitWithTimeout(&mu_, absl::FromChrono(until - now));
  }
}

absl::Status IncidentWriter::Write(std::unique_ptr<IncidentStore>& store,
                                   std::vector<Incident>& batch) {
  if (store == nullptr) {
    IncidentStore::Options open;
    open.busy_timeout_ms = options_.busy_timeout_ms;
    auto opened = IncidentStore::Open(path_, open);
    if (!opened.ok()) return opened.status();
    store = std::move(*opened);
  }
  {
    absl::MutexLock live(&live_mu_);
    live_ = store.get();
  }
  absl::Status status = store->Insert(batch);
  {
    absl::MutexLock live(&live_mu_);
    live_ = nullptr;
  }
  // A locked store is kept open; after any other error it is reopened.
  if (!status.ok() && !absl::IsUnavailable(status)) store.reset();
  return status;
}

void IncidentWriter::Requeue(std::vector<Incident> batch) {
  // Back at the front, in order; what no longer fits is dropped.
  const size_t room = options_.spool_capacity > spool_.size()
                          ? options_.spool_capacity - spool_.size()
                          : 0;
  const size_t kept = std::min(room, batch.size());
  spool_.insert(spool_.begin(), std::make_move_iterator(batch.begin()),
                std::make_move_iterator(batch.begin() +
                                        static_cast<std::ptrdiff_t>(kept)));
  if (kept < batch.size()) NoteDrops(batch.size() - kept);
}

void IncidentWriter::LogStop() {
  if (!spool_.empty()) {
    const uint64_t left = spool_.size();
    spool_.clear();
    counters_.spooled = 0;
    counters_.dropped += left;
    log_(absl::StrCat("incidents: stopped with ", left,
                      " incident records unwritten (", counters_.dropped,
                      " dropped in all)"));
  } else if (unlogged_drops_ > 0) {
    log_(absl::StrCat("incidents: dropped ", unlogged_drops_,
                      " incident records (", counters_.dropped, " in all)"));
  }
  unlogged_drops_ = 0;
}

void IncidentWriter::NoteSpool() {
  const uint64_t depth = disk_ != nullptr ? disk_->depth() : 0;
  const int64_t oldest = disk_ != nullptr ? disk_->oldest_ms() : 0;
  absl::MutexLock lock(&mu_);
  counters_.disk_spooled = depth;
  counters_.oldest_spooled_ms = oldest;
}

void IncidentWriter::SpoolQueue() {
  std::vector<Incident> queued;
  {
    absl::MutexLock lock(&mu_);
    queued.assign(std::make_move_iterator(spool_.begin()),
                  std::make_move_iterator(spool_.end()));
    spool_.clear();
    counters_.spooled = 0;
  }
  size_t put = 0;
  while (put < queued.size()) {
    const size_t n = std::min(options_.batch, queued.size() - put);
    const absl::Status s =
        disk_->Put(std::span<const Incident>(queued.data() + put, n));
    if (!s.ok()) {
      log_(absl::StrCat("incidents: ", s.message(), "; keeping ",
                        queued.size() - put, " in memory"));
      disk_blocked_ = true;  // until the next try of the store
      break;
    }
    put += n;
  }
  if (put < queued.size()) {
    absl::MutexLock lock(&mu_);
    spool_.insert(spool_.begin(),
                  std::make_move_iterator(queued.begin() +
                                          static_cast<std::ptrdiff_t>(put)),
                  std::make_move_iterator(queued.end()));
    counters_.spooled = spool_.size();
  }
  NoteSpool();
}

absl::Status IncidentWriter::RoundFromSpool(
    std::unique_ptr<IncidentStore>& store) {
  auto batch = disk_->Oldest();
  if (!batch.ok()) {  // a damaged file, moved aside; or unreadable
    log_(absl::StrCat("incidents: ", batch.status().message()));
    NoteSpool();
    return absl::IsDataLoss(batch.status()) ? absl::OkStatus() : batch.status();
  }
  absl::Status status = Write(store, (*batch)->incidents);
  if (status.ok()) {
    // Stored: a crash before the file goes stores it again, as no-ops.
    if (absl::Status s = disk_->Remove((*batch)->seq); !s.ok()) {
      log_(absl::StrCat("incidents: ", s.message()));
    }
    NoteSpool();
    absl::MutexLock lock(&mu_);
    counters_.written += (*batch)->incidents.size();
  } else {
    SpoolQueue();  // and notes the spool
  }
  return status;
}

absl::Status IncidentWriter::Round(std::unique_ptr<IncidentStore>& store) {
  if (disk_ != nullptr && disk_->depth() > 0) return RoundFromSpool(store);
  std::vector<Incident> batch;
  {
    absl::MutexLock lock(&mu_);
    const auto n =
        static_cast<std::ptrdiff_t>(std::min(spool_.size(), options_.batch));
    batch.assign(std::make_move_iterator(spool_.begin()),
                 std::make_move_iterator(spool_.begin() + n));
    // Counted as waiting until the round ends (Run).
    spool_.erase(spool_.begin(), spool_.begin() + n);
  }
  if (batch.empty()) return absl::OkStatus();
  const absl::Status status = Write(store, batch);
  if (status.ok()) {
    absl::MutexLock lock(&mu_);
    counters_.written += batch.size();
    return status;
  }
  if (disk_ != nullptr && !disk_blocked_) {
    const absl::Status put = disk_->Put(batch);
    if (put.ok()) {
      SpoolQueue();  // and notes the spool
      return status;
    }
    log_(absl::StrCat("incidents: ", put.message(), "; keeping ",
                      batch.size(), " in memory"));
    disk_blocked_ = true;  // until the next try of the store
  }
  absl::MutexLock lock(&mu_);
  Requeue(std::move(batch));
  return status;
}

void IncidentWriter::OpenSpool() {
  if (options_.spool_dir.empty()) return;
  auto opened =
      IncidentSpool::OpenSlot(options_.spool_dir, options_.spool_max_incidents);
  if (opened.ok()) {
    disk_ = std::move(*opened);
    if (disk_->depth() > 0) {
      log_(absl::StrCat("incidents: ", disk_->depth(),
                        " spooled incidents to store from ",
                        options_.spool_dir));
    }
  } else {
    log_(absl::StrCat("incidents: ", opened.status().message(),
                      "; keeping unstored incidents in memory only"));
    absl::MutexLock lock(&mu_);
    counters_.spool_ok = false;
  }
  NoteSpool();
}

void IncidentWriter::Run() {
  OpenSpool();
  std::unique_ptr<IncidentStore> store;
  int retry_ms = 0;  // 0: the last attempt succeeded
  bool failing = false;
  auto next_try = std::chrono::steady_clock::now();
  mu_.Lock();
  for (;;) {
    WaitForWork(failing, next_try);
    const auto now = std::chrono::steady_clock::now();
    if (stopping_ && (Idle() || now >= stop_deadline_)) break;
    if (Idle()) continue;
    if (failing && now < next_try) {
      // The store failed a moment ago: what is queued meanwhile goes to
      // the spool folder now, not after the pause.
      if (disk_ != nullptr && !disk_blocked_ && !spool_.empty()) {
        mu_.Unlock();
        SpoolQueue();
        mu_.Lock();
      }
      continue;
    }
    disk_blocked_ = false;
    mu_.Unlock();
    const absl::Status status = Round(store);
    if (status.ok() && failing) {
      log_(absl::StrCat("incidents: writing to ", RedactedTarget(path_),
                        " again"));
    } else if (!status.ok() && !failing) {
      log_(absl::StrCat(
          "incidents: cannot write (", status.message(), "); ",
          disk_ != nullptr ? "spooling to disk" : "keeping the records",
          " and retrying"));
    }
    failing = !status.ok();
    mu_.Lock();
    if (disk_ != nullptr && spool_.size() > options_.spool_capacity / 2) {
      // A store slower than the traffic: the queue goes to disk before it
      // fills (it would drop), and is stored from there in order.
      mu_.Unlock();
      SpoolQueue();
      mu_.Lock();
    }
    counters_.spooled = spool_.size();
    if (status.ok()) {
      retry_ms = 0;
    } else {
      ++counters_.failed_writes;
      retry_ms = retry_ms == 0 ? options_.min_retry_ms
                               : std::min(retry_ms * 2, options_.max_retry_ms);
      next_try = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(retry_ms);
    }
  }
  if (disk_ != nullptr && !spool_.empty()) {  // kept for the next start
    mu_.Unlock();
    SpoolQueue();
    mu_.Lock();
  }
  if (counters_.disk_spooled > 0) {
    log_(absl::StrCat("incidents: ", counters_.disk_spooled,
                      " incidents kept in ", options_.spool_dir,
                      " for the next start"));
  }
  LogStop();
  finished_ = true;
  cv_.SignalAll();
  mu_.Unlock();
}

}  // namespace leakhound
