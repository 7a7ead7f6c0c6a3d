#!/usr/bin/python3
"""Speed-up of the sharded scan (docs/scale.md, "Measured"): the same tree
scanned by one `leakhound scan` process (1 and 2 threads) and by
cli/cluster/dask_scan.py on a loopback Dask cluster of 1 and 2 workers
(one thread each), against a replica of one index.

  dask_scan_bench.py LEAKHOUND SOURCE_DIR EVAL_CORPUS WORK_DIR [--shards 16]

Protected: the Python documentation of EVAL_CORPUS (corpus/prepare_corpora.sh);
scanned: its Linux, PostgreSQL, Perl, man-page and Chinese documents (about
7,200 files, 74 MB, none protected), so every file runs the whole pipeline. Prints one line per configuration
with the wall time, files per second and the speed-up over one process
with one thread; each configuration's report must equal the others'.
Stops every process it started.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli", "milter"))
from private_postfix import free_port, listening, stop_process, wait_for  # noqa: E402


def verdicts(jsonl):
    return sorted((f["path"], f["verdict"]) for f in map(json.loads, jsonl.splitlines()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("leakhound")
    parser.add_argument("source")
    parser.add_argument("corpus")
    parser.add_argument("work")
    parser.add_argument("--shards", type=int, default=16)
    args = parser.parse_args()
    leakhound = os.path.abspath(args.leakhound)
    args.corpus = os.path.abspath(args.corpus)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    index = os.path.join(args.work, "index")
    replica = os.path.join(args.work, "replica")
    subprocess.run([leakhound, "init", "--index", index], check=True,
                   capture_output=True)
    def texts(collection):  # the documents, not the .complete marker
        d = os.path.join(args.corpus, collection)
        return sorted(os.path.join(d, f) for f in os.listdir(d)
                      if f.endswith(".txt"))
    subprocess.run([leakhound, "add", "--index", index, *texts("python")],
                   check=True, capture_output=True)
    subprocess.run([leakhound, "snapshot", "--index", index, replica],
                   check=True, capture_output=True)
    tree = [f for c in ("kernel", "pg", "perl", "man", "zh", "zh_tw")
            for f in texts(c)]
    files = len(tree)

    results = {}
    baseline = None

    def report(label, seconds, out):
        nonlocal baseline
        if baseline is None:
            baseline = seconds
        results[label] = verdicts(out)
        print(f"{label:32s} {seconds:7.1f} s  {files / seconds:7.0f} files/s  "
              f"speed-up {baseline / seconds:4.2f}", flush=True)

    for threads in (1, 2):
        start = time.monotonic()
        r = subprocess.run([leakhound, "scan", "--index", replica, "--json",
                            "--threads", str(threads), *tree],
                           capture_output=True, text=True)
        report(f"one process, {threads} thread(s)", time.monotonic() - start,
               r.stdout)

    for workers in (1, 2):
        port = free_port()
        procs = []
        try:
            procs.append(subprocess.Popen(
                ["dask", "scheduler", "--host", "127.0.0.1", "--port",
                 str(port), "--no-dashboard"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd=args.work))
            wait_for(lambda: listening(port), "the scheduler")
            for n in range(workers):
                procs.append(subprocess.Popen(
                    ["dask", "worker", f"tcp://127.0.0.1:{port}", "--host",
                     "127.0.0.1", "--nthreads", "1", "--no-nanny",
                     "--no-dashboard"], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, cwd=args.work))
            probe = (f"from distributed import Client\n"
                     f"with Client('tcp://127.0.0.1:{port}') as c:\n"
                     f"    c.wait_for_workers({workers}, timeout=60)\n")
            subprocess.run(["/usr/bin/python3", "-c", probe], check=True)
            out = os.path.join(args.work, f"dask-{workers}.jsonl")
            start = time.monotonic()
            subprocess.run(
                ["/usr/bin/python3",
                 os.path.join(args.source, "cli/cluster/dask_scan.py"),
                 "--scheduler", f"tcp://127.0.0.1:{port}", "--index", replica,
                 "--shards", str(args.shards), "--leakhound", leakhound,
                 "--out", out, *tree], stderr=subprocess.DEVNULL)
            seconds = time.monotonic() - start
            with open(out) as f:
                report(f"Dask, {workers} worker(s), {args.shards} shards",
                       seconds, f.read())
        finally:
            for proc in reversed(procs):
                stop_process(proc)
    first = next(iter(results.values()))
    same = all(v == first for v in results.values())
    print(f"{files} files; every report the same: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
