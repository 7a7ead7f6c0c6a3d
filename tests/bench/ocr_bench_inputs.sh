#!/usr/bin/env bash
# Writes the inputs of tests/bench/ocr_bench.cc into DIR: one page of the
# sample merger memo and of the Chinese supplier contract, laid out by
# corpus/make_formats.py (Pango, Cairo) and rendered by poppler's pdftoppm.
#   bash tests/bench/ocr_bench_inputs.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: ocr_bench_inputs.sh DIR}
mkdir -p "$dir"
make=("/usr/bin/python3" "$root/corpus/make_formats.py")
"${make[@]}" pdf "$root/corpus/sample/protected/merger-memo.txt" "$dir/page.pdf"
"${make[@]}" pdf "$root/corpus/sample/protected/supplier-contract-zh.txt" "$dir/page-zh.pdf"
"${make[@]}" pdf-scan "$root/corpus/sample/protected/merger-memo.txt" "$dir/scan.pdf"
pdftoppm -r 150 -gray -png -singlefile "$dir/page.pdf" "$dir/page-150"
pdftoppm -r 300 -gray -png -singlefile "$dir/page.pdf" "$dir/page-300"
pdftoppm -r 150 -gray -png -singlefile "$dir/page-zh.pdf" "$dir/page-zh-150"
