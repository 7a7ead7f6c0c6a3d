#!/usr/bin/env bash
# Extraction + scan throughput per format, measured on the path a user
# runs: `leakhound scan --threads 2 --json` over the evaluation's format
# variants against the evaluation's main index (run corpus/evaluate.sh
# first). Prints a Markdown table: files, MB, wall seconds, MB/s, files/s
# words of extracted text per second (the unit that compares formats whose
# bytes differ: a zip is small, a PDF large) and CPU use (user + system
# over wall time; 200 % = both cores busy),
# per format, for the plain-text documents they were made from, and for
# one mixed directory of every format.
#
#   bash corpus/format_throughput.sh [EVAL_DIR] [LEAKHOUND]
set -euo pipefail
eval_dir=${1:-build/evaluation}
leakhound=${2:-build/leakhound}
index="$eval_dir/indexes/main"
set_dir="$eval_dir/set"
[[ -d "$index" && -d "$set_dir/formats" ]] || {
  echo "format_throughput: no $index or $set_dir/formats: run corpus/evaluate.sh first" >&2
  exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The text documents the variants were made from (manifest-*.tsv name them).
mkdir -p "$work/text" "$work/mixed"
cut -f2 "$set_dir"/formats/docx/manifest-*.tsv | while read -r f; do
  ln -s "$(realpath "$f")" "$work/text/"
done
for d in "$set_dir"/formats/*/; do
  format=$(basename "$d")
  for f in "$d"*; do
    case "$f" in *.tsv) continue ;; esac
    ln -s "$(realpath "$f")" "$work/mixed/$format-$(basename "$f")"
  done
done

measure() {  # name dir
  local name=$1 dir=$2
  # Symbolic links inside a directory are not followed by scan: pass files.
  find "$dir" -mindepth 1 \( -type f -o -type l \) -printf '%p\n' | sort > "$work/list"
  local files bytes
  files=$(wc -l < "$work/list")
  bytes=$(xargs -a "$work/list" stat -L -c %s | awk '{s += $1} END {print s}')
  local t0 t1
  t0=$(date +%s.%N)
  # exit 1 (leaks found) is expected; 2 would mean errors.
  /usr/bin/time -f "%U %S" -o "$work/cpu" xargs -a "$work/list" \
    "$leakhound" scan --index "$index" --threads 2 --json > "$work/out.jsonl" \
    2> /dev/null || true
  t1=$(date +%s.%N)
  local errors words
  errors=$(grep -c '"verdict":"error"' "$work/out.jsonl" || true)
  words=$(grep -o '"words":[0-9]*' "$work/out.jsonl" | awk -F: '{s += $2} END {print s + 0}')
  awk -v n="$name" -v f="$files" -v b="$bytes" -v t0="$t0" -v t1="$t1" \
      -v e="$errors" -v words="$words" -v cpu="$(tail -1 "$work/cpu")" 'BEGIN {
    split(cpu, c, " "); w = t1 - t0;
    printf "| %s | %d | %.1f | %.2f | %.1f | %.0f | %.2f | %.0f %% | %d |\n",
      n, f, b / 1e6, w, b / 1e6 / w, f / w, words / w / 1e6,
      100 * (c[1] + c[2]) / w, e }'
}

echo "| format | files | MB | wall (s) | MB/s | files/s | million words/s | CPU | errors |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
measure "text (the sources)" "$work/text"
for d in "$set_dir"/formats/*/; do
  mkdir -p "$work/one"
  rm -f "$work/one"/*
  for f in "$d"*; do
    case "$f" in *.tsv) continue ;; esac
    ln -s "$(realpath "$f")" "$work/one/"
  done
  measure "$(basename "$d")" "$work/one"
done
measure "mixed (every format)" "$work/mixed"
