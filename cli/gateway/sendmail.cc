#include "cli/gateway/sendmail.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace leakhound {
namespace {

// Writes `data` to `fd` whole, with SIGPIPE blocked in this thread: a
// reader that exits early fails the write with EPIPE. A SIGPIPE left
// pending is taken before the mask is restored.
bool WriteAll(int fd, const std::string& data) {
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (done < data.size() && !sigismember(&old, SIGPIPE)) {
    const timespec none{0, 0};
    while (sigtimedwait(&pipe_signal, nullptr, &none) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return done == data.size();
}

}  // namespace

bool IsMailbox(std::string_view address) {
  const size_t at = address.rfind('@');
  if (at == std::string_view::npos || address.size() > 254) return false;
  const std::string_view local = address.substr(0, at);
  const std::string_view domain = address.substr(at + 1);
  const auto atext = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           static_cast<unsigned char>(c) >= 0x80 ||
           std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) !=
               std::string_view::npos;
  };
  const auto dotted = [](std::string_view s, auto allowed) {
    if (s.empty() || s.front() == '.' || s.back() == '.') return false;
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] == '.' ? s[k + 1] == '.' : !allowed(s[k])) return false;
    }
    return true;
  };
  const auto label_char = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
           static_cast<unsigned char>(c) >= 0x80;
  };
  return dotted(local, atext) && dotted(domain, label_char) &&
         local.size() <= 64 && local.front() != '-' && domain.front() != '-';
}

absl::Status SendMail(const std::vector<std::string>& command,
                      const std::string& to, const std::string& mail) {
  if (!IsMailbox(to)) {
    // One address per argument: Postfix's sendmail would read
    // "victim@x,evil@y" as two.
    return absl::InvalidArgumentError("not one mailbox (RFC 5321)");
  }
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return absl::InternalError("no pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv = command;
  for (const char* a : {"-i", "-f", "<>", "--"}) argv.emplace_back(a);
  argv.push_back(to);
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  if (spawned != 0) {
    ::close(in[1]);
    return absl::UnavailableError(
        absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  const bool written = WriteAll(in[1], mail);
  ::close(in[1]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!written || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::UnavailableError(
        absl::StrCat(argv[0], " failed (exit ",
                     WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, ")"));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
