#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer on every library) and runs each for a while.
#
#   bash tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# Seeds: tests/fuzz/make_fuzz_seeds.sh's, made in BUILD_DIR/seeds unless
# they are there (ctest's fuzz_seeds). Each target's corpus grows in
# BUILD_DIR/corpus-<target>; crashes are written to BUILD_DIR/artifacts.
# Prints one line per target (runs, seconds, outcome) and exits 1 if any
# target crashed, leaked, timed out or failed to run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
mkdir -p "$build"
build=$(cd "$build" && pwd)

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLEAKHOUND_BUILD_TESTS=OFF \
    -DLEAKHOUND_BUILD_FUZZERS=ON -DLEAKHOUND_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
    > "$build/configure.log"
fi
# No TARGET: every one (the `fuzzers` target, tests/fuzz/CMakeLists.txt).
# LEAKHOUND_FUZZ_PREBUILT=1: the tree is built (ctest's fuzz_smoke tests,
# which run side by side and must not start two builds in one tree).
if [[ ${LEAKHOUND_FUZZ_PREBUILT:-0} != 1 ]]; then
  cmake --build "$build" --target "${targets[@]:-fuzzers}" > "$build/build.log"
fi
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(find "$build/tests/fuzz" -maxdepth 1 -type f \
    -name 'fuzz_*' -executable -printf '%f\n' | LC_ALL=C sort)
  if ((${#targets[@]} == 0)); then
    echo "run_fuzzers: no fuzz target in $build/tests/fuzz" >&2
    exit 1
  fi
fi

seeds="$build/seeds"
if [[ ! -d "$seeds" || ! -d "$seeds-text" ]]; then
  bash "$root/tests/fuzz/make_fuzz_seeds.sh" "$seeds"
fi

mkdir -p "$build/artifacts"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus-$t"
  log="$build/$t.log"
  seeds_of=$seeds
  case $t in
    fuzz_table_reader | fuzz_data_scanner | fuzz_index_ops) seeds_of=$seeds-text ;;
  esac
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
  # can name the library function that leaked (Debian's libraries have no
  # frame pointers), for the targets that read files and so reach libgsf.
  # Every allocation then unwinds its whole stack: fuzz_index_ops took
  # 110 s for its 13 seeds so, 10 s with the fast unwinder, which the
  # targets that never read a file format keep.
  unwind=0
  case $t in
    fuzz_locations | fuzz_shingler | fuzz_records | fuzz_index_ops | \
      fuzz_policy | fuzz_group_file | fuzz_table_reader | fuzz_data_scanner) unwind=1 ;;
  esac
  # One OpenMP thread for Tesseract, as the leakhound command runs it
  # (OCR of a seed page took over 10 s with OpenMP's default).
  { time TMPDIR=$tmp OMP_THREAD_LIMIT=1 \
    ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=$unwind \
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
