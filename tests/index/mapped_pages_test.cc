#include "index/mapped_pages.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/temp_dir.h"

namespace leakhound {
namespace {

// The resident kilobytes of the mapping that begins at `at`, from
// /proc/self/smaps.
long ResidentKb(const void* at) {  // NOLINT(runtime/int)
  std::ifstream smaps("/proc/self/smaps");
  char begin[32];
  std::snprintf(begin, sizeof begin, "%lx-",
                reinterpret_cast<unsigned long>(at));  // NOLINT(runtime/int)
  std::string line;
  bool ours = false;
  while (std::getline(smaps, line)) {
    if (line.find('-') != std::string::npos && line[0] != 'R' &&
        std::isxdigit(static_cast<unsigned char>(line[0]))) {
      ours = line.starts_with(begin);
    } else if (ours && line.starts_with("Rss:")) {
      return std::stol(line.substr(4));
    }
  }
  return -1;
}

TEST(MappedPagesTest, TheIndexFilesPagesLeaveTheResidentSetAndReadTheSame) {
  TempDir tmp;
  const std::string path = tmp.Sub("table.sst");
  std::string bytes(4 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::ofstream(path, std::ios::binary) << bytes;
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* map = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  const auto* data = static_cast<const char*>(map);
  const volatile char* touch = data;
  for (size_t i = 0; i < bytes.size(); i += 4096) (void)touch[i];
  EXPECT_GE(ResidentKb(map), 4000);

  EXPECT_GE(ReleaseMappedPages(tmp.path()), bytes.size());
  EXPECT_EQ(ResidentKb(map), 0);
  EXPECT_EQ(std::string(data, bytes.size()), bytes);  // faulted back
  // Files elsewhere are left alone.
  EXPECT_EQ(ReleaseMappedPages(tmp.Sub("none")), 0u);
  ::munmap(map, bytes.size());
  ::close(fd);
}

}  // namespace
}  // namespace leakhound
