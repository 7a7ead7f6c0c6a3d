#include "engine/filter/bloom_geometry.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace leakhound {

absl::StatusOr<BloomGeometry> BloomGeometry::FromParams(
    const FilterParams& params) {
  if (!(params.fpr > 0.0 && params.fpr <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("false-positive rate must be in (0, 0.5], got ",
                     params.fpr));
  }
  if (params.row_capacity < 64 || params.row_capacity > (1u << 26)) {
    return absl::InvalidArgumentError(
        absl::StrCat("row capacity must be in [64, 2^26], got ",
                     params.row_capacity));
  }
  if (!(params.fill > 0.0 && params.fill <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill must be in (0, 1], got ", params.fill));
  }
  const double n = params.row_capacity;
  const double ln2 = std::log(2.0);
  const double m = std::ceil(-n * std::log(params.fpr) / (ln2 * ln2));
  if (m > 4294967295.0) {
    return absl::InvalidArgumentError("row of more than 2^32 bits");
  }
  double k = std::round(m / n * ln2);
  k = std::max(1.0, std::min(k, static_cast<double>(kMaxHashes)));
  const auto limit = static_cast<uint32_t>(std::floor(params.fill * n));
  return BloomGeometry{static_cast<uint32_t>(m), static_cast<uint32_t>(k),
                       std::max<uint32_t>(limit, 1)};
}

}  // namespace leakhound
