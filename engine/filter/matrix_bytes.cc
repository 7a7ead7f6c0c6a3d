#include "engine/filter/matrix_bytes.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace leakhound {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeFrom = size_t{64} << 20;  // rounding costs <= 3 %

size_t Alignment(size_t n) { return n >= kHugeFrom ? kHugePage : 64; }

}  // namespace

size_t AllocatedMatrixBytes(size_t n) {
  const size_t align = Alignment(n);
  return std::max<size_t>((n + align - 1) / align * align, align);
}

MatrixBytes AllocateMatrixBytes(size_t n) {
  const size_t bytes = AllocatedMatrixBytes(n);
  const size_t align = Alignment(n);
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(align, bytes));
  if (p == nullptr) std::abort();
  if (align == kHugePage) {
    madvise(p, bytes, MADV_HUGEPAGE);  // advisory: failure only costs speed
  }
  std::memset(p, 0, bytes);
  return MatrixBytes(p);
}

}  // namespace leakhound
