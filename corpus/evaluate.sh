#!/usr/bin/env bash
# The full evaluation in one command (docs/evaluation.md): installs what is
# missing (with gnuplot), builds, prepares the real corpora, runs
# leakhound-eval and draws the figures. Run as root on Debian 12 from the
# repository's top directory.
# Usage: bash corpus/evaluate.sh [OUT_DIR [CONFIG [SEED]]]
#   defaults: build/evaluation, full, 1
set -euo pipefail
out=${1:-build/evaluation}
config=${2:-full}
seed=${3:-1}
bash cmake/install_deps.sh --test --plots
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target leakhound-eval leakhound
bash corpus/prepare_corpora.sh build/eval-corpus
label=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n "$(git status --porcelain 2>/dev/null)" ]]; then
  label="$label (uncommitted changes)"
fi
./build/leakhound-eval --corpus build/eval-corpus --out "$out" \
  --config "$config" --seed "$seed" --label "$label"
(cd "$out" && gnuplot plots.gp)
# Extraction + scan throughput per format, on the path a user runs.
{
  printf '\n## Format throughput (`leakhound scan --threads 2`)\n\n'
  printf 'Measured by `bash corpus/format_throughput.sh %s` after the run above: the\n' "$out"
  printf 'format variants scanned against the main index by the `leakhound` command.\n\n'
  bash corpus/format_throughput.sh "$out" build/leakhound
} >> "$out/report.md"
echo "evaluate: report in $out/report.md" >&2
