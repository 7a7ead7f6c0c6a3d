#include "cli/incidents/store_target.h"

namespace leakhound {

bool IsDatabaseUri(std::string_view target) {
  return target.starts_with("postgresql://") ||
         target.starts_with("postgres://");
}

std::string RedactedTarget(std::string_view target) {
  if (!IsDatabaseUri(target)) return std::string(target);
  std::string out(target);
  const size_t authority = out.find("://") + 3;
  const size_t end = out.find_first_of("/?", authority);
  const size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
  if (at != std::string::npos && at >= authority) {
    const size_t colon = out.find(':', authority);
    if (colon != std::string::npos && colon < at) {
      out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // A password among the parameters: ?password=... or &password=...
  for (size_t p = out.find("password="); p != std::string::npos;
       p = out.find("password=", p + 1)) {
    if (p == 0 || (out[p - 1] != '?' && out[p - 1] != '&')) continue;
    const size_t value = p + 9;
    const size_t stop = out.find('&', value);
    out.replace(value, (stop == std::string::npos ? out.size() : stop) - value,
                "***");
  }
  return out;
}

}  // namespace leakhound
