#!/usr/bin/env bash
# Prepares the real-text inputs of the benchmarks from Debian packages
# (installed by `bash cmake/install_deps.sh --bench`), one file per document:
#   $1/en  the Python 3.11 documentation sources (reStructuredText, English)
#   $1/zh  the Chinese manual pages of manpages-zh, decompressed (troff)
# Usage: bash tests/bench/prepare_texts.sh DIR
set -euo pipefail
out=${1:?usage: prepare_texts.sh DIR}
rm -rf "$out/en" "$out/zh"
mkdir -p "$out/en" "$out/zh"
src=/usr/share/doc/python3.11/html/_sources
find "$src" -name '*.rst.txt' | sort | while read -r f; do
  rel=${f#"$src"/}
  cp "$f" "$out/en/${rel//\//_}"
done
find /usr/share/man/zh_CN -name '*.gz' | sort | while read -r f; do
  zcat "$f" > "$out/zh/$(basename "$f" .gz)"
done
du -sh "$out/en" "$out/zh"
