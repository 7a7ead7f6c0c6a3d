#!/usr/bin/python3
"""One discovery target crawled by a Dask distributed cluster (python3-distributed).

`leakhound discover run --plan` walks the target here and hands the files
that are to be read out in the incident store; then N tasks each run
`leakhound discover run --claim WORKER` on a worker, which claims batches
of those files from the store (atomically: two workers never read one
file) until none is left; then `leakhound discover run` here finishes:
it reads what a killed worker had claimed but not judged, and records
the run. Every worker reads the same absolute paths (the share mounted at
the same place), an index replica (`leakhound snapshot`, docs/scale.md)
and the one incident store: a PostgreSQL URI across machines, or a SQLite
file on one machine.

Exit code as `leakhound discover run`'s: 0 no new finding, 1 a new
finding, 2 an error (or a task that never completed).

Usage: dask_discover.py --scheduler tcp://HOST:PORT --policy FILE
                        --index REPLICA --incidents STORE --target NAME
                        [--tasks N] [--threads T] [--retries R]
                        [--leakhound PATH]
"""
import argparse
import re
import subprocess
import sys
import time
import uuid

from distributed import Client, as_completed


def claim(leakhound, common, worker, threads):
    """Runs one worker's claims; returns (worker, files read, exit code,
    its standard output and error).
    Raises when leakhound could not run at all, so the task is retried."""
    result = subprocess.run(
        [leakhound, "discover", "run", *common, "--claim", worker,
         "--threads", str(threads)], capture_output=True, text=True,
        check=False)
    found = re.search(r"worker \S+: (\d+) read", result.stdout)
    if result.returncode not in (0, 1, 2) or found is None:
        raise RuntimeError(f"{worker}: leakhound exited {result.returncode}: "
                           f"{result.stderr.strip()[-400:]}")
    return worker, int(found.group(1)), result.returncode, result.stdout, \
        result.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scheduler", required=True)
    parser.add_argument("--policy", required=True)
    parser.add_argument("--index", required=True)
    parser.add_argument("--incidents", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--retries", type=int, default=2)
    parser.add_argument("--leakhound", default="leakhound")
    args = parser.parse_args()
    common = ["--policy", args.policy, "--index", args.index,
              "--incidents", args.incidents, "--target", args.target]
    start = time.monotonic()
    plan = subprocess.run([args.leakhound, "discover", "run", *common,
                           "--plan"], capture_output=True, text=True)
    sys.stdout.write(plan.stdout)
    sys.stderr.write(plan.stderr)
    if plan.returncode not in (0, 1, 2) or "handed out" not in plan.stdout:
        return 2
    exit_code = plan.returncode
    run = uuid.uuid4().hex[:8]
    read = 0
    with Client(args.scheduler, timeout=30) as client:
        futures = [
            client.submit(claim, args.leakhound, common,
                          f"dask-{run}-{task}", args.threads,
                          key=f"leakhound-discover-{run}-{task}",
                          retries=args.retries, pure=False)
            for task in range(args.tasks)]
        for future in as_completed(futures):
            try:
                worker, n, code, out, err = future.result()
            except Exception as error:  # its own error, or KilledWorker
                print(f"dask_discover: a task failed: {error}",
                      file=sys.stderr)
                continue
            read += n
            exit_code = max(exit_code, code)
            sys.stdout.write(out)
            sys.stderr.write(err)
            print(f"dask_discover: {worker} done: {n} read", file=sys.stderr)
    # What a killed worker claimed and did not judge, read here; the run
    # recorded.
    finish = subprocess.run([args.leakhound, "discover", "run", *common,
                             "--threads", str(args.threads)],
                            capture_output=True, text=True)
    sys.stdout.write(finish.stdout)
    sys.stderr.write(finish.stderr)
    print(f"dask_discover: {args.tasks} tasks read {read} files; the "
          f"finishing run: exit {finish.returncode}; "
          f"{time.monotonic() - start:.1f} s", file=sys.stderr)
    if finish.returncode not in (0, 1):
        return 2
    return max(exit_code, finish.returncode)


if __name__ == "__main__":
    sys.exit(main())
