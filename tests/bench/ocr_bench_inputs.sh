#!/usr/bin/env bash
# Writes the inputs of tests/bench/ocr_bench.cc into DIR: one page of the
# sample merger memo and of the Chinese supplier contract, laid out by
# corpus/make_formats.py (Pango, Cairo) and rendered by poppler's pdftoppm.
#   bash tests/bench/ocr_bench_inputs.sh DIR [EVAL_CORPUS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: ocr_bench_inputs.sh DIR [EVAL_CORPUS]}
mkdir -p "$dir"
make=("/usr/bin/python3" "$root/corpus/make_formats.py")
"${make[@]}" pdf "$root/corpus/sample/protected/merger-memo.txt" "$dir/page.pdf"
"${make[@]}" pdf "$root/corpus/sample/protected/supplier-contract-zh.txt" "$dir/page-zh.pdf"
"${make[@]}" pdf-scan "$root/corpus/sample/protected/merger-memo.txt" "$dir/scan.pdf"
pdftoppm -r 150 -gray -png -singlefile "$dir/page.pdf" "$dir/page-150"
pdftoppm -r 300 -gray -png -singlefile "$dir/page.pdf" "$dir/page-300"
pdftoppm -r 150 -gray -png -singlefile "$dir/page-zh.pdf" "$dir/page-zh-150"
# With EVAL_CORPUS (corpus/prepare_corpora.sh's), also the 11-page scans of
# docs/cli.md ("Scanned documents"): 3,800 words of GNU diff's manual and
# then a protected passage (60 words of the merger memo, or 12 lines of
# the Chinese supplier contract) on page 11, as a PDF of 150 dpi page
# images without a text layer. Scan them against an index of
# corpus/sample/protected.
corpus=${2:-}
if [[ -n $corpus ]]; then
  /usr/bin/python3 - "$corpus/gnu/diffutils.info" "$root/corpus/sample/protected" "$dir" <<'PY'
import os, sys
words = open(sys.argv[1], encoding="utf-8", errors="replace").read().split()
host = " ".join(w for w in words if w.isprintable())
host = " ".join(host.split()[:3800])
memo = open(os.path.join(sys.argv[2], "merger-memo.txt")).read().split()
zh = [l for l in open(os.path.join(sys.argv[2], "supplier-contract-zh.txt"))
      .read().splitlines() if l.strip()]
lines = lambda t, n=14: "\n".join(" ".join(t.split()[i:i + n])
                                  for i in range(0, len(t.split()), n))
with open(os.path.join(sys.argv[3], "scan11.txt"), "w") as f:
    f.write(lines(host) + "\n\n" + lines(" ".join(memo[100:160])) + "\n")
with open(os.path.join(sys.argv[3], "scan11-zh.txt"), "w") as f:
    f.write(lines(host) + "\n\n" + "\n".join(zh[:12]) + "\n")
PY
  "${make[@]}" pdf-scan "$dir/scan11.txt" "$dir/scan11.pdf"
  "${make[@]}" pdf-scan "$dir/scan11-zh.txt" "$dir/scan11-zh.pdf"
fi
