#include "cli/gateway/daemon_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace leakhound {
namespace {

// A subject, a file name or a URL in a line cannot forge another line or
// send escape sequences to whoever reads the log.
TEST(DaemonLogTest, EachWriteIsOneLineWithControlsEscaped) {
  std::vector<std::string> lines;
  auto log = DaemonLog::WritingTo(
      "leakhound web", [&lines](const std::string& l) { lines.push_back(l); });
  log->Write("refused http://x/a\nCEF:0|forged\x1b[2J \xc2\x9b" "1m");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "leakhound web: refused http://x/a\\x0aCEF:0|forged\\x1b[2J "
            "\\u009b1m");
}

}  // namespace
}  // namespace leakhound
