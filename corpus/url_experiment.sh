#!/usr/bin/env bash
# The URL filter experiments of seeds 000 (multi-layer Bloom filter, Fig. 5)
# and 001 (linear search, binary search, hash table, Bloom filter, MLBF) on
# URLs from the documentation Debian packages install
# (corpus/collect_urls.py), twice:
#   OUT_DIR/real      every distinct real URL, counts and m scaled down to
#                     load the filters as the paper's 3M URLs do;
#   OUT_DIR/expanded  3M URLs at the paper's sizes: the real ones and URLs
#                     made of a real host and a real path.
# Each gets urls.txt(.info), report.md, fig5.dat and fig5.png.
#
# Usage: bash corpus/url_experiment.sh BUILD OUT_DIR
#   BUILD  a build directory holding ./leakhound-url-experiment
set -euo pipefail
build=${1:?usage: url_experiment.sh BUILD OUT_DIR}
out=${2:?usage: url_experiment.sh BUILD OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
for run in real:0 expanded:3000000; do
  dir="$out/${run%%:*}"
  mkdir -p "$dir"
  /usr/bin/python3 "$here/collect_urls.py" "$dir/urls.txt" "${run#*:}"
  cat "$dir/urls.txt.info"
  "$build/leakhound-url-experiment" "$dir/urls.txt" "$dir" >/dev/null
  (cd "$dir" && gnuplot plots.gp)
  cat "$dir/report.md"
done
