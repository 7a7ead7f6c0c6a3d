#!/usr/bin/env bash
# The sharded scan as a Slurm job array, against Dask (docs/scale.md, "Why
# Dask and not Slurm"): starts a private single-node Slurm (slurmctld and
# slurmd in the foreground, loopback ports, auth/none, state under WORK_DIR,
# no systemd), scans the same files as tests/bench/dask_scan_bench.py with
# `sbatch --array=0-(N-1)` running `leakhound scan --json --shard
# I/N`, merges the shards' JSON Lines, checks them against one process, and
# prints the wall time. Stops every daemon it started by its pid.
# Needs root and slurm-wlm (not installed by cmake/install_deps.sh: only
# this benchmark uses it).
# Usage: bash tests/bench/slurm_scan_bench.sh LEAKHOUND EVAL_CORPUS WORK_DIR [SHARDS]
set -euo pipefail
leakhound=$(realpath "$1")
corpus=$(realpath "$2")
work=$3
shards=${4:-16}
rm -rf "$work"
mkdir -p "$work"/{state,spool,log,out}
work=$(realpath "$work")
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
host=$(hostname)
cat > "$work/slurm.conf" <<CONF
ClusterName=leakhound
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$work/log/ctld.out" 2>&1 &
ctld=$!
slurmd -D -f "$SLURM_CONF" > "$work/log/d.out" 2>&1 &
d=$!
trap 'kill $d $ctld 2>/dev/null; wait $d $ctld 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.2
done

# The index and the files of dask_scan_bench.py.
"$leakhound" init --index "$work/index" >/dev/null
find "$corpus/python" -name '*.txt' -print0 | sort -z |
  xargs -0 "$leakhound" add --index "$work/index" >/dev/null
"$leakhound" snapshot --index "$work/index" "$work/replica" >/dev/null
find "$corpus"/{kernel,pg,perl,man,zh,zh_tw} -name '*.txt' | sort > "$work/files"
files=$(wc -l < "$work/files")

start=$(date +%s.%N)
"$leakhound" scan --index "$work/replica" --json --threads 1 \
  $(cat "$work/files") > "$work/single.jsonl" || [[ $? -eq 1 ]]
single=$(echo "$(date +%s.%N) - $start" | bc)

start=$(date +%s.%N)
job=$(sbatch --parsable --array=0-$((shards - 1)) -c 1 -o "$work/out/%a.jsonl" \
  -e "$work/out/%a.err" --wrap "$leakhound scan --index $work/replica --json \
  --threads 1 --shard \$SLURM_ARRAY_TASK_ID/$shards \$(cat $work/files)")
# Polled every 0.1 s (sbatch --wait polls at up to 10 s and would measure
# its own interval).
for _ in $(seq 6000); do
  [[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]] && break
  sleep 0.1
done
array=$(echo "$(date +%s.%N) - $start" | bc)
key() { /usr/bin/python3 -c 'import json,sys; print("\n".join(sorted(json.dumps([f["path"], f["verdict"]]) for f in map(json.loads, sys.stdin))))'; }
same=no
if [[ "$(cat "$work"/out/*.jsonl | key)" == "$(key < "$work/single.jsonl")" ]]; then
  same=yes
fi
printf 'one process, 1 thread      %6.1f s\n' "$single"
printf 'Slurm array, %d shards     %6.1f s\n' "$shards" "$array"
echo "$files files; the array's merged report equals one process's: $same"
[[ $same == yes ]]
