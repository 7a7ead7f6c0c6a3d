#!/usr/bin/python3
"""A sharded `leakhound scan` on a Dask distributed cluster (python3-distributed).

Each of N tasks runs `leakhound scan --json --shard I/N` over the same PATHs
on a worker, against an index replica every worker can read (`leakhound
snapshot`, docs/scale.md). The JSON Lines of every shard are merged into one
report sorted by path, with a summary line on standard error. A task that
fails (leakhound could not run, or the worker died) is run again, up to
--retries times on top of Dask's own rescheduling of a dead worker's tasks.

Exit code as `leakhound scan`: 0 nothing leaked, 1 a leak, 2 an error in a
file or a shard that never completed.

Usage: dask_scan.py --scheduler tcp://HOST:PORT --index REPLICA
                    [--shards N] [--threads T] [--retries R]
                    [--leakhound PATH] [--out FILE] PATH...
"""
import argparse
import json
import os
import subprocess
import sys
import time
import uuid

from distributed import Client, as_completed


def scan_shard(leakhound, index, shard, shards, threads, paths):
    """Runs one shard on the worker; returns (shard, JSON objects, exit code).

    Raises when leakhound could not scan at all (no JSON for any file and
    exit 2: a missing index, a bad option), so that the task is retried.
    """
    command = [leakhound, "scan", "--index", index, "--json",
               "--shard", f"{shard}/{shards}", "--threads", str(threads)]
    result = subprocess.run(command + paths, capture_output=True, text=True,
                            check=False)
    files = [json.loads(line) for line in result.stdout.splitlines() if line]
    if result.returncode not in (0, 1, 2) or (
            result.returncode == 2 and not any("error" in f for f in files)):
        raise RuntimeError(
            f"shard {shard}/{shards}: leakhound exited {result.returncode}: "
            f"{result.stderr.strip()[-400:]}")
    return shard, files, result.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--index", required=True)
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--retries", type=int, default=2)
    parser.add_argument("--leakhound", default="leakhound")
    parser.add_argument("--out", default="-")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    if args.shards < 1:
        parser.error("--shards must be at least 1")
    # Workers run elsewhere, in their own directories: every one gets the
    # same absolute paths (the share mounted at the same place), so every
    # one cuts the same shards.
    args.paths = [os.path.abspath(p) for p in args.paths]

    start = time.monotonic()
    run = uuid.uuid4().hex[:8]
    files = []
    failed = []
    with Client(args.scheduler, timeout=30) as client:
        futures = [
            client.submit(scan_shard, args.leakhound, args.index, shard,
                          args.shards, args.threads, args.paths,
                          key=f"leakhound-scan-{run}-{shard}",
                          retries=args.retries, pure=False)
            for shard in range(args.shards)]
        for future in as_completed(futures):
            try:
                shard, shard_files, _ = future.result()
            except Exception as error:  # the task's own error, or KilledWorker
                failed.append(str(error).splitlines()[0] if str(error) else
                              type(error).__name__)
                print(f"dask_scan: a shard failed: {failed[-1]}",
                      file=sys.stderr, flush=True)
                continue
            files.extend(shard_files)
            print(f"dask_scan: shard {shard}/{args.shards} done: "
                  f"{len(shard_files)} files", file=sys.stderr, flush=True)

    files.sort(key=lambda f: f["path"])
    out = sys.stdout if args.out == "-" else open(args.out, "w",
                                                   encoding="utf-8")
    with out:
        for f in files:
            out.write(json.dumps(f, ensure_ascii=False) + "\n")
    leaked = sum(1 for f in files if f.get("verdict") == "leak")
    errors = sum(1 for f in files if "error" in f)
    print(f"dask_scan: {len(files)} files scanned: {leaked} leaked, "
          f"{len(files) - leaked - errors} clean, {errors} errors; "
          f"{args.shards - len(failed)}/{args.shards} shards in "
          f"{time.monotonic() - start:.1f} s", file=sys.stderr)
    if failed or errors:
        return 2
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main())
