#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer on every library) and runs each for a while.
#
#   bash tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# Seeds: the sample corpus, and every format corpus/make_formats.py and
# tests/cli/formats/make_fixtures.py produce. Each target's corpus grows in
# BUILD_DIR/corpus-<target>; crashes are written to BUILD_DIR/artifacts.
# Prints one line per target (runs, seconds, outcome) and exits 1 if any
# target crashed, leaked, timed out or failed to run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_text fuzz_html fuzz_mail fuzz_mbox fuzz_office
           fuzz_opendocument fuzz_pdf fuzz_archive fuzz_rtf
           fuzz_legacy_office fuzz_tnef fuzz_epub fuzz_image fuzz_extraction
           fuzz_locations fuzz_shingler fuzz_records fuzz_index_ops
           fuzz_policy fuzz_request_body fuzz_form_data fuzz_urlencoded
           fuzz_json_body fuzz_table_reader fuzz_data_scanner)
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLEAKHOUND_BUILD_TESTS=OFF \
    -DLEAKHOUND_BUILD_FUZZERS=ON -DLEAKHOUND_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
    > "$build/configure.log"
fi
cmake --build "$build" --target "${targets[@]}" > "$build/build.log"

seeds="$build/seeds"
if [[ ! -d "$seeds" ]]; then
  mkdir -p "$seeds.tmp"
  cp "$root"/corpus/sample/outbound/* "$root"/corpus/sample/protected/* "$seeds.tmp/"
  fixtures=$(mktemp -d)
  /usr/bin/python3 "$root/tests/cli/formats/make_fixtures.py" "$fixtures"
  # The bombs are left out: their seeds alone would take the time budget.
  rm -f "$fixtures/bomb.zip" "$fixtures/nested-bomb.zip"
  cp "$fixtures"/* "$seeds.tmp/"
  for format in docx xlsx pptx odt pdf eml-qp eml-base64 eml-alternative \
                eml-docx eml-attachment eml-forward zip; do
    /usr/bin/python3 "$root/corpus/make_formats.py" "$format" \
      "$fixtures/passage.txt" "$seeds.tmp/seed-$format.${format%%-*}"
  done
  rm -rf "$fixtures"
  # The legacy formats, Outlook, TNEF, EPUB and page images; the hostile
  # ones (100,000 attachments, nesting 100,000 deep) are left out.
  legacy=$(mktemp -d)
  /usr/bin/python3 "$root/tests/cli/formats/make_legacy_fixtures.py" "$legacy"
  for f in passage.doc passage.xls passage.ppt passage.rtf passage.epub \
           passage.png scan.pdf message.msg winmail.dat gbk.rtf \
           unknown-mimetype.zip; do
    cp "$legacy/$f" "$seeds.tmp/legacy-$f"
  done
  rm -rf "$legacy"
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
  # For fuzz_table_reader (the first byte picks the reader: even a schema,
  # odd a table) and fuzz_data_scanner (text with rows of its table).
  { printf '\000'; cat "$root/tests/fuzz/records_schema_seed.toml"; } \
    > "$seeds.tmp/records-schema"
  printf '\001card,name,note\n4111111111111111,"Smith, John","said ""hi"""\n' \
    > "$seeds.tmp/records-table"
  printf '\001Konto: DE89 3704 0044 0532 0130 00. Card 4111-1111-1111-1111 of JOHN SMITH, +49.30.123.4567, born 2 March 1985; AB123456; EMP-1234; SSN 123-45-6789; NINO AB 12 34 56 C; 11010519491231002X\n' \
    > "$seeds.tmp/records-text"
  mv "$seeds.tmp" "$seeds"
fi

# The records targets start from their own seeds and the sample corpus's
# texts: the format seeds (up to 256 KiB of binary each) took them 30 s to
# get through under ASan, and hold no records.
if [[ ! -d "$seeds-records" ]]; then
  mkdir -p "$seeds-records.tmp"
  cp "$seeds"/records-* "$root"/corpus/sample/outbound/*.txt \
    "$root"/corpus/sample/protected/*.txt "$seeds-records.tmp/"
  mv "$seeds-records.tmp" "$seeds-records"
fi

mkdir -p "$build/artifacts"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus-$t"
  log="$build/$t.log"
  seeds_of=$seeds
  [[ $t == fuzz_table_reader || $t == fuzz_data_scanner ]] && seeds_of=$seeds-records
  set +e
  # fuzz_index_ops creates an index per input: in memory where possible.
  tmp=${TMPDIR:-/tmp}
  [[ -d /dev/shm && -w /dev/shm ]] && tmp=/dev/shm
  # The CPU time (user + system) it took goes to $log.cpu: the wall time is
  # the budget, but a busy machine gives a target less of the CPU.
  TIMEFORMAT='%3U %3S'
  # A hang is an input that runs past the timeout, which libFuzzer counts
  # in wall time: on a busy 2-core machine (the evaluation and the
  # integration tests run beside fuzz_smoke) a seed that takes 0.4 s alone
  # (fuzz_pdf's, 0.2 CPU-s) or 1.8 s (fuzz_index_ops', a 24-step RocksDB
  # program) ran past 10 s. 60 s still stops a real hang; the speed of
  # extraction is the limits' business (--max-seconds), not the fuzzers'.
  timeout=60
  # Whole stacks (fast_unwind_on_malloc=0) so that tests/fuzz/lsan.supp
  # can name the library function that leaked: Debian's libraries have no
  # frame pointers.
  # One OpenMP thread for Tesseract, as the leakhound command runs it
  # (OCR of a seed page took over 10 s with OpenMP's default).
  { time TMPDIR=$tmp OMP_THREAD_LIMIT=1 \
    ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp \
    "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout="$timeout" \
    -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t-" \
    "$build/corpus-$t" "$seeds_of" > "$log" 2>&1 ; } 2> "$log.cpu"
  rc=$?
  set -e
  runs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$log.cpu")
  if ((rc == 0)); then
    echo "$t: ${runs} runs in ${seconds} s (${cpu} CPU-s), 0 crashes, 0 leaks, 0 timeouts"
  else
    echo "$t: FAILED (exit $rc) after ${runs} runs; see $log" >&2
    grep -m5 -E 'ERROR|SUMMARY|Test unit written' "$log" >&2 || true
    failed=1
  fi
done
exit $failed
