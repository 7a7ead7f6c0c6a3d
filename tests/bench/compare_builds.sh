#!/usr/bin/env bash
# Runs one Google Benchmark program of two builds alternately (old, new,
# old, new, ...), pinned to one core, and prints each benchmark's minimum
# and median over every repetition of both, with new/old ratios. For
# changes that must not move a figure (docs/engine.md, "Old and new
# binaries"): a shared machine drifts over minutes, so alternating the two
# binaries several times is fairer than one run of each.
# Usage: tests/bench/compare_builds.sh OLD_BUILD NEW_BUILD PROGRAM ROUNDS
#          [benchmark flags...]
#   e.g. tests/bench/compare_builds.sh ../old/build build pseudo_matrix_bench 5
#          --benchmark_filter='BM_Table1_Query'
set -euo pipefail
if (($# < 4)); then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
old=$1 new=$2 program=$3 rounds=$4
shift 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq "$rounds"); do
  for side in old new; do
    dir=$old
    [[ $side == new ]] && dir=$new
    taskset -c "$(($(nproc) - 1))" "$dir/tests/bench/$program" \
      --benchmark_repetitions=3 --benchmark_format=json "$@" \
      > "$out/$side-$round.json"
  done
done
python3 - "$out" <<'PY'
import collections, glob, json, statistics, sys
times = {"old": collections.defaultdict(list), "new": collections.defaultdict(list)}
for side in times:
    for path in sorted(glob.glob(f"{sys.argv[1]}/{side}-*.json")):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("run_type") == "iteration":
                times[side][b["run_name"]].append((b["real_time"], b["time_unit"]))
print(f"{'benchmark':46s} {'old min':>10s} {'new min':>10s} {'ratio':>6s}"
      f" {'old median':>11s} {'new median':>11s} {'ratio':>6s}")
for name, old in times["old"].items():
    new = times["new"][name]
    unit = old[0][1]
    a, b = [t for t, _ in old], [t for t, _ in new]
    print(f"{name:46s} {min(a):8.4g}{unit:>2s} {min(b):8.4g}{unit:>2s} "
          f"{min(b) / min(a):6.3f} {statistics.median(a):9.4g}{unit:>2s} "
          f"{statistics.median(b):9.4g}{unit:>2s} "
          f"{statistics.median(b) / statistics.median(a):6.3f}")
PY
