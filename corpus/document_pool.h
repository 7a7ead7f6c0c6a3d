// DocumentPool: the real documents the evaluation draws from (the directory
// corpus/prepare_corpora.sh fills), split deterministically for a seed into
// three disjoint roles: protected documents, benign hosts that excerpts are
// inserted into, and held-out documents of the protected documents' domain
// that are never protected and never hosts.
//
//   python/*.txt  Python docs, one document per section: 3/4 protected,
//                 1/8 held out, 1/8 hosts
//   zh/*.txt      Chinese man pages, one document per page: the same split
//   zh_tw/*.txt   the same in traditional characters
//   kernel/*.txt  Linux docs, one document per section: the same split
//   pg/*.txt      PostgreSQL manual, one document per page: the same split
//   perl/*.txt    Perl manual, one document per section: the same split
//   man/*.txt     Linux man pages, one document per section: the same split
//   gnu/*.info    GNU manuals, one document per Info node: hosts only
//   han/*.tsv     the Han variant maps (to_traditional, to_simplified)
// A section is what SplitSections cuts. A text found twice is kept once.
//
// Thread-safety: plain data.
#ifndef LEAKHOUND_CORPUS_DOCUMENT_POOL_H_
#define LEAKHOUND_CORPUS_DOCUMENT_POOL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "corpus/obfuscation.h"

namespace leakhound {

struct PoolDocument {
  std::string id;          // "zh/man1_ls", "python/library_os#3" (its
                           // fourth section), "gnu/sed.info#12", ...
  std::string collection;  // "python", "zh", "zh_tw", "kernel", "pg",
                           // "perl", "man" or "gnu"
  bool chinese = false;
  std::string text;        // well-formed UTF-8
};

struct DocumentPool {
  std::vector<PoolDocument> protected_docs;
  std::vector<PoolDocument> hosts;
  std::vector<PoolDocument> held_out;
  HanVariants to_traditional;  // for the simplified documents (zh)
  HanVariants to_simplified;   // for the traditional ones (zh_tw)
};

struct PoolLimits {
  // Per collection and role, at most this many documents (after the
  // seeded shuffle); 0 means all.
  size_t per_collection_role = 0;
  // Documents shorter than this many bytes (menus, stub pages) are skipped.
  size_t min_bytes = 1500;
  // A file is cut at a heading once the section before it has this many
  // bytes (SplitSections).
  size_t section_bytes = 1500;
};

enum class SectionHeadings {
  // A title line underlined (and maybe overlined) by one punctuation
  // character repeated.
  kRestructuredText,
  // An unindented line after a blank line, in text whose body is indented
  // (man pages rendered by groff, pod2text).
  kIndented,
};

// Cuts `text` into consecutive sections that together are `text`: at each
// heading whose section before it has at least `min_bytes`; a last section
// shorter than that joins the one before it.
std::vector<std::string> SplitSections(const std::string& text,
                                       SectionHeadings headings,
                                       size_t min_bytes);

// Reads `dir`. Errors: NotFound when a collection directory is missing or
// empty, Internal for unreadable files, DataLoss for a malformed variant
// map.
absl::StatusOr<DocumentPool> LoadDocumentPool(const std::string& dir,
                                              uint64_t seed,
                                              const PoolLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_DOCUMENT_POOL_H_
