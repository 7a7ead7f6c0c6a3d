#!/usr/bin/python3
"""Discovery's cost on a share (docs/discover.md, "Measured"): the first
crawl and a rescan with nothing changed of a share of more than 10,000
files and 1 GB, against `leakhound scan` of the same files, alternated
in one run on one machine.

  discover_bench.py LEAKHOUND EVAL_CORPUS WORK_DIR [--copies 2]
                    [--binaries 170] [--binary-mb 5] [--rounds 2] [--dask]

The share: the documents of EVAL_CORPUS (corpus/prepare_corpora.sh: the
Linux, PostgreSQL, Perl, man-page and Chinese documentation, about 7,200
files) --copies times over in folders of their own, and --binaries random
binaries of --binary-mb MB each (images, builds: data a share holds that
has no text). Protected: the Python documentation of EVAL_CORPUS, and 20
of the share's own files, so that discovery finds (and logs) 20 * copies
findings. Each round: `scan -q --threads 2` of the share, then `discover
run` with a fresh store (the first crawl), then `discover run` again
(nothing changed). Prints each time and the ratios: the first crawl's
throughput against scan's, and the rescan's time against the first
crawl's. Page cache warm for all (each reads the share first).

With --dask, last: the first crawl by cli/cluster/dask_discover.py on a
loopback Dask cluster of two workers (one thread each), fresh store,
against the single process's first crawl with 2 threads.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "cluster"))
from private_postfix import stop_process  # noqa: E402
from loopback_dask import start_cluster  # noqa: E402


def texts(corpus, collection):
    d = os.path.join(corpus, collection)
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".txt"))


def timed(cmd, ok=(0, 1)):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if p.returncode not in ok:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd[:3]), p.returncode,
                                      p.stderr[-2000:]))
    return elapsed, p


def make_share(args, share):
    tree = [f for c in ("kernel", "pg", "perl", "man", "zh", "zh_tw")
            for f in texts(args.corpus, c)]
    for k in range(args.copies):
        for i, f in enumerate(tree):
            d = os.path.join(share, "copy-%d" % k, "d%03d" % (i % 200))
            os.makedirs(d, exist_ok=True)
            shutil.copy(f, os.path.join(d, os.path.basename(f)))
    rng = random.Random(71)
    bins = os.path.join(share, "builds")
    os.makedirs(bins)
    block = rng.randbytes(1 << 20)
    for k in range(args.binaries):
        with open(os.path.join(bins, "image-%03d.bin" % k), "wb") as f:
            for m in range(args.binary_mb):
                f.write(bytes([k & 255, m & 255]) + block[2:])
    return tree


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("leakhound")
    parser.add_argument("corpus")
    parser.add_argument("work")
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--binaries", type=int, default=170)
    parser.add_argument("--binary-mb", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dask", action="store_true")
    args = parser.parse_args()
    lh = os.path.abspath(args.leakhound)
    args.corpus = os.path.abspath(args.corpus)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    share = os.path.join(args.work, "share")
    tree = make_share(args, share)
    files = sum(len(n) for _, _, n in os.walk(share))
    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, n in os.walk(share) for f in n)
    index = os.path.join(args.work, "index")
    subprocess.run([lh, "init", "--index", index], check=True,
                   capture_output=True)
    protected = texts(args.corpus, "python") + tree[::len(tree) // 20][:20]
    subprocess.run([lh, "add", "--index", index, *protected], check=True,
                   capture_output=True)
    policy = os.path.join(args.work, "policy.toml")
    with open(policy, "w") as f:
        f.write('[[discover.target]]\nname = "bench"\npaths = ["%s"]\n'
                '\n[[rule]]\nname = "log"\naction = "log"\n'
                'when = { channel = "discover" }\n' % share)
    print("share: %d files, %.2f GB (%d text documents x %d, %d binaries "
          "of %d MB)" % (files, size / 1e9, len(tree), args.copies,
                         args.binaries, args.binary_mb))
    subprocess.run("find %s -type f -exec cat {} + > /dev/null" % share,
                   shell=True)
    for r in range(args.rounds):
        scan_s, _ = timed([lh, "scan", "--index", index, "-q",
                           "--threads", "2", share])
        store = os.path.join(args.work, "store-%d.db" % r)
        first_s, first = timed([lh, "discover", "run", "--policy", policy,
                                "--index", index, "--incidents", store,
                                "--threads", "2"])
        again_s, again = timed([lh, "discover", "run", "--policy", policy,
                                "--index", index, "--incidents", store,
                                "--threads", "2"])
        read = re.search(r"(\d+) read", again.stdout).group(1)
        found = re.search(r"(\d+) new findings?", first.stdout).group(1)
        print("round %d: scan %.1f s (%.1f MB/s); discover first crawl "
              "%.1f s (%.1f MB/s, %s findings) = %.0f %% of scan's "
              "throughput; rescan, nothing changed: %.2f s, %s files read "
              "= %.1f %% of the first crawl" %
              (r + 1, scan_s, size / 1e6 / scan_s, first_s,
               size / 1e6 / first_s, found, 100 * scan_s / first_s, again_s,
               read, 100 * again_s / first_s))
    if args.dask:
        dask_round(args, lh, policy, index, size, first_s)


def dask_round(args, lh, policy, index, size, first_s):
    procs = []
    try:
        port, _ = start_cluster(args.work, procs)
        store = os.path.join(args.work, "store-dask.db")
        dask_s, p = timed(
            ["/usr/bin/python3",
             os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "..", "..", "cli", "cluster", "dask_discover.py"),
             "--scheduler", "tcp://127.0.0.1:%d" % port, "--policy", policy,
             "--index", index, "--incidents", store, "--target", "bench",
             "--tasks", "2", "--leakhound", lh])
        reads = re.findall(r"worker \S+: (\d+) read", p.stdout)
        print("dask, two workers on loopback: first crawl %.1f s (%.1f "
              "MB/s; workers read %s) = %.2fx the single process's %.1f s"
              % (dask_s, size / 1e6 / dask_s, "+".join(reads),
                 first_s / dask_s, first_s))
    finally:
        for proc in reversed(procs):
            stop_process(proc)


if __name__ == "__main__":
    main()
