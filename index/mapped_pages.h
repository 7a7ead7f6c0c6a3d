// ReleaseMappedPages: gives back the resident pages of the index's table
// files that this process has mapped. RocksDB reads a reader's table files
// through mmap (index/rocks_database.cc); loading the protected tables'
// primary sets reads a whole family once, and its pages then stay in the
// process's resident set beside the sets built from them (0.6 GB of a
// 1.8 GB peak at 10 million rows with 4 primaries, docs/records.md).
// MADV_DONTNEED drops them from the process: a later read of those bytes
// faults them back in from the page cache, unchanged.
//
// Thread-safety: safe while other threads read through the mappings
// (they refault).
#ifndef LEAKHOUND_INDEX_MAPPED_PAGES_H_
#define LEAKHOUND_INDEX_MAPPED_PAGES_H_

#include <cstddef>
#include <string>

namespace leakhound {

// Drops the resident pages of every read-only mapping of a file under
// `dir` (/proc/self/maps). Returns the bytes of the mappings advised; 0
// when /proc is not readable (nothing is lost then, only not given back).
size_t ReleaseMappedPages(const std::string& dir);

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_MAPPED_PAGES_H_
