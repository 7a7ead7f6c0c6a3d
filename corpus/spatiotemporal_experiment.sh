#!/usr/bin/env bash
# Seed 003's tables (seeded hashing, temporal re-seeding, the spatial and
# spatio-temporal schemes) on URLs from the documentation Debian packages
# install: the thesis inserts 1M URLs and queries 1M others, so the 2M are
# the real ones and URLs made of a real host and a real path
# (corpus/collect_urls.py, as for the MLBF experiment).
#
# Usage: bash corpus/spatiotemporal_experiment.sh BUILD OUT_DIR
# Writes OUT_DIR/urls.txt(.info), report.md and temporal.png.
set -euo pipefail
build=${1:?usage: spatiotemporal_experiment.sh BUILD OUT_DIR}
out=${2:?usage: spatiotemporal_experiment.sh BUILD OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
/usr/bin/python3 "$here/collect_urls.py" "$out/urls.txt" 2000000
cat "$out/urls.txt.info"
"$build/leakhound-spatiotemporal-experiment" "$out/urls.txt" "$out" >/dev/null
(cd "$out" && gnuplot plots.gp)
cat "$out/report.md"
