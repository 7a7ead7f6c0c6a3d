#include "cli/formats/zip_package.h"

#include <algorithm>
#include <cctype>

#include "cli/formats/archive_reader.h"

namespace leakhound {
namespace {

// Natural order: runs of digits compare by value.
bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
        ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
        ++ej;
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::vector<std::string> ZipPackage::Matching(std::string_view prefix,
                                              std::string_view suffix) const {
  std::vector<std::string> out;
  for (auto it = entries.lower_bound(std::string(prefix));
       it != entries.end() && std::string_view(it->first).starts_with(prefix);
       ++it) {
    if (std::string_view(it->first).ends_with(suffix)) out.push_back(it->first);
  }
  std::sort(out.begin(), out.end(), NaturalLess);
  return out;
}

std::string_view ZipPackage::Get(const std::string& name) const {
  auto it = entries.find(name);
  return it == entries.end() ? std::string_view()
                             : std::string_view(it->second);
}

absl::StatusOr<ZipPackage> ReadZipPackage(
    std::string_view bytes, ExtractionSink& sink,
    const std::function<bool(std::string_view)>& wanted) {
  ZipPackage package;
  absl::Status s = ForEachMember(
      bytes, sink, wanted, [&package](std::string name, std::string data) {
        package.entries[std::move(name)] = std::move(data);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return package;
}

}  // namespace leakhound
