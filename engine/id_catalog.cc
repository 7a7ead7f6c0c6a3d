#include "engine/id_catalog.h"

#include <algorithm>

namespace leakhound {

absl::StatusOr<IdCatalog> IdCatalog::Load(const IndexStore& store) {
  IdCatalog catalog;
  absl::Status s = store.ForEachExternalId(
      [&catalog](std::string_view external_id, uint32_t id) {
        catalog.starts_.push_back(catalog.ids_.size());
        catalog.ids_.append(external_id).push_back('\0');
        catalog.docs_.push_back(id);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return catalog;
}

std::string_view IdCatalog::Id(size_t i) const {
  const size_t end = i + 1 < starts_.size() ? starts_[i + 1] : ids_.size();
  return std::string_view(ids_).substr(starts_[i], end - 1 - starts_[i]);
}

std::vector<uint32_t> IdCatalog::Find(std::string_view text,
                                      std::string_view from,
                                      size_t limit) const {
  std::vector<uint32_t> out;
  // An id holds no '\0': such a text is in none (and would match the
  // separators).
  if (text.find('\0') != std::string_view::npos) return out;
  // The first entry at or after `from`.
  size_t i = 0, hi = starts_.size();
  while (i < hi) {
    const size_t mid = i + (hi - i) / 2;
    if (Id(mid) < from) {
      i = mid + 1;
    } else {
      hi = mid;
    }
  }
  while (i < starts_.size() && out.size() < limit) {
    const size_t hit = ids_.find(text, starts_[i]);
    if (hit == std::string::npos) break;
    // The entry holding the hit: the last that starts at or before it.
    i = static_cast<size_t>(
            std::upper_bound(starts_.begin() + static_cast<ptrdiff_t>(i),
                             starts_.end(), hit) -
            starts_.begin()) -
        1;
    out.push_back(docs_[i]);
    ++i;
  }
  return out;
}

size_t IdCatalog::MemoryBytes() const {
  return ids_.capacity() + starts_.capacity() * sizeof(size_t) +
         docs_.capacity() * sizeof(uint32_t);
}

}  // namespace leakhound
