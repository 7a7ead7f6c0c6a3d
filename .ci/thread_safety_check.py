#!/usr/bin/env python3
"""Clang's thread-safety analysis over leakhound's own sources.

Configures a clang build tree (build-tsa), then compiles every source of
shingler/, engine/, index/ and cli/ with -fsyntax-only -Wthread-safety
-Werror=thread-safety (nothing is linked: a check, not a build): an access
to an ABSL_GUARDED_BY member without its mutex, or a call to an
ABSL_EXCLUSIVE_LOCKS_REQUIRED method without it, fails. First it proves
that it can fail: a probe reading a guarded member unlocked must be
rejected. Usage: .ci/thread_safety_check.py [BUILD_DIR]   (from the repo)
"""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-tsa")
CHECK = ["-fsyntax-only", "-Wno-everything", "-Wthread-safety",
         "-Werror=thread-safety"]
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


def run(command):
    done = subprocess.run(command, cwd=BUILD, capture_output=True, text=True)
    return done.returncode, done.stderr


def main():
    subprocess.run(
        ["cmake", "-S", ROOT, "-B", BUILD, "-G", "Ninja",
         "-DCMAKE_CXX_COMPILER=clang++-14",
         "-DCMAKE_BUILD_TYPE=Debug", "-DLEAKHOUND_BUILD_TESTS=OFF",
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
        check=True, stdout=subprocess.DEVNULL)
    with tempfile.NamedTemporaryFile("w", suffix=".cc", delete=False) as f:
        f.write(PROBE)
    code, err = run(["clang++-14", "-std=c++20", *CHECK, f.name])
    os.unlink(f.name)
    if code == 0 or "requires holding mutex" not in err:
        print("thread-safety check: the probe was not rejected; the "
              "analysis is not running", file=sys.stderr)
        return 1
    entries = json.load(open(os.path.join(BUILD, "compile_commands.json")))
    own = [e for e in entries
           if os.path.relpath(e["file"], ROOT).split(os.sep)[0]
           in ("shingler", "engine", "index", "cli")]
    commands = []
    for e in own:
        args = shlex.split(e["command"])
        if "-o" in args:  # drop "-o OBJECT"
            i = args.index("-o")
            del args[i:i + 2]
        commands.append(args + CHECK)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for e, (code, err) in zip(own, pool.map(run, commands)):
            if code != 0:
                failed += 1
                sys.stderr.write(err)
    print(f"thread-safety check: {len(own)} sources, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
