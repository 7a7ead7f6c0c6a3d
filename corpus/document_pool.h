// DocumentPool: the real documents the evaluation draws from (the directory
// corpus/prepare_corpora.sh fills), split deterministically for a seed into
// three disjoint roles: protected documents, benign hosts that excerpts are
// inserted into, and held-out documents of the protected documents' domain
// that are never protected and never hosts.
//
//   python/*.txt  Python docs: 1/2 protected, 1/4 held out, 1/4 hosts
//   zh/*.txt      Chinese man pages: the same split
//   gnu/*.info    GNU manuals, one document per Info node: hosts only
// A text found twice is kept once.
//
// Thread-safety: plain data.
#ifndef LEAKHOUND_CORPUS_DOCUMENT_POOL_H_
#define LEAKHOUND_CORPUS_DOCUMENT_POOL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

struct PoolDocument {
  std::string id;          // "python/library_os", "gnu/sed.info#12", ...
  std::string collection;  // "python", "gnu" or "zh"
  bool chinese = false;
  std::string text;        // well-formed UTF-8
};

struct DocumentPool {
  std::vector<PoolDocument> protected_docs;
  std::vector<PoolDocument> hosts;
  std::vector<PoolDocument> held_out;
};

struct PoolLimits {
  // Per collection and role, at most this many documents (after the
  // seeded shuffle); 0 means all.
  size_t per_collection_role = 0;
  // Documents shorter than this many bytes (menus, stub pages) are skipped.
  size_t min_bytes = 1500;
};

// Reads `dir`. Errors: NotFound when a collection directory is missing or
// empty, Internal for unreadable files.
absl::StatusOr<DocumentPool> LoadDocumentPool(const std::string& dir,
                                              uint64_t seed,
                                              const PoolLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_DOCUMENT_POOL_H_
