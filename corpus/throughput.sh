#!/usr/bin/env bash
# End-to-end throughput of the leakhound command, as a user runs it (issue
# 20): add, batch scans of a leak-free and of a quoting directory, and one
# large file on one thread. Inputs: corpus/throughput_sets.py over the
# prepared corpora (Linux 6.1 and Python 3.11 documentation).
#
# Usage: bash corpus/throughput.sh BUILD [BASELINE_LEAKHOUND]
#   BUILD               a build directory holding ./leakhound
#   BASELINE_LEAKHOUND  another leakhound binary measured the same way in
#                       the same run (e.g. one built from an older commit),
#                       for ratios
# Environment: INIT_ARGS and BASELINE_INIT_ARGS, extra `init` options of
# this build's and the baseline's indexes (e.g. "--row-capacity 128
# --row-groups 256" against "--row-capacity 128": the same binary twice).
# Prints a Markdown table: wall time (best of 3), MB/s of input, CPU and
# peak RSS, and what each scan found.
set -euo pipefail
build=${1:?usage: throughput.sh BUILD [BASELINE_LEAKHOUND]}
baseline=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
corpora="$build/eval-corpus"
bash "$here/prepare_corpora.sh" "$corpora"
work=$(mktemp -d /tmp/leakhound-throughput.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/throughput_sets.py" "$corpora" "$work/sets"
sets="$work/sets"

mb() { du -sb "$1" | awk '{printf "%.1f", $1 / 1e6}'; }
files() { find "$1" -type f | wc -l; }

# run LABEL BIN ARGS...: best wall time of 3 runs; prints a table row.
run() {
  local label=$1 bin=$2 input=$3
  shift 3
  local best="" line
  for _ in 1 2 3; do
    if [[ $label == add* ]]; then
      rm -rf "$work/index"
      local init_args=${INIT_ARGS:-}
      [[ $bin == "$baseline" ]] && init_args=${BASELINE_INIT_ARGS:-}
      # shellcheck disable=SC2086  # the options are words
      "$bin" init --index "$work/index" $init_args >/dev/null
    fi
    /usr/bin/time -f "%e %P %M" -o "$work/time" \
      "$bin" "$@" >"$work/out" 2>"$work/err" || true
    line=$(cat "$work/time" | tail -1)
    if [[ -z $best ]] || awk -v a="${line%% *}" -v b="${best%% *}" \
        'BEGIN{exit !(a < b)}'; then
      best=$line
    fi
  done
  read -r wall cpu rss <<<"$best"
  local found
  found=$(tail -1 "$work/out" | cut -c1-70)
  local who="this build"
  [[ $bin == "$baseline" ]] && who="baseline"
  printf '| %s | %s | %s MB, %s files | %s | %.1f | %s | %.0f | %s |\n' \
    "$label" "$who" \
    "$(mb "$input")" "$(files "$input")" "$wall" \
    "$(awk -v b="$(du -sb "$input" | cut -f1)" -v w="$wall" \
        'BEGIN{print b / 1e6 / w}')" "$cpu" "$((rss / 1024))" "$found"
}

echo "| step | binary | input | wall s | MB/s | CPU | peak RSS MB | result (last line) |"
echo "|---|---|---|---|---|---|---|---|"
for bin in ${baseline:+"$baseline"} "$build/leakhound"; do
  run "add (default threads: 2)" "$bin" "$sets/protected" \
    add --index "$work/index" "$sets/protected"
  # The scans use the index the last add left.
  run "scan --threads 2, leak-free" "$bin" "$sets/clean" \
    scan --index "$work/index" --threads 2 "$sets/clean"
  run "scan --threads 2, quoting" "$bin" "$sets/quoting" \
    scan --index "$work/index" --threads 2 "$sets/quoting"
  run "scan --threads 1, one file, leak-free" "$bin" "$sets/big-clean.txt" \
    scan --index "$work/index" --threads 1 "$sets/big-clean.txt"
  run "scan --threads 1, one file, quoting" "$bin" "$sets/big-quoting.txt" \
    scan --index "$work/index" --threads 1 "$sets/big-quoting.txt"
done
