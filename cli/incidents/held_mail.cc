#include "cli/incidents/held_mail.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace leakhound {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;  // standard output and error
};

absl::StatusOr<Ran> Run(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError("cannot create a pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return absl::InternalError(
        absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  Ran ran;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0 ||
         (n < 0 && errno == EINTR)) {
    if (n > 0 && ran.output.size() < 65536)
      ran.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ran.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!ran.output.empty() &&
         std::isspace(static_cast<unsigned char>(ran.output.back()))) {
    ran.output.pop_back();
  }
  return ran;
}

absl::Status CheckQueueId(const std::string& queue_id) {
  bool ok = !queue_id.empty() && queue_id.size() <= 64;
  for (char c : queue_id)
    ok = ok && std::isalnum(static_cast<unsigned char>(c));
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", queue_id, "' is not a Postfix queue id"));
  }
  return absl::OkStatus();
}

std::vector<std::string> Command(const HeldMailOptions& options,
                                 const char* program) {
  std::vector<std::string> argv = {absl::StrCat(options.sbin, "/", program)};
  if (!options.postfix_config.empty()) {
    argv.push_back("-c");
    argv.push_back(options.postfix_config);
  }
  return argv;
}

// Runs postsuper with `flag` on `queue_id`; `done` is the word postsuper
// reports when it acted on a message ("Released", "Deleted").
absl::StatusOr<std::string> Postsuper(const std::string& queue_id,
                                      const HeldMailOptions& options,
                                      const char* flag, const char* done) {
  if (absl::Status s = CheckQueueId(queue_id); !s.ok()) return s;
  std::vector<std::string> argv = Command(options, "postsuper");
  argv.push_back(flag);
  argv.push_back(queue_id);
  auto ran = Run(argv);
  if (!ran.ok()) return ran.status();
  if (ran->exit_code != 0) {
    return absl::InternalError(absl::StrCat("postsuper ", flag, " ", queue_id,
                                            " failed (exit ", ran->exit_code,
                                            "): ", ran->output));
  }
  if (!absl::StrContains(ran->output, done)) {
    return absl::NotFoundError(
        absl::StrCat("Postfix holds no message ", queue_id,
                     " (already released or deleted, or expired)"));
  }
  return std::string(absl::StripPrefix(ran->output, "postsuper: "));
}

}  // namespace

absl::StatusOr<std::string> ReleaseHeldMail(const std::string& queue_id,
                                            const HeldMailOptions& options) {
  auto released = Postsuper(queue_id, options, "-H", "Released");
  if (!released.ok()) return released;
  // Released mail waits in the deferred queue for the next run; ask for
  // its delivery now. A failure here still leaves it released.
  std::vector<std::string> argv = Command(options, "postqueue");
  argv.push_back("-i");
  argv.push_back(queue_id);
  auto flushed = Run(argv);
  if (!flushed.ok() || flushed->exit_code != 0) {
    return absl::StrCat(*released, "; delivery at Postfix's next queue run");
  }
  return released;
}

absl::StatusOr<std::string> DeleteHeldMail(const std::string& queue_id,
                                           const HeldMailOptions& options) {
  return Postsuper(queue_id, options, "-d", "Deleted");
}

absl::StatusOr<std::string> ActOnHeldMail(IncidentStore& store, int64_t id,
                                          bool release, const std::string& user,
                                          const HeldMailOptions& options) {
  auto incident = store.Get(id);
  if (!incident.ok()) return incident.status();
  if (incident->mail_state != "held" || incident->queue_id.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "incident ", id, "'s message is not held (",
        incident->mail_state.empty() ? "it was not quarantined"
                                     : "it was " + incident->mail_state,
        ")"));
  }
  // A message reviewed as a confirmed leak is not sent on by mistake: the
  // review must be undone first (deleting it stays possible).
  if (release && incident->status == "confirmed") {
    return absl::FailedPreconditionError(absl::StrCat(
        "incident ", id, " is resolved as a confirmed leak; set it back to "
        "open before releasing its message"));
  }
  auto done = release ? ReleaseHeldMail(incident->queue_id, options)
                      : DeleteHeldMail(incident->queue_id, options);
  const char* verb = release ? "release" : "delete";
  if (!done.ok()) {
    store
        .Audit(user, absl::StrCat("mail ", verb, " failed"), id,
               std::string(done.status().message()))
        .IgnoreError();
    return done.status();
  }
  if (absl::Status s =
          store.SetMailState(id, release ? "released" : "deleted", user, *done);
      !s.ok()) {
    return s;
  }
  return done;
}

}  // namespace leakhound
