// libFuzzer target for a policy's group files (`{ file = "legal.txt" }`,
// docs/policy.md): the input is the group file, read through CheckPolicy
// as the gateway reads it. Every line is a member or an error naming the
// file and its line; nothing crashes, and every member kept is an address
// pattern the policy accepts.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/policy/policy_file.h"

namespace {

// A folder of this run's own (mode 0700, so the file is trusted).
const std::string& GroupPath() {
  static const std::string path = [] {
    char dir[] = "/tmp/leakhound-fuzz-group-XXXXXX";
    if (::mkdtemp(dir) == nullptr) std::abort();
    return std::string(dir) + "/team.txt";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(GroupPath(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(size));
  }
  const std::string policy = "[groups]\nteam = { file = \"" + GroupPath() +
                             "\" }\n[[rule]]\nname = \"r\"\n"
                             "[[rule.unless]]\nsenders = [\"group:team\"]\n";
  const leakhound::PolicyReport report =
      leakhound::CheckPolicy(policy, "fuzz.toml");
  for (const std::string& e : report.errors) {
    // The policy's line, or the group file's own ("PATH:N: ...").
    if (!e.starts_with("fuzz.toml:") && !e.starts_with(GroupPath() + ":")) {
      std::fprintf(stderr, "an error without FILE:LINE: %s\n", e.c_str());
      std::abort();
    }
  }
  if (report.policy) {
    for (const std::string& m : report.policy->groups.at("team")) {
      if (m.empty() || m.find_first_of(" \t\r\n#") != std::string::npos) {
        std::fprintf(stderr, "a member that is no pattern: '%s'\n", m.c_str());
        std::abort();
      }
    }
  }
  return 0;
}
