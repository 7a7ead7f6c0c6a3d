#!/usr/bin/env python3
"""The rooms' rules (docs/architecture.md, "Room rules"), checked on the tree:

  - no function of shingler/, engine/, index/ or cli/ over 100 lines, from
    its first line to its end line as Universal Ctags reports them;
  - no .cc or .h file of engine/ or index/ over 600 lines, none of cli/ over
    900;
  - no include circle between units (a unit is a .h and its .cc: unit A
    depends on unit B when A's header or source includes B's header).

Usage: room_rules.py [SOURCE_DIR]. Prints each breach on one line and exits
1 when there is any, 0 otherwise; 2 when ctags is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys

MAX_FUNCTION_LINES = 100
FILE_LIMITS = {"engine": 600, "index": 600, "cli": 900}
ROOMS = ("shingler", "engine", "index", "cli")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root):
    for room in ROOMS:
        for folder, _, names in os.walk(os.path.join(root, room)):
            for name in sorted(names):
                if name.endswith((".cc", ".h")):
                    yield os.path.relpath(os.path.join(folder, name), root)


def long_functions(root, files):
    out = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+ne", "--kinds-C++=f",
         "--language-force=C++", "-f", "-"] + files,
        cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if "end" not in tag:
            continue
        length = tag["end"] - tag["line"] + 1
        if length > MAX_FUNCTION_LINES:
            yield (f"{tag['path']}:{tag['line']}: function {tag['name']} has "
                   f"{length} lines (at most {MAX_FUNCTION_LINES})")


def long_files(root, files):
    for path in files:
        limit = FILE_LIMITS.get(path.split("/")[0])
        if limit is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            yield f"{path}: {lines} lines (at most {limit})"


def include_circles(root, files):
    unit = lambda path: os.path.splitext(path)[0]
    units = {unit(p) for p in files}
    edges = {u: set() for u in units}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m and unit(m.group(1)) in units and unit(m.group(1)) != unit(path):
                    edges[unit(path)].add(unit(m.group(1)))
    # Tarjan's strongly connected components; each of more than one unit is
    # a circle.
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(u):
        index[u] = low[u] = counter[0]
        counter[0] += 1
        stack.append(u)
        on.add(u)
        for v in sorted(edges[u]):
            if v not in index:
                visit(v)
                low[u] = min(low[u], low[v])
            elif v in on:
                low[u] = min(low[u], index[v])
        if low[u] == index[u]:
            component = []
            while True:
                v = stack.pop()
                on.discard(v)
                component.append(v)
                if v == u:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for u in sorted(units):
        if u not in index:
            visit(u)
    for component in found:
        yield "include circle: " + " <-> ".join(component)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    if shutil.which("ctags") is None:
        print("room_rules.py: ctags (universal-ctags) is not installed",
              file=sys.stderr)
        return 2
    files = sorted(sources(root))
    breaches = (list(long_functions(root, files)) + list(long_files(root, files))
                + list(include_circles(root, files)))
    for b in breaches:
        print(b)
    print(f"room_rules.py: {len(files)} files, {len(breaches)} breaches",
          file=sys.stderr)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
