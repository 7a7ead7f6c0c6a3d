#!/usr/bin/env bash
# Row capacity at equal memory on an index larger than the real corpora
# (docs/results.md, "Row capacity"): generates DOCS synthetic documents of
# 15,000 words each (Zipf-distributed draws from 30,000 random words, fixed
# seed: about 113 MB for 1,000), protects them in two indexes (row capacity
# 4,096 and 1,024, the default false-positive rate, so the same bits per
# fingerprint), and scans the outbound documents of an evaluation run with
# each, one file at a time on one thread. The outbound documents share no
# text with the synthetic ones: this measures the cost of a clean mail, the
# common case, which at this size is mostly the filter's.
# Usage: bash corpus/row_capacity_at_scale.sh [OUT_DIR [OUTBOUND_DIR [DOCS]]]
#   defaults: build/scale, build/evaluation/set/outbound, 1000
# Needs ./build/leakhound (README) and an evaluation run (corpus/evaluate.sh).
set -euo pipefail
out=${1:-build/scale}
outbound=${2:-build/evaluation/set/outbound}
docs=${3:-1000}
bin=./build/leakhound
if [[ ! -x $bin || ! -d $outbound ]]; then
  echo "row_capacity_at_scale: needs $bin and $outbound" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out/docs"
awk -v docs="$docs" -v dir="$out/docs" 'BEGIN {
  srand(5)
  n = 30000
  for (i = 1; i <= n; ++i) {
    len = 3 + int(rand() * 8); w = ""
    for (j = 0; j < len; ++j) w = w sprintf("%c", 97 + int(rand() * 26))
    word[i] = w
    total += 1 / i; cum[i] = total
  }
  for (d = 0; d < docs; ++d) {
    file = sprintf("%s/d%04d.txt", dir, d); line = ""
    for (k = 1; k <= 15000; ++k) {
      x = rand() * total; lo = 1; hi = n
      while (lo < hi) { mid = int((lo + hi) / 2); if (cum[mid] < x) lo = mid + 1; else hi = mid }
      line = line (line == "" ? "" : " ") word[lo]
      if (k % 12 == 0) { print line "." > file; line = "" }
    }
    close(file)
  }
}'
echo "row_capacity_at_scale: $(du -sh "$out/docs" | cut -f1) of documents" >&2
for n in 4096 1024; do
  index="$out/index-$n"
  "$bin" init --index "$index" --row-capacity "$n" > /dev/null
  "$bin" add --index "$index" "$out/docs" > /dev/null
  "$bin" stats --index "$index" | grep -E '^(fingerprints|rows) '
  # Exit 1 would mean a leak; none is expected.
  "$bin" scan --index "$index" --threads 1 --json "$outbound" \
    > "$out/scan-$n.json" 2> /dev/null || [[ $? -eq 1 ]]
  grep -o '"elapsed_ms":[0-9.]*' "$out/scan-$n.json" | cut -d: -f2 | sort -g |
    awk -v n="$n" '{ v[NR] = $1; s += $1 }
      END { printf "n = %s: %d files, median %.2f ms, p99 %.2f ms, mean %.2f ms\n",
                   n, NR, v[int(NR / 2) + 1], v[int(NR * 0.99) + 1], s / NR }'
done
