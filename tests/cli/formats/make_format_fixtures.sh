#!/usr/bin/env bash
# Builds, once per test run (the CTest fixture format_fixtures), the files
# the extraction and web-body tests read: make_fixtures.py's special files
# and the passage in every format by corpus/make_formats.py, named
# passage-FORMAT.EXT (EXT is FORMAT up to its first '-').
#
#   bash tests/cli/formats/make_format_fixtures.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: make_format_fixtures.sh DIR}
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
/usr/bin/python3 "$root/tests/cli/formats/make_fixtures.py" "$out.tmp"
for format in docx xlsx pptx odt pdf eml-qp eml-base64 eml-alternative \
              eml-docx eml-attachment eml-forward zip doc rtf xls ppt epub; do
  /usr/bin/python3 "$root/corpus/make_formats.py" "$format" \
    "$out.tmp/passage.txt" "$out.tmp/passage-$format.${format%%-*}"
done
mv "$out.tmp" "$out"
