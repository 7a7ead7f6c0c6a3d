// ZipPackage: the entries of a zip-based document format (Office Open XML,
// OpenDocument) read into memory by name, within the extraction's limits:
// each entry at most max_input_bytes once inflated, every inflated byte
// charged to the sink's expansion budget.
//
// Thread-safety: a ZipPackage is a plain value.
#ifndef LEAKHOUND_CLI_FORMATS_ZIP_PACKAGE_H_
#define LEAKHOUND_CLI_FORMATS_ZIP_PACKAGE_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

struct ZipPackage {
  // The entries read, by name. std::map: names in byte order.
  std::map<std::string, std::string> entries;

  // Names of the entries starting with `prefix` and ending with `suffix`,
  // in natural order (numbers compared as numbers: slide2 before slide10).
  std::vector<std::string> Matching(std::string_view prefix,
                                    std::string_view suffix) const;
  // The entry's bytes, or "" when absent.
  std::string_view Get(const std::string& name) const;
};

// Reads the regular entries of the zip `bytes` for which `wanted(name)`
// holds. InvalidArgument for a malformed zip or an encrypted entry.
absl::StatusOr<ZipPackage> ReadZipPackage(
    std::string_view bytes, ExtractionSink& sink,
    const std::function<bool(std::string_view)>& wanted);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_ZIP_PACKAGE_H_
