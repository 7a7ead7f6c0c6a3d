// `leakhound --version` and unknown commands, through the real binary.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(VersionCommandTest, VersionNamesTheFormatsAndLibraries) {
  for (const char* flag : {"--version", "-V", "version"}) {
    RunResult r = RunLeakhound({flag});
    EXPECT_EQ(r.exit, 0) << flag;
    EXPECT_THAT(r.out, HasSubstr("leakhound 0."));
    EXPECT_THAT(
        r.out,
        HasSubstr(
            "storage format 6, shingler version 4, incident store schema 9"));
    EXPECT_THAT(r.out, HasSubstr("RocksDB "));
    EXPECT_THAT(r.out, HasSubstr("SQLite 3."));
    EXPECT_THAT(r.out, HasSubstr(", libpq 15."));
    EXPECT_THAT(r.out, HasSubstr(", libcurl 7."));
    EXPECT_THAT(r.out, HasSubstr(", OpenSSL 3."));
    EXPECT_THAT(r.out, HasSubstr(", Hyperscan 5."));
  }
  RunResult unknown = RunLeakhound({"frobnicate"});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_EQ(
      unknown.err,
      "leakhound: unknown command 'frobnicate'\nTry 'leakhound --help' for "
      "the commands.\n");
}

}  // namespace
}  // namespace leakhound
