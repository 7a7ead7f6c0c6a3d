// ProgressBar: one self-overwriting status line on standard error for
// commands that process many files (files done/total, MB/s, ETA). Drawn
// only when standard error is a terminal and there is more than one file;
// otherwise every method does nothing.
//
// Thread-safety: not thread-safe; drive it from the thread that prints.
#ifndef LEAKHOUND_CLI_COMMANDS_PROGRESS_BAR_H_
#define LEAKHOUND_CLI_COMMANDS_PROGRESS_BAR_H_

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace leakhound {

class ProgressBar {
 public:
  // `total_bytes` may be 0 when unknown (then no ETA).
  ProgressBar(size_t total_files, uint64_t total_bytes);
  ~ProgressBar() { Clear(); }

  // Redraws (at most ten times a second) after `files` files and `bytes`
  // bytes are done.
  void Update(size_t files, uint64_t bytes);
  // Erases the line, so the caller can print; the next Update redraws.
  void Clear();

 private:
  const bool enabled_;
  const size_t total_files_;
  const uint64_t total_bytes_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_PROGRESS_BAR_H_
