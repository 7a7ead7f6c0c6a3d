#!/usr/bin/env bash
# Prepares the real documents of the evaluation and the benchmarks from
# Debian packages (cmake/install_deps.sh installs them), one file each:
#   DIR/python/*.txt  Python 3.11 documentation sources (reStructuredText)
#   DIR/gnu/*.info    GNU manuals (coreutils, grep, sed, gzip, diffutils,
#                     findutils) in Info format; the evaluation splits them
#                     into nodes
#   DIR/zh/*.txt      Chinese manual pages (manpages-zh, zh_CN: simplified)
#                     rendered to UTF-8 text by groff
#   DIR/zh_tw/*.txt   the same for zh_TW (traditional characters)
#   DIR/han/to_traditional.tsv, to_simplified.tsv
#                     "character TAB variant" lines: what ICU's
#                     Simplified-Traditional transform (uconv) changes in
#                     zh/, and Traditional-Simplified in zh_tw/
#   DIR/kernel/*.txt  Linux 6.1 documentation sources (linux-doc-6.1,
#                     reStructuredText; the throughput benchmarks and the
#                     full evaluation)
#   DIR/pg/*.txt      the PostgreSQL 15 manual (postgresql-doc-15), one
#                     HTML page each, rendered by corpus/html_to_text.py
#   DIR/perl/*.txt    the Perl manual (perl-doc), rendered by pod2text
#   DIR/man/*.txt     the Linux man-pages project (manpages, manpages-dev)
#                     rendered by groff
# Idempotent: a collection already prepared (its .complete marker) is left
# as it is.
# Usage: bash corpus/prepare_corpora.sh DIR
set -euo pipefail
out=${1:?usage: prepare_corpora.sh DIR}
here=$(dirname "$0")

# Runs "$@" unless DIR/$1 is complete; the command fills DIR/$1.
prepare() {
  local name=$1
  shift
  if [[ -f "$out/$name/.complete" ]]; then return; fi
  rm -rf "${out:?}/$name"
  mkdir -p "$out/$name"
  "$@"
  touch "$out/$name/.complete"
}
require() {
  if [[ ! -e "$1" ]]; then
    echo "prepare_corpora: $1 is missing; run cmake/install_deps.sh --test" >&2
    exit 1
  fi
}

kernel() {
  local src=/usr/share/doc/linux-doc-6.1/html/_sources
  require "$src"
  find "$src" -name '*.txt' | LC_ALL=C sort | while read -r f; do
    rel=${f#"$src"/}
    cp "$f" "$out/kernel/${rel//\//_}"
  done
}
python_docs() {
  local src=/usr/share/doc/python3.11/html/_sources
  require "$src"
  find "$src" -name '*.rst.txt' | LC_ALL=C sort | while read -r f; do
    rel=${f#"$src"/}
    rel=${rel%.rst.txt}
    cp "$f" "$out/python/${rel//\//_}.txt"
  done
}
gnu() {
  for manual in coreutils grep sed gzip diffutils find; do
    files=(/usr/share/info/"$manual".info*.gz)
    if [[ ! -f "${files[0]}" ]]; then
      echo "prepare_corpora: no Info manual $manual under /usr/share/info" \
        "(is /usr/share/info excluded by dpkg?)" >&2
      exit 1
    fi
    for f in "${files[@]}"; do
      zcat "$f" > "$out/gnu/$(basename "$f" .gz)"
    done
  done
}
# Chinese man pages of locale $1 into DIR/$2.
chinese_pages() {
  require "/usr/share/man/$1"
  find "/usr/share/man/$1" -name '*.gz' | LC_ALL=C sort | while read -r f; do
    name=$(basename "$(dirname "$f")")_$(basename "$f" .gz)
    zcat "$f" | groff -k -mandoc -Tutf8 -P-cbou -dAD=l -rHY=0 2>/dev/null \
      > "$out/$2/$name.txt" || rm -f "$out/$2/$name.txt"
  done
}
pg() {
  local src=/usr/share/doc/postgresql-doc-15/html
  require "$src"
  find "$src" -name '*.html' -print0 | LC_ALL=C sort -z |
    xargs -0 python3 "$here/html_to_text.py" "$out/pg"
}
perl_manual() {
  require /usr/share/perl/5.36.0/pod/perlfunc.pod
  dpkg -L perl-doc | grep '\.pod$' | LC_ALL=C sort | while read -r f; do
    pod2text "$f" > "$out/perl/$(basename "$f" .pod).txt" 2>/dev/null ||
      rm -f "$out/perl/$(basename "$f" .pod).txt"
  done
}
# Pages that are only a ".so" link to another page are left out.
man_pages() {
  require /usr/share/man/man2/open.2.gz
  dpkg -L manpages manpages-dev | grep '^/usr/share/man/.*\.gz$' |
    LC_ALL=C sort | while read -r f; do
      if [[ -L "$f" || ! -f "$f" || "$(zcat "$f" | head -c 4)" == ".so " ]]; then
        continue
      fi
      zcat "$f" | groff -mandoc -Tutf8 -P-cbou -dAD=l -rHY=0 2>/dev/null \
        > "$out/man/$(basename "$f" .gz).txt" ||
        rm -f "$out/man/$(basename "$f" .gz).txt"
    done
}
# The characters ICU's transform changes, paired by position (the
# transforms map one code point to one).
han_variants() {
  require /usr/bin/uconv
  cat "$out"/zh/*.txt | uconv -x Simplified-Traditional |
    python3 "$here/pair_characters.py" "$out"/zh/*.txt > "$out/han/to_traditional.tsv"
  cat "$out"/zh_tw/*.txt | uconv -x Traditional-Simplified |
    python3 "$here/pair_characters.py" "$out"/zh_tw/*.txt > "$out/han/to_simplified.tsv"
}

prepare kernel kernel
prepare python python_docs
prepare gnu gnu
prepare zh chinese_pages zh_CN zh
prepare zh_tw chinese_pages zh_TW zh_tw
prepare han han_variants
prepare pg pg
prepare perl perl_manual
prepare man man_pages
