#!/usr/bin/env bash
# Writes the fuzzers' seeds (tests/fuzz/run_fuzzers.sh):
#   SEEDS          the sample corpus, every format corpus/make_formats.py
#                  writes and the special files of make_fixtures.py (the
#                  bombs left out: their seeds alone would take the time
#                  budget), the legacy formats, Outlook, TNEF, EPUB and
#                  page images of make_legacy_fixtures.py (the hostile ones
#                  left out), and one seed per structured target;
#   SEEDS-text     the sample texts and the records seeds, for the targets
#                  that read their input as text or as a program, not as a
#                  file (fuzz_table_reader, fuzz_data_scanner,
#                  fuzz_index_ops).
# FORMATS and LEGACY are the folders the CTest fixtures format_fixtures and
# legacy_fixtures filled (tests/cli/formats/): given, their files are
# copied, not made again by LibreOffice and pandoc.
#
#   bash tests/fuzz/make_fuzz_seeds.sh SEEDS [FORMATS LEGACY]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seeds=${1:?usage: make_fuzz_seeds.sh SEEDS [FORMATS LEGACY]}
formats=${2:-}
legacy=${3:-}
made=()
trap 'rm -rf "${made[@]}"' EXIT
if [[ -z "$formats" ]]; then
  formats=$(mktemp -d)
  made+=("$formats")
  bash "$root/tests/cli/formats/make_format_fixtures.sh" "$formats/out"
  formats="$formats/out"
fi
if [[ -z "$legacy" ]]; then
  legacy=$(mktemp -d)
  made+=("$legacy")
  /usr/bin/python3 "$root/tests/cli/formats/make_legacy_fixtures.py" "$legacy"
fi

rm -rf "$seeds" "$seeds.tmp" "$seeds-text" "$seeds-text.tmp"
mkdir -p "$seeds.tmp"
cp "$root"/corpus/sample/outbound/* "$root"/corpus/sample/protected/* "$seeds.tmp/"
# The legacy formats come from make_legacy_fixtures.py's files below.
for f in "$formats"/*; do
  case $(basename "$f") in
    bomb.zip | nested-bomb.zip) ;;
    passage-doc.doc | passage-rtf.rtf | passage-xls.xls | passage-ppt.ppt) ;;
    passage-epub.epub) ;;
    *) cp "$f" "$seeds.tmp/" ;;
  esac
done
for f in passage.doc passage.xls passage.ppt passage.rtf passage.epub \
         passage.png scan.pdf message.msg winmail.dat gbk.rtf \
         unknown-mimetype.zip; do
  cp "$legacy/$f" "$seeds.tmp/legacy-$f"
done
# For fuzz_locations: a location to protect, then text naming locations.
printf '%s\n%s\n' 'https://intranet.example/projects/' \
  'see https://intranet.example/projects/x?y=1, \\fs01\hr\pay.xlsx, C:\finance\2027\a.xlsx and /srv/legal/' \
  > "$seeds.tmp/locations.txt"
# For fuzz_request_body: the first byte picks the type and coding
# (request_body_fuzzer.cc): a form with a field and a file, a JSON chat.
printf '\000--------------------------abc\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--------------------------abc\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nquarterly figures\r\n--------------------------abc--\r\n' \
  > "$seeds.tmp/request-form"
printf '\002{"model":"m","messages":[{"role":"user","content":"quarterly figures"}]}' \
  > "$seeds.tmp/request-json"
printf '\001note=quarterly+figures&to=%%40board&n=3' > "$seeds.tmp/request-urlencoded"
# For fuzz_policy: a policy with every key.
cp "$root/tests/fuzz/policy_seed.toml" "$seeds.tmp/"
# ...and one at the bounds (policy_bounds.h): dotted keys, deep nesting.
printf '[a.b.c.d.e.f.g.h]\nx = [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]\n[i.j.k.l.m.n.o.p.q]\n' \
  > "$seeds.tmp/policy-bounds"
# For fuzz_group_file: a group file.
printf '# counsel\nAnn@Corp.Example\n@counsel.example\n\n*@x.test # all\n' \
  > "$seeds.tmp/group-file"
# For fuzz_table_reader (the first byte picks the reader: even a schema,
# odd a table) and fuzz_data_scanner (text with rows of its table).
{ printf '\000'; cat "$root/tests/fuzz/records_schema_seed.toml"; } \
  > "$seeds.tmp/records-schema"
printf '\001card,name,note\n4111111111111111,"Smith, John","said ""hi"""\n' \
  > "$seeds.tmp/records-table"
printf '\001Konto: DE89 3704 0044 0532 0130 00. Card 4111-1111-1111-1111 of JOHN SMITH, +49.30.123.4567, born 2 March 1985; AB123456; EMP-1234; SSN 123-45-6789; NINO AB 12 34 56 C; 11010519491231002X\n' \
  > "$seeds.tmp/records-text"

# The targets that read text or a program start from texts: the format
# seeds (up to 256 KiB of binary each) took the records targets 30 s to get
# through under ASan, and hold no records; to fuzz_index_ops (a RocksDB
# program per input) they are no better a program than any bytes, and
# its 55 of them took 371 s with whole-stack unwinding, its 13 texts 110 s
# (10 s with the fast unwinder run_fuzzers.sh gives it).
mkdir -p "$seeds-text.tmp"
cp "$seeds.tmp"/records-* "$root"/corpus/sample/outbound/*.txt \
  "$root"/corpus/sample/protected/*.txt "$seeds-text.tmp/"
mv "$seeds.tmp" "$seeds"
mv "$seeds-text.tmp" "$seeds-text"
