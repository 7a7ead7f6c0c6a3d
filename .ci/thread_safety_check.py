#!/usr/bin/env python3
"""Checks that clang's thread-safety analysis guards leakhound's build.

Every source of shingler/, engine/, index/ and cli/ is compiled with
-Wthread-safety -Werror=thread-safety when the compiler is clang
(cmake/LeakhoundWarnings.cmake): an access to an ABSL_GUARDED_BY member
without its mutex, or a call to an ABSL_EXCLUSIVE_LOCKS_REQUIRED method
without it, fails the build. CI's sanitizer stage is such a clang build;
this script, run on its configured tree before it builds, proves the
analysis is in force there:
  1. the compiler rejects a probe reading a guarded member unlocked, with
     the flags the tree uses;
  2. every own source's compile command in compile_commands.json carries
     both flags (a target that dropped them would go unchecked).
The build then does the analysis itself, no second compile of anything.
Usage: .ci/thread_safety_check.py BUILD_DIR   (a clang tree configured
with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ("-Wthread-safety", "-Werror=thread-safety")
OWN = ("shingler", "engine", "index", "cli")
PROBE = """
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
class Probe {
 public:
  int Read() const { return value_; }  // no lock: must be rejected
 private:
  mutable absl::Mutex mu_;
  int value_ ABSL_GUARDED_BY(mu_) = 0;
};
int main() { return Probe().Read(); }
"""


def fail(message):
    print("thread-safety check: " + message, file=sys.stderr)
    return 1


def main():
    if len(sys.argv) != 2:
        return fail("usage: thread_safety_check.py BUILD_DIR")
    build = sys.argv[1]
    path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(path):
        return fail(path + " is missing: configure with "
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    entries = json.load(open(path))
    own = [e for e in entries
           if os.path.relpath(e["file"], ROOT).split(os.sep)[0] in OWN]
    if not own:
        return fail("no source of " + ", ".join(OWN) + " in " + path)
    # A source some test target compiles again (fuzz_locations) counts
    # when one of its commands carries the flags.
    checked = {e["file"] for e in own
               if all(f in shlex.split(e["command"]) for f in FLAGS)}
    unchecked = sorted({e["file"] for e in own} - checked)
    for f in unchecked:
        print("thread-safety check: compiled without " + " ".join(FLAGS) +
              ": " + f, file=sys.stderr)
    # The probe, compiled as the first own source is (its compiler, its
    # flags), must be rejected by the analysis.
    args = shlex.split(own[0]["command"])
    compiler = [a for a in args if a.endswith(("clang++", "clang++-14"))]
    if not compiler:
        return fail("the tree is not built by clang: " + args[0])
    with tempfile.NamedTemporaryFile("w", suffix=".cc", delete=False) as f:
        f.write(PROBE)
    done = subprocess.run(
        [compiler[0], "-std=c++20", "-fsyntax-only", *FLAGS, f.name],
        capture_output=True, text=True)
    os.unlink(f.name)
    if done.returncode == 0 or "requires holding mutex" not in done.stderr:
        return fail("the probe was not rejected; the analysis is not running")
    print(f"thread-safety check: {len(checked)} sources built with {' '.join(FLAGS)}"
          f", {len(unchecked)} without; the probe was rejected")
    return 1 if unchecked else 0


if __name__ == "__main__":
    sys.exit(main())
