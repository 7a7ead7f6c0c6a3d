// RunLeakhound: runs the real leakhound binary (test_paths::kBinary) as a
// user would, capturing its exit code, standard output and standard error.
// Optionally with standard input from a string, extra environment, or as
// another user (only when the test runs as root).
//
// The child does only async-signal-safe work between fork and exec (open,
// dup2, setgid, setuid, execve: its arguments and environment are built
// before the fork), since a test may fork while other threads hold locks
// (malloc's, the sanitizers'): a child that allocated could wait on a lock
// nobody will release. A child that has not exited after
// RunOptions::timeout_seconds is killed and reported (exit -1, `err`
// saying so), so that a stuck command fails its test instead of hanging
// it.
//
// Thread-safety: forks; call from the test's main thread.
#ifndef LEAKHOUND_TESTS_CLI_COMMANDS_RUN_LEAKHOUND_H_
#define LEAKHOUND_TESTS_CLI_COMMANDS_RUN_LEAKHOUND_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/temp_dir.h"
#include "tests/test_paths.h"

namespace leakhound {

struct RunResult {
  int exit = -1;
  std::string out;
  std::string err;
};

struct RunOptions {
  std::string stdin_text;
  std::vector<std::pair<std::string, std::string>> env;
  int uid = -1;  // run as this user and group id (REQUIRES: root)
  double timeout_seconds = 240;
};

inline std::string SlurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline RunResult RunLeakhound(const std::vector<std::string>& args,
                              const RunOptions& options = {}) {
  TempDir io;
  const std::string in = io.Sub("in"), out = io.Sub("out"), err = io.Sub("err");
  std::ofstream(in, std::ios::binary) << options.stdin_text;
  if (options.uid >= 0) {
    if (::chown(io.path().c_str(), static_cast<uid_t>(options.uid),
                static_cast<gid_t>(options.uid)) != 0) {
      return {};
    }
  }
  // Everything the child needs, built before the fork.
  std::string binary = test_paths::kBinary;
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  argv.push_back(binary.data());
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : options.env) replaced = replaced || k == name;
    if (!replaced) environment.push_back(entry);
  }
  for (const auto& [k, v] : options.env) environment.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd_in = ::open(in.c_str(), O_RDONLY);
    const int fd_out = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fd_err = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd_in, 0);
    ::dup2(fd_out, 1);
    ::dup2(fd_err, 2);
    if (options.uid >= 0 &&
        (::setgid(static_cast<gid_t>(options.uid)) != 0 ||
         ::setuid(static_cast<uid_t>(options.uid)) != 0)) {
      ::_exit(127);
    }
    ::execve(binary.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  bool timed_out = false;
  for (int waited_ms = 0;; waited_ms += 10) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || done < 0) break;
    if (waited_ms >= options.timeout_seconds * 1000) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    ::usleep(10'000);
  }
  RunResult r;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (timed_out) {
    r.exit = -1;
    r.err = "leakhound " + (args.empty() ? std::string() : args[0]) +
            " did not exit in time: killed\n";
    r.err += SlurpFile(err);
    r.out = SlurpFile(out);
    return r;
  }
  r.out = SlurpFile(out);
  r.err = SlurpFile(err);
  return r;
}

// The sample corpus directory of the source tree.
inline std::string SamplePath(const std::string& relative) {
  return std::string(test_paths::kSourceDir) + "/corpus/sample/" + relative;
}

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_CLI_COMMANDS_RUN_LEAKHOUND_H_
