#!/usr/bin/env bash
# Seed 004's comparison of the SKIP Bloom filter with the decaying Bloom
# filter on a real stream: every URL occurrence in the documentation Debian
# packages install, in file order (corpus/collect_urls.py --stream).
#
# Usage: bash corpus/stream_experiment.sh BUILD OUT_DIR [WINDOW]
#   BUILD   a build directory holding ./leakhound-stream-experiment
#   WINDOW  the duplicate window w in elements (default 1,000)
# Writes OUT_DIR/stream.txt, report.md, fig4.png and fig5.png.
set -euo pipefail
build=${1:?usage: stream_experiment.sh BUILD OUT_DIR [WINDOW]}
out=${2:?usage: stream_experiment.sh BUILD OUT_DIR [WINDOW]}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
/usr/bin/python3 "$here/collect_urls.py" --stream "$out/stream.txt" 1000000
"$build/leakhound-stream-experiment" "$out/stream.txt" "$out" ${3:-} >/dev/null
(cd "$out" && gnuplot plots.gp)
cat "$out/report.md"
