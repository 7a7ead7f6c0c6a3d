#!/usr/bin/python3
"""A discovery target crawled by a real Dask cluster (cli/cluster/
dask_discover.py, docs/discover.md "Large shares").

Starts, on loopback only, a Dask scheduler and two workers (plain
processes, no nanny), builds an index of the sample corpus, and a share of
1,500 files, one in ten quoting a protected document. Checks that a run
over two tasks judges every file once (the workers' reads add up to the
files handed out, both read, one finding per leaking file, and a run after
it reads nothing), and that with one worker killed (its process group:
the worker and the leakhound it ran) in the middle, the finishing run
reads what it left and still no file has two findings. Every process it
started is stopped by its pid.

  dask_discover_test.py LEAKHOUND_BINARY SOURCE_DIR

Needs python3-distributed (cmake/install_deps.sh --test installs it).
"""
import os
import random
import re
import shutil
import signal
import sqlite3
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
FILES = 1500

POLICY = """
[[discover.target]]
name = "share"
paths = ["{share}"]

[[rule]]
name = "at-rest"
action = "log"
when = {{ channel = "discover" }}
"""


class DaskDiscoverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-dask-discover-")
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
        cls.index = os.path.join(d, "index")
        protected = os.path.join(SOURCE, "corpus/sample/protected")
        run("init", "--index", cls.index)
        run("add", "--index", cls.index, protected)
        texts = []
        for name in sorted(os.listdir(protected)):
            with open(os.path.join(protected, name), encoding="utf-8") as f:
                texts.append(f.read().split())
        rng = random.Random(71)
        vocabulary = ("report budget meeting schedule review draft notes "
                      "quarter project team update customer order invoice "
                      "travel lunch weekly status plan office").split()
        cls.share = os.path.join(d, "share")
        for i in range(FILES):
            sub = os.path.join(cls.share, "dept%d" % (i % 13))
            os.makedirs(sub, exist_ok=True)
            words = [rng.choice(vocabulary)
                     for _ in range(rng.randint(200, 1500))]
            if i % 10 == 0:
                source = texts[rng.randrange(len(texts))]
                start = rng.randrange(max(1, len(source) - 40))
                at = rng.randrange(len(words))
                words[at:at] = source[start:start + 40]
            with open(os.path.join(sub, "f%04d.txt" % i), "w") as f:
                f.write(" ".join(words) + "\n")
        cls.policy = os.path.join(d, "policy.toml")
        with open(cls.policy, "w") as f:
            f.write(POLICY.format(share=cls.share))
        cls.store = os.path.join(d, "incidents.db")
        cls.port, cls.workers = start_cluster(d, cls.procs)

    @classmethod
    def tearDownClass(cls):
        for proc in cls.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            stop_process(proc)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def _driver(self):
        return subprocess.Popen(
            ["/usr/bin/python3",
             os.path.join(SOURCE, "cli/cluster/dask_discover.py"),
             "--scheduler", "tcp://127.0.0.1:%d" % self.port,
             "--policy", self.policy, "--index", self.index,
             "--incidents", self.store, "--target", "share", "--tasks", "2",
             "--leakhound", LEAKHOUND],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def _findings(self):
        db = sqlite3.connect(self.store)
        rows = db.execute("SELECT path, count(*) FROM discover_findings "
                          "GROUP BY path").fetchall()
        db.close()
        return dict(rows)

    def _rerun_reads(self):
        p = subprocess.run([LEAKHOUND, "discover", "run", "--policy",
                            self.policy, "--index", self.index,
                            "--incidents", self.store],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        return int(re.search(r"(\d+) read", p.stdout).group(1))

    def test_1_two_workers_judge_every_file_once(self):
        driver = self._driver()
        out, err = driver.communicate(timeout=600)
        self.assertEqual(driver.returncode, 1, out + err)
        self.assertIn("1500 handed out to workers", out)
        reads = [int(n) for n in re.findall(r"worker \S+: (\d+) read", out)]
        self.assertEqual(len(reads), 2, out)
        self.assertTrue(all(n > 0 for n in reads), reads)
        self.assertEqual(sum(reads), FILES)
        findings = self._findings()
        self.assertEqual(len(findings), FILES // 10)
        self.assertEqual(set(findings.values()), {1})
        self.assertEqual(self._rerun_reads(), 0)

    @staticmethod
    def _claim_of(worker):
        """The --claim name of the leakhound running in `worker`'s process
        group, or None."""
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    argv = f.read().decode().split("\0")
            except OSError:
                continue
            if int(fields[2]) == worker.pid and "--claim" in argv:
                return argv[argv.index("--claim") + 1]
        return None

    def test_2_a_worker_killed_mid_run_loses_and_duplicates_nothing(self):
        db = sqlite3.connect(self.store)
        self.basis_before = db.execute(
            "SELECT basis FROM discover_files LIMIT 1").fetchone()[0]
        db.close()
        with open(self.policy, "a") as f:
            f.write("\n# changed: every verdict is stale\n")
        driver = self._driver()
        victim = self.workers[1]
        # Killed (with the leakhound it runs) while that leakhound holds
        # claimed files.
        end = time.monotonic() + 300
        held = 0
        while time.monotonic() < end and driver.poll() is None:
            name = self._claim_of(victim)
            try:
                db = sqlite3.connect(self.store, timeout=0.1)
                held = db.execute("SELECT count(*) FROM discover_files "
                                  "WHERE claim = ?", (name,)).fetchone()[0]
                db.close()
            except sqlite3.OperationalError:
                held = 0
            if held > 0:
                break
            time.sleep(0.005)
        os.killpg(victim.pid, signal.SIGKILL)
        self.assertGreater(held, 0, "the victim never held a claim")
        victim.wait(timeout=DEADLINE)
        out, err = driver.communicate(timeout=600)
        self.assertIn(driver.returncode, (0, 1), out + err)
        # What the victim held when it died was read by the finishing run
        # (its task, run again on the survivor, takes only pending files).
        finished = int(re.findall(r"files, (\d+) read", out)[-1])
        self.assertGreater(finished, 0, out)
        findings = self._findings()
        self.assertEqual(len(findings), FILES // 10)
        self.assertEqual(set(findings.values()), {1})
        db = sqlite3.connect(self.store)
        left = db.execute("SELECT count(*) FROM discover_files WHERE "
                          "claim != ''").fetchone()[0]
        db.close()
        self.assertEqual(left, 0)
        self.assertEqual(self._rerun_reads(), 0)


if __name__ == "__main__":
    LEAKHOUND = os.path.abspath(sys.argv[1])
    SOURCE = os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], "-v"])
