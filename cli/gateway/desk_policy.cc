#include "cli/gateway/desk_policy.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/incidents/incident_store.h"
#include "cli/policy/policy_file.h"
#include "index/trusted_path.h"

namespace leakhound {
namespace {

// The cache: "leakhound desk policy v<N>\n" then the text.
constexpr char kCacheHead[] = "leakhound desk policy v";

void WriteCache(const std::string& cache, const PolicyVersion& p) {
  const std::string temp = cache + ".tmp";
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string bytes = absl::StrCat(kCacheHead, p.version, "\n", p.body);
  const bool ok = ::write(fd, bytes.data(), bytes.size()) ==
                      static_cast<ssize_t>(bytes.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(temp.c_str(), cache.c_str()) != 0) ::unlink(temp.c_str());
}

absl::StatusOr<PolicySource::Text> ReadCache(const std::string& cache,
                                             const absl::Status& why) {
  std::ifstream in(cache, std::ios::binary);
  std::string head;
  if (!in || !std::getline(in, head) || !head.starts_with(kCacheHead)) {
    return absl::UnavailableError(absl::StrCat("policy desk: ", why.message(),
                                               "; no cached copy at ", cache));
  }
  int64_t version = 0;
  if (!absl::SimpleAtoi(head.substr(sizeof(kCacheHead) - 1), &version)) {
    return absl::DataLossError(
        absl::StrCat("policy desk: ", cache, " is damaged"));
  }
  std::ostringstream body;
  body << in.rdbuf();
  return PolicySource::Text{absl::StrCat("desk v", version, " (cached)"),
                            body.str(), version};
}

}  // namespace

std::string DeskPolicyCachePath(const std::string& index_dir) {
  return PathBesideIndex(index_dir, ".desk-policy");
}

PolicySource::Reader DeskPolicyReader(std::string store, std::string cache) {
  // What the reader keeps between calls: the desk's connection (reopened
  // after a failure) and the version last written to the cache.
  struct State {
    bool started = false;
    std::unique_ptr<IncidentStore> desk;
    int64_t cached_version = 0;
  };
  auto state = std::make_shared<State>();
  return [store = std::move(store), cache = std::move(cache),
          state]() -> absl::StatusOr<PolicySource::Text> {
    absl::Status opened;
    if (state->desk == nullptr) {
      IncidentStore::Options o;
      o.create = false;
      auto desk = IncidentStore::Open(store, o);
      opened = desk.status();
      if (desk.ok()) state->desk = *std::move(desk);
    }
    absl::StatusOr<PolicyVersion> latest =
        state->desk != nullptr ? state->desk->GetPolicyVersion(0) : opened;
    const bool first = !state->started;
    state->started = true;
    if (!latest.ok()) {
      state->desk.reset();
      // At start the copy kept from the last run; later the running one
      // stays, and the failure is the reload's.
      if (first) return ReadCache(cache, latest.status());
      return absl::UnavailableError(
          absl::StrCat("policy desk: ", latest.status().message()));
    }
    const std::string name = absl::StrCat("desk v", latest->version);
    // Only a policy that parses is kept for the next start, once a version.
    if (latest->version != state->cached_version &&
        ParsePolicy(latest->body, name).ok()) {
      WriteCache(cache, *latest);
      state->cached_version = latest->version;
    }
    return PolicySource::Text{name, latest->body, latest->version};
  };
}

}  // namespace leakhound
