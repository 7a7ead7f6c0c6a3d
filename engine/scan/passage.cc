#include "engine/scan/passage.h"

namespace leakhound {

PassageOptions PassageOptionsFor(const ShinglerOptions& options) {
  const auto shingle_tokens = static_cast<uint32_t>(options.shingle_words) *
                              static_cast<uint32_t>(options.cjk_chars_per_word);
  PassageOptions out;
  out.max_gap_tokens =
      2 * shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_aligned_gap_tokens =
      3 * shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_drift_tokens = static_cast<uint32_t>(options.shingle_words);
  out.max_group_gap_tokens =
      shingle_tokens + static_cast<uint32_t>(options.winnow_window);
  out.max_group_slack_tokens = shingle_tokens;
  out.max_check_skip_tokens = static_cast<uint32_t>(options.cjk_chars_per_word);
  out.min_check_run_tokens = out.max_check_skip_tokens;
  out.max_check_extension_tokens = out.max_aligned_gap_tokens;
  return out;
}

}  // namespace leakhound
