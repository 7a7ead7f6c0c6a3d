#!/usr/bin/env bash
# Key rotation as temporal re-seeding (seed 003, docs/seed-003-spatio-temporal.md):
# do the filter's chance candidates of a fixed benign set change after
# `leakhound rekey`, and do the verified matches stay the same?
#
# Protects the Linux documentation files of even rank (corpus/throughput_sets.py),
# scans the Python documentation (no protected text but two real quotes)
# with --json --candidates, rekeys, scans again, three times, and compares
# the candidate pairs (file, protected document) of each scan with the
# first.
#
# Usage: bash corpus/rekey_experiment.sh BUILD [INIT_OPTION...]
#   INIT_OPTION: options for `leakhound init` (e.g. --fpr 0.05, for more
#   chance candidates than the default geometry gives)
set -euo pipefail
build=${1:?usage: rekey_experiment.sh BUILD [INIT_OPTION...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
corpora="$build/eval-corpus"
bash "$here/prepare_corpora.sh" "$corpora" >&2
work=$(mktemp -d /tmp/leakhound-rekey.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/throughput_sets.py" "$corpora" "$work/sets" >&2
lh="$build/leakhound"
"$lh" init --index "$work/index" "$@" >/dev/null
"$lh" add --index "$work/index" "$work/sets/protected" | tail -1 >&2
scan() { "$lh" scan --index "$work/index" --json --candidates --threads 2 \
           "$work/sets/clean" >"$work/scan-$1.jsonl" || true; }
scan 0
for i in 1 2 3; do
  "$lh" rekey --index "$work/index" >&2
  scan "$i"
done
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(i):
    cands, matches = set(), set()
    for line in open(f"{work}/scan-{i}.jsonl"):
        o = json.loads(line)
        for c in o.get("candidate_ids", []):
            cands.add((o["path"], c))
        for m in o["matches"]:
            if m.get("kind") == "document":
                matches.add((o["path"], m["doc_id"]))
    return cands, matches
first_c, first_m = load(0)
print("| scan | candidate pairs | of them also in the first scan | new | verified matches | matches equal to the first scan's |")
print("|---|---:|---:|---:|---:|---|")
for i in range(4):
    c, m = load(i)
    print(f"| {'before rekey' if i == 0 else f'after rekey {i}'} | {len(c)} | "
          f"{len(c & first_c)} | {len(c - first_c)} | {len(m)} | "
          f"{'yes' if m == first_m else 'no'} |")
PY
