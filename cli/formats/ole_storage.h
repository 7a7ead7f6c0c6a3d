// Ole2Storage: an OLE2 compound file (Microsoft's "structured storage":
// Word, Excel and PowerPoint 97-2003, Outlook .msg, an encrypted Office
// Open XML package) as a tree of storages and streams, read with libgsf.
// The one file that calls libgsf.
//
// Streams are read on demand, each within a byte bound the caller gives
// (a damaged allocation table can make every stream as long as the file,
// so callers charge what they read to the extraction's budget). libgsf
// follows the sector chains itself and refuses a chain that loops or
// leaves the file; its GLib warnings about damaged files are silenced (the
// error comes back as a Status instead).
//
// Thread-safety: an Ole2Storage is used by one thread at a time; distinct
// instances are independent.
#ifndef LEAKHOUND_CLI_FORMATS_OLE_STORAGE_H_
#define LEAKHOUND_CLI_FORMATS_OLE_STORAGE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/formats/text_extractor.h"

namespace leakhound {

// The first eight bytes of every OLE2 compound file.
inline constexpr std::string_view kOle2Signature =
    "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

// `name` inside the storage path `dir` ("" for the root).
std::string Ole2Path(std::string_view dir, std::string_view name);

class Ole2Storage {
 public:
  struct Entry {
    std::string name;  // as stored (may start with a control character,
                       // as "\x05SummaryInformation" and "\x01Ole10Native")
    bool is_storage = false;
    uint64_t size = 0;  // of a stream, in bytes
  };

  // Opens the compound file `bytes`. REQUIRES: `bytes` outlives the
  // storage (it is not copied). InvalidArgument for anything that is not
  // a well-formed compound file.
  static absl::StatusOr<std::unique_ptr<Ole2Storage>> Open(
      std::string_view bytes);

  ~Ole2Storage();
  Ole2Storage(const Ole2Storage&) = delete;
  Ole2Storage& operator=(const Ole2Storage&) = delete;

  // The entries of the storage at `path` (names joined by '/', "" for the
  // root), in directory order. NotFound if there is no such storage.
  absl::StatusOr<std::vector<Entry>> List(std::string_view path) const;

  // Whether a stream or storage exists at `path`.
  bool Has(std::string_view path) const;

  // The whole stream at `path`. NotFound if absent (or a storage),
  // ResourceExhausted if it is longer than `max_bytes`, InvalidArgument if
  // its sectors cannot be read.
  absl::StatusOr<std::string> Read(std::string_view path,
                                   size_t max_bytes) const;

  // The properties of the property-set stream at `path` (a
  // "\x05DocumentSummaryInformation": its user-defined section too), as
  // (name, value as text), read with libgsf's property-set reader. Names
  // of the standard properties are libgsf's ("dc:title", ...).
  // NotFound if absent, ResourceExhausted past `max_bytes`,
  // InvalidArgument if it cannot be read.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Properties(
      std::string_view path, size_t max_bytes) const;

 private:
  struct Impl;
  explicit Ole2Storage(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Ole2Storage::Read of `path` within the input limit of `sink`, with the
// bytes read charged to its expansion budget: a damaged allocation table
// can make any stream as long as the file. Errors as Read, and the sink's
// limit errors.
absl::StatusOr<std::string> ReadCharged(const Ole2Storage& storage,
                                        std::string_view path,
                                        ExtractionSink& sink);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OLE_STORAGE_H_
