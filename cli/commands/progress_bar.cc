#include "cli/commands/progress_bar.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace leakhound {

ProgressBar::ProgressBar(size_t total_files, uint64_t total_bytes)
    : enabled_(total_files > 1 && ::isatty(STDERR_FILENO) == 1),
      total_files_(total_files),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::Update(size_t files, uint64_t bytes) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && files < total_files_ &&
      now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double mb_per_s =
      seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * files / total_files_);
  std::string bar(static_cast<size_t>(filled), '=');
  bar.resize(kWidth, ' ');
  std::string eta = "--:--";
  if (total_bytes_ > 0 && bytes > 0 && bytes <= total_bytes_) {
    const auto left =
        static_cast<long>(seconds * static_cast<double>(total_bytes_ - bytes) /
                          static_cast<double>(bytes));
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%ld:%02ld", left / 60, left % 60);
    eta = buf;
  }
  std::fprintf(stderr, "\r\033[K[%s] %zu/%zu files  %.1f MB/s  ETA %s",
               bar.c_str(), files, total_files_, mb_per_s, eta.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Clear() {
  if (!enabled_ || !drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace leakhound
