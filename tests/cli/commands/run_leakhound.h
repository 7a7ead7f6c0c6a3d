// RunLeakhound: runs the real leakhound binary (test_paths::kBinary) as a
// user would, capturing its exit code, standard output and standard error.
// Optionally with standard input from a string, extra environment, or as
// another user (only when the test runs as root).
//
// Thread-safety: forks; call from the test's main thread.
#ifndef LEAKHOUND_TESTS_CLI_COMMANDS_RUN_LEAKHOUND_H_
#define LEAKHOUND_TESTS_CLI_COMMANDS_RUN_LEAKHOUND_H_

#include <fcntl.h>
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
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd_in = ::open(in.c_str(), O_RDONLY);
    const int fd_out = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fd_err = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd_in, 0);
    ::dup2(fd_out, 1);
    ::dup2(fd_err, 2);
    for (const auto& [k, v] : options.env) ::setenv(k.c_str(), v.c_str(), 1);
    if (options.uid >= 0 &&
        (::setgid(static_cast<gid_t>(options.uid)) != 0 ||
         ::setuid(static_cast<uid_t>(options.uid)) != 0)) {
      ::_exit(127);
    }
    std::vector<char*> argv;
    std::string binary = test_paths::kBinary;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  RunResult r;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
