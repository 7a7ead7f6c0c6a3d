#include "index/writer_lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

// flock(2) locks belong to the open file description, so a second Acquire
// in the same process conflicts just as another process would.
TEST(WriterLockTest, SecondWriterIsToldWhichPidHoldsTheLock) {
  TempDir dir;
  auto first = WriterLock::Acquire(dir.path());
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = WriterLock::Acquire(dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("locked by pid " + std::to_string(::getpid())));
}

TEST(WriterLockTest, LockIsFreeAgainAfterRelease) {
  TempDir dir;
  { ASSERT_TRUE(WriterLock::Acquire(dir.path()).ok()); }
  EXPECT_TRUE(WriterLock::Acquire(dir.path()).ok());
}

TEST(WriterLockTest, LockOfAKilledProcessIsReleased) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = WriterLock::Acquire(dir.path());
    const char c = lock.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();  // until killed
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  auto while_held = WriterLock::Acquire(dir.path());
  EXPECT_THAT(std::string(while_held.status().message()),
              HasSubstr("locked by pid " + std::to_string(child)));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(WriterLock::Acquire(dir.path()).ok());
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(WriterLockTest, MissingDirectoryIsAnError) {
  TempDir dir;
  auto lock = WriterLock::Acquire(dir.Sub("absent"));
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace leakhound
