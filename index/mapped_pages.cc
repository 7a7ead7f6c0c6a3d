#include "index/mapped_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace leakhound {

size_t ReleaseMappedPages(const std::string& dir) {
  std::error_code ec;
  const std::string real = std::filesystem::canonical(dir, ec).string();
  std::ifstream maps("/proc/self/maps");
  if (!maps || ec || real.empty()) return 0;
  const std::string prefix = real.back() == '/' ? real : real + "/";
  size_t released = 0;
  std::string line;
  while (std::getline(maps, line)) {
    // "begin-end perms offset dev inode path"
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    if (!(fields >> range >> perms >> offset >> device >> inode)) continue;
    std::getline(fields >> std::ws, path);
    if (!path.starts_with(prefix) || perms.size() < 2 || perms[1] != '-') {
      continue;  // another file, or a writable mapping
    }
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(range.c_str(), "%lx-%lx", &begin, &end) != 2 ||
        end <= begin) {
      continue;
    }
    if (::madvise(reinterpret_cast<void*>(begin), end - begin,
                  MADV_DONTNEED) == 0) {
      released += end - begin;
    }
  }
  return released;
}

}  // namespace leakhound
