// `leakhound milter`'s command line and --config file, through the real
// binary (serving mail is tested against Postfix:
// tests/cli/milter/postfix_integration_test.py).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cli/milter/milter_server.h"
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/commands/run_leakhound.h"
#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(MilterCommandTest, ConfigFileOptionsAreCheckedAndTheCommandLineWins) {
  TempDir tmp;
  const std::string config = tmp.Sub("milter.conf");
  std::ofstream(config) << "# a comment\n"
                           "index = " << tmp.Sub("no-index") << "\n"
                           "on-leak = drop\n";
  RunResult bad = RunLeakhound({"milter", "--config", config, "--socket",
                                "inet:1@127.0.0.1"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_THAT(bad.err,
              HasSubstr(config + ":3: --on-leak: unknown action 'drop'"));
  // The command line overrides the file: the action is fine now, and the
  // next problem is the missing index.
  RunResult overridden =
      RunLeakhound({"milter", "--config", config, "--on-leak", "tag",
                    "--socket", "inet:1@127.0.0.1"});
  EXPECT_EQ(overridden.exit, 2);
  EXPECT_THAT(overridden.err, HasSubstr("no leakhound index at"));

  std::ofstream(config) << "= value without a name\n";
  RunResult malformed = RunLeakhound({"milter", "--config", config});
  EXPECT_EQ(malformed.exit, 2);
  EXPECT_THAT(malformed.err, HasSubstr(config + ":1: expected 'name = value'"));

  // A misspelt or misused option is named with its file and line.
  std::ofstream(config) << "on-leak = reject\nbogus = 1\n";
  RunResult unknown = RunLeakhound({"milter", "--config", config});
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_THAT(unknown.err, HasSubstr(config + ":2: unknown option 'bogus'"));
  // A bad value is named with its file and line too (the admin's typos of
  // issue 49), unless the command line overrode it.
  std::ofstream(config) << "on-leak = qaurantine\nmax-wait = 30s\n"
                           "incidents = off\n";
  RunResult typo = RunLeakhound({"milter", "--config", config, "--socket",
                                 "inet:1@127.0.0.1"});
  EXPECT_THAT(typo.err, HasSubstr(config + ":2: --max-wait must be a number"));
  RunResult action = RunLeakhound({"milter", "--config", config, "--socket",
                                   "inet:1@127.0.0.1", "--max-wait", "30"});
  EXPECT_THAT(action.err,
              HasSubstr(config + ":1: --on-leak: unknown action 'qaurantine'"));
  RunResult given = RunLeakhound({"milter", "--config", config, "--socket",
                                  "inet:1@127.0.0.1", "--max-wait", "x"});
  EXPECT_THAT(given.err, HasSubstr("leakhound milter: --max-wait must be"));
  std::ofstream(config) << "\n\nshow-matches = yes\n";
  RunResult flag = RunLeakhound({"milter", "--config", config});
  EXPECT_THAT(flag.err,
              HasSubstr(config + ":3: 'show-matches' takes no value"));
}

TEST(MilterCommandTest, SocketIsRequiredAndHelpListsTheActions) {
  RunResult none = RunLeakhound({"milter", "--index", "/nonexistent"});
  EXPECT_EQ(none.exit, 2);
  EXPECT_THAT(none.err, HasSubstr("no --socket given"));
  RunResult help = RunLeakhound({"milter", "--help"});
  EXPECT_EQ(help.exit, 0);
  EXPECT_THAT(help.out, HasSubstr("--on-leak ACTION       reject (default), "
                                  "quarantine, tag, accept, tempfail"));
}

// libmilter would take `--socket 19591` as a file ./19591: refused with a
// sentence, before the index is opened.
TEST(MilterCommandTest, ASocketThatIsNoAddressIsRefusedWithTheFix) {
  TempDir tmp;
  for (const char* bad : {"19591", "unix:sock", "inet:port@127.0.0.1",
                          "inet:70000@127.0.0.1", "tcp:25"}) {
    RunResult r = RunLeakhound(
        {"milter", "--index", "/nonexistent", "--socket", bad},
        RunOptions{.stdin_text = "", .env = {}, .uid = -1});
    EXPECT_EQ(r.exit, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr(std::string("--socket ") + bad + ": "))
        << bad;
    EXPECT_THAT(r.err, HasSubstr("unix:/PATH for a socket file")) << bad;
    EXPECT_FALSE(std::filesystem::exists(bad)) << bad;
  }
  RunResult number = RunLeakhound(
      {"milter", "--index", "/nonexistent", "--socket", "19591"});
  EXPECT_THAT(number.err, HasSubstr("e.g. inet:19591@127.0.0.1"));
  // A good address gets past the check (to the missing index).
  RunResult good = RunLeakhound(
      {"milter", "--index", "/nonexistent", "--socket", "inet:19591@127.0.0.1"});
  EXPECT_THAT(good.err, HasSubstr("no leakhound index"));
}

// The help's defaults are written in the option table; they must be the
// ones the daemon uses (MilterPolicy's).
TEST(MilterCommandTest, HelpStatesThePolicysDefaults) {
  RunResult help = RunLeakhound({"milter", "--help"});
  const MilterPolicy policy;
  EXPECT_THAT(help.out,
              HasSubstr(absl::StrCat("bytes buffered per message (default ",
                                     policy.max_message_bytes, ")")));
  EXPECT_THAT(help.out, HasSubstr(absl::StrCat(
                            "seconds a message waits for its turn (default ",
                            policy.max_wait_seconds, ")")));
}

// A unix socket is created mode 0660 (owner and the MTA's group), as
// documented; a --pidfile that is a symbolic link is refused and the file
// it points to left as it was (a daemon started as root must not truncate
// it).
TEST(MilterCommandTest, AUnixSocketIsMode0660AndAPidfileLinkIsRefused) {
  TempDir tmp;
  const std::string index = tmp.Sub("index"), sock = tmp.Sub("milter.sock");
  ASSERT_EQ(RunLeakhound({"init", "--index", index}).exit, 0);
  const std::string target = tmp.Sub("precious"), link = tmp.Sub("pid-link");
  std::ofstream(target) << "keep me\n";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  RunResult linked = RunLeakhound({"milter", "--index", index, "--socket",
                                   "unix:" + sock, "--pidfile", link});
  EXPECT_EQ(linked.exit, 2);
  EXPECT_THAT(linked.err, HasSubstr("--pidfile " + link +
                                    ": a symbolic link; refused"));
  EXPECT_EQ(SlurpFile(target), "keep me\n");

  const std::string pidfile = tmp.Sub("milter.pid"), log = tmp.Sub("log");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    const std::string spec = "unix:" + sock;
    ::execl(test_paths::kBinary, "leakhound", "milter", "--index", index.c_str(),
            "--socket", spec.c_str(), "--pidfile", pidfile.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  struct stat st {};
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {  // 10 s at most
    up = ::stat(sock.c_str(), &st) == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string written = SlurpFile(pidfile);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(up) << "the milter did not create its socket";
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(written, std::to_string(pid) + "\n");
  // The index is empty: the milter says so, and counts its documents.
  const std::string said = SlurpFile(log);
  EXPECT_THAT(said, HasSubstr("warning: the index " + index +
                              " protects no documents yet"));
  EXPECT_THAT(said, HasSubstr(" generation 0, 0 documents, on-leak reject"));
}

}  // namespace
}  // namespace leakhound
