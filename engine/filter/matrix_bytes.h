// MatrixBytes: the zeroed memory block behind a RowMatrix layout. Blocks of
// 64 MB and more are 2 MiB aligned, rounded up to whole 2 MiB pages and
// advised to be backed by transparent huge pages; smaller ones are only
// cache-line aligned (they are mostly in cache, and the rounding would cost
// more memory than the TLB misses cost time).
//
// Why both layouts use it: the bit-sliced query touches k slices at random
// places of hundreds of MB, where each touch on a 4 KiB page is also a TLB
// miss; the row-major scan streams, and the hardware prefetchers stop at
// page boundaries. A baseline on small pages would make the comparison
// between the two layouts unfair.
//
// Thread-safety: a MatrixBytes is a plain owning buffer, not synchronized.
#ifndef LEAKHOUND_ENGINE_FILTER_MATRIX_BYTES_H_
#define LEAKHOUND_ENGINE_FILTER_MATRIX_BYTES_H_

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace leakhound {

struct MatrixBytesDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};
using MatrixBytes = std::unique_ptr<unsigned char[], MatrixBytesDeleter>;

// Returns `n` zeroed bytes (at least one cache line), aligned as above.
// Aborts when out of memory, as operator new would.
MatrixBytes AllocateMatrixBytes(size_t n);

// The bytes AllocateMatrixBytes(n) really takes, after rounding.
size_t AllocatedMatrixBytes(size_t n);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_MATRIX_BYTES_H_
