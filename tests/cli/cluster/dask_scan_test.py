#!/usr/bin/python3
"""The sharded scan on a real Dask cluster (cli/cluster/dask_scan.py).

Starts, on loopback only, a Dask scheduler and two workers (plain processes,
no systemd, no nanny so that a worker's pid is the worker), builds an index
from the sample corpus and a replica of it (`leakhound snapshot`), writes a
few thousand outbound files (one in ten quoting a protected document), and
checks that the merged result of a 16-shard scan equals a single-process
`leakhound scan` of the same files, also when one worker is killed with
SIGKILL mid-run. Every process it started is stopped by its pid.

  dask_scan_test.py LEAKHOUND_BINARY SOURCE_DIR

Needs python3-distributed (cmake/install_deps.sh --test installs it).
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "milter"))
from private_postfix import DEADLINE, stop_process  # noqa: E402
from loopback_dask import start_cluster  # noqa: E402

LEAKHOUND = None
SOURCE = None
FILES = 3000


def verdicts(jsonl):
    """path -> (verdict, sorted matched ids, error) of JSON Lines text."""
    out = {}
    for line in jsonl.splitlines():
        f = json.loads(line)
        out[f["path"]] = (f["verdict"],
                          sorted(m["doc_id"] for m in f["matches"]),
                          f.get("error"))
    return out


class DaskScanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-dask-")
        cls.procs = []
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        run = lambda *a: subprocess.run([LEAKHOUND, *a], check=True,
                                        capture_output=True, timeout=120)
        index = os.path.join(d, "index")
        protected = os.path.join(SOURCE, "corpus/sample/protected")
        run("init", "--index", index)
        run("add", "--index", index, protected)
        cls.replica = os.path.join(d, "replica")
        run("snapshot", "--index", index, cls.replica)

        texts = []
        for name in sorted(os.listdir(protected)):
            with open(os.path.join(protected, name), encoding="utf-8") as f:
                texts.append(f.read().split())
        rng = random.Random(7)
        vocabulary = ("report budget meeting schedule review draft notes "
                      "quarter project team update customer order invoice "
                      "travel lunch weekly status plan office").split()
        cls.tree = os.path.join(d, "share")
        for i in range(FILES):
            sub = os.path.join(cls.tree, "dept%d" % (i % 13))
            os.makedirs(sub, exist_ok=True)
            words = [rng.choice(vocabulary) for _ in range(rng.randint(40, 200))]
            if i % 10 == 0:
                source = texts[rng.randrange(len(texts))]
                start = rng.randrange(max(1, len(source) - 40))
                at = rng.randrange(len(words))
                words[at:at] = source[start:start + 40]
            with open(os.path.join(sub, "f%04d.txt" % i), "w") as f:
                f.write(" ".join(words) + "\n")

        cls.port, cls.workers = start_cluster(d, cls.procs)

        single = subprocess.run(
            [LEAKHOUND, "scan", "--index", cls.replica, "--json", cls.tree],
            capture_output=True, text=True, timeout=300)
        assert single.returncode == 1, single.stderr
        cls.single = verdicts(single.stdout)

    @classmethod
    def tearDownClass(cls):
        for proc in cls.procs:
            stop_process(proc)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def _driver(self, out):
        return subprocess.Popen(
            ["/usr/bin/python3",
             os.path.join(SOURCE, "cli/cluster/dask_scan.py"),
             "--scheduler", "tcp://127.0.0.1:%d" % self.port,
             "--index", self.replica, "--shards", "16",
             "--leakhound", LEAKHOUND, "--out", out, self.tree],
            stderr=subprocess.PIPE, text=True)

    def test_1_merged_shards_equal_a_single_process_scan(self):
        out = os.path.join(self.dir, "merged.jsonl")
        driver = self._driver(out)
        _, err = driver.communicate(timeout=600)
        self.assertEqual(driver.returncode, 1, err)
        with open(out) as f:
            merged = verdicts(f.read())
        self.assertEqual(len(merged), FILES)
        self.assertEqual(merged, self.single)
        leaked = sum(1 for v in merged.values() if v[0] == "leak")
        self.assertEqual(leaked, FILES // 10)
        self.assertIn("16/16 shards", err)

    def test_2_a_worker_killed_mid_run_loses_no_shard(self):
        out = os.path.join(self.dir, "merged-killed.jsonl")
        driver = self._driver(out)
        victim = self.workers[1]
        killed_after = None
        lines = []
        end = time.monotonic() + 600
        for line in driver.stderr:
            lines.append(line)
            if killed_after is None and "done" in line:
                killed_after = sum("done" in l for l in lines)
                os.kill(victim.pid, signal.SIGKILL)
            self.assertLess(time.monotonic(), end)
        driver.stderr.close()
        driver.wait(timeout=DEADLINE)
        victim.wait(timeout=DEADLINE)
        self.assertEqual(victim.returncode, -signal.SIGKILL)
        self.assertEqual(driver.returncode, 1, "".join(lines))
        self.assertIsNotNone(killed_after)
        self.assertLess(killed_after, 16, "the kill came after the last shard")
        self.assertIn("16/16 shards", "".join(lines))
        with open(out) as f:
            self.assertEqual(verdicts(f.read()), self.single)


if __name__ == "__main__":
    LEAKHOUND, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
