#!/usr/bin/python3
"""Discovery end to end (docs/discover.md): `leakhound discover` over a share
of 2,000 files as a user runs it.

The share: 1,885 text files in 40 folders, 60 documents LibreOffice saved
(docx, odt, pdf), 50 binaries, 10 .iso images the target excludes, and the
findings: a copy of the price list in a world-readable folder and the
merger memo saved as .docx by LibreOffice (quarantine), the incident
report in a group folder with a POSIX ACL granting another user read
(restrict), a customer CSV owned by `nobody` with 20 card numbers
(notify-owner, mailed through a real Postfix), and a roadmap no one
protects yet.

Checked: each remediation and its incident fields (owner, mode, exposure,
the tombstone's text); a second run reads 0 files; after 10 files change
it reads 10; `discover restore` puts files back with mode and owner; a
protected document added makes every file read again (the run says so)
and finds the roadmap; a file that goes closes its finding; an unreadable
folder is an error that keeps the catalogue under it; SIGKILL in the
middle of a crawl and in the middle of a quarantine's move (across file
systems, to /dev/shm) loses and duplicates nothing.

  discover_integration_test.py LEAKHOUND_BINARY SOURCE_DIR NODE_DIR

Last, the console's Discovery page in Debian's Chromium (tests/cli/console/
discovery.mjs): the findings, the folder tree, the owners, a filter, and
an admin's Restore.

  NODE_DIR gets playwright-core from npm (package-lock.json) on first use.

Needs root (Postfix's master, chown, setpriv), postfix, LibreOffice, the
acl tools and Chromium. Every process it started is stopped by its pid.
"""
import glob
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "console"))
from browser_runner import run_node  # noqa: E402
from private_postfix import (PrivatePostfix, free_port, listening,  # noqa: E402
                             stop_process, wait_for)

LEAKHOUND = None
SOURCE = None
NODE_DIR = None
NOBODY = 65534

TOMBSTONE_TEXT = ("This copy of a confidential document was moved away. "
                  "Ask security@corp.test, quoting the incident, if you "
                  "need it.")

POLICY = """
[discover]
quarantine_dir = "{quarantine}"
owner_mail = "%u@corp.test"
from = "dlp@corp.test"

[[discover.target]]
name = "finance-share"
paths = ["{share}"]
exclude = ["*.iso"]
schedule = "daily"

[[rule]]
name = "customer-records"
action = "notify-owner"
when = {{ channel = "discover", identifiers = {{ card = 10 }} }}

[[rule]]
name = "hr-at-rest"
action = "restrict"
when = {{ channel = "discover", documents = ["protected/incident-report.txt"] }}

[[rule]]
name = "copies-at-rest"
action = "quarantine"
tombstone = "{tombstone}"
when = {{ channel = "discover", documents = ["protected/pricing-2027.txt", "protected/merger-memo.txt", "roadmap/"] }}
"""


def luhn_cards(n, rng):
    out = []
    while len(out) < n:
        digits = [4] + [rng.randrange(10) for _ in range(14)]
        total = 0
        for i, d in enumerate(reversed(digits)):
            d = d * 2 if i % 2 == 0 else d
            total += d - 9 if d > 9 else d
        digits.append((10 - total % 10) % 10)
        out.append("".join(map(str, digits)))
    return out


def words(rng, n):
    return " ".join("".join(rng.choice("abcdefghijklmnoprstuvw")
                            for _ in range(rng.randrange(3, 10)))
                    for _ in range(n))


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class DiscoverTest(unittest.TestCase):
    """The steps run in order on one share (unittest sorts test_NN_)."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="lh-discover-")
        os.chmod(cls.dir, 0o755)
        d = cls.dir
        cls.share = os.path.join(d, "share")
        cls.quarantine = os.path.join(d, "quarantine")
        cls.index = os.path.join(d, "index")
        cls.store = os.path.join(d, "incidents.db")
        cls.policy = os.path.join(d, "policy.toml")
        with open(cls.policy, "w") as f:
            f.write(POLICY.format(share=cls.share, quarantine=cls.quarantine,
                                  tombstone=TOMBSTONE_TEXT))
        cls.lh(["init", "--index", cls.index])
        cls.lh(["add", "--index", cls.index,
                os.path.join(SOURCE, "corpus/sample/protected")])
        cls.make_share()
        cls.postfix = PrivatePostfix(d, {})
        cls.postfix.start()

    @classmethod
    def tearDownClass(cls):
        cls.postfix.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        shutil.rmtree("/dev/shm/lh-discover-q", ignore_errors=True)

    @classmethod
    def lh(cls, args, ok=(0,), env=None, prefix=(), stdin=None):
        p = subprocess.run(list(prefix) + [LEAKHOUND] + args,
                           capture_output=True, text=True, timeout=600,
                           env=env, input=stdin)
        assert p.returncode in ok, (args, p.returncode, p.stdout, p.stderr)
        return p

    @classmethod
    def make_share(cls):
        rng = random.Random(71)
        share = cls.share
        for k in range(1885):
            folder = os.path.join(share, "team-%02d" % (k % 40))
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "note-%04d.txt" % k), "w") as f:
                f.write(words(rng, rng.randrange(50, 400)) + "\n")
        bins = os.path.join(share, "builds")
        os.makedirs(bins)
        for k in range(50):
            with open(os.path.join(bins, "tool-%02d.bin" % k), "wb") as f:
                f.write(rng.randbytes(rng.randrange(1000, 60000)))
        for k in range(10):
            with open(os.path.join(bins, "disk-%d.iso" % k), "wb") as f:
                f.write(rng.randbytes(4096))
        # 60 documents saved by LibreOffice, from text of their own.
        src = os.path.join(cls.dir, "doc-src")
        os.makedirs(src)
        sources = []
        for k in range(60):
            path = os.path.join(src, "report-%02d.txt" % k)
            with open(path, "w") as f:
                f.write(words(rng, 300) + "\n")
            sources.append(path)
        with open(os.path.join(SOURCE, "corpus/sample/protected/"
                               "merger-memo.txt")) as f:
            memo = f.read()
        with open(os.path.join(src, "merger.txt"), "w") as f:
            f.write(memo)
        docs = os.path.join(share, "documents")
        public = os.path.join(share, "public")
        os.makedirs(docs)
        os.makedirs(public)
        profile = os.path.join(cls.dir, "lo-profile")
        for target, part in (("docx", sources[:20]), ("odt", sources[20:40]),
                             ("pdf", sources[40:])):
            subprocess.run(["soffice", "-env:UserInstallation=file://" +
                            profile, "--headless", "--convert-to", target,
                            "--outdir", docs] + part, check=True,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=300)
        subprocess.run(["soffice", "-env:UserInstallation=file://" + profile,
                        "--headless", "--convert-to", "docx", "--outdir",
                        public, os.path.join(src, "merger.txt")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=300)
        shutil.copy(os.path.join(SOURCE, "corpus/sample/protected/"
                                 "pricing-2027.txt"),
                    os.path.join(public, "prices-copy.txt"))
        os.chmod(os.path.join(public, "prices-copy.txt"), 0o644)
        hr = os.path.join(share, "hr")
        os.makedirs(hr, mode=0o750)
        cls.hr_file = os.path.join(hr, "incident-notes.txt")
        shutil.copy(os.path.join(SOURCE, "corpus/sample/protected/"
                                 "incident-report.txt"), cls.hr_file)
        os.chmod(cls.hr_file, 0o640)
        subprocess.run(["setfacl", "-m", "u:nobody:r", cls.hr_file],
                       check=True)
        crm = os.path.join(share, "crm")
        os.makedirs(crm)
        cls.csv = os.path.join(crm, "customers.csv")
        with open(cls.csv, "w") as f:
            f.write("name,card,city\n")
            for k, card in enumerate(luhn_cards(20, rng)):
                f.write("Customer %d,%s,Springfield\n" % (k, card))
        os.chown(cls.csv, NOBODY, NOBODY)
        os.chmod(cls.csv, 0o644)
        cls.roadmap_text = words(rng, 400) + "\n"
        with open(os.path.join(docs, "roadmap-2028.txt"), "w") as f:
            f.write(cls.roadmap_text)
        cls.files = sum(len([n for n in names if not n.endswith(".iso")])
                        for _, _, names in os.walk(share))
        assert cls.files == 2000, cls.files

    def run_discover(self, ok=(0, 1), prefix=(), extra=()):
        return self.lh(["discover", "run", "--policy", self.policy,
                        "--index", self.index, "--incidents", self.store,
                        "--threads", "2", "--sendmail",
                        "/usr/sbin/sendmail -C %s" %
                        os.path.join(self.dir, "postfix")] + list(extra),
                       ok=ok, prefix=prefix)

    def findings(self):
        p = self.lh(["discover", "findings", "--json", "--incidents",
                     self.store])
        return {json.loads(line)["path"]: json.loads(line)
                for line in p.stdout.splitlines()}

    @staticmethod
    def summary(p):
        line = [x for x in p.stdout.splitlines()
                if x.startswith("discover finance-share:")]
        assert len(line) == 1, p.stdout
        return line[0]

    @staticmethod
    def read_count(p):
        m = re.search(r"files?, (\d+) read, (\d+) unchanged",
                      DiscoverTest.summary(p))
        return int(m.group(1)), int(m.group(2))

    def test_01_first_crawl_finds_and_remediates_each(self):
        p = self.run_discover(ok=(1,))
        self.assertEqual(self.read_count(p), (2000, 0), p.stdout)
        self.assertIn("2000 files", self.summary(p))
        self.assertIn("4 new findings (2 quarantined, 1 restricted, "
                      "1 owners told, 0 logged)", self.summary(p))
        f = self.findings()
        self.assertEqual(len(f), 4, f)
        prices = os.path.join(self.share, "public/prices-copy.txt")
        memo = os.path.join(self.share, "public/merger.docx")
        for path in (prices, memo):
            self.assertEqual(f[path]["state"], "quarantined")
            self.assertEqual(f[path]["remediation"], "quarantine")
            self.assertFalse(os.path.exists(path))
            q = f[path]["quarantine_path"]
            self.assertTrue(q.startswith(self.quarantine + "/LH-"), q)
            self.assertEqual(stat.S_IMODE(os.stat(q).st_mode), 0o600)
            self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(q))
                                          .st_mode), 0o700)
            tomb = read(path + ".leakhound-quarantined.txt")
            self.assertIn(TOMBSTONE_TEXT, tomb)
            self.assertIn(f[path]["reference"], tomb)
            self.assertIn("Rule: copies-at-rest", tomb)
            self.assertEqual(f[path]["mode"], "0644")
            self.assertIn("world-readable", f[path]["exposure"])
            self.assertEqual(f[path]["owner"], "root")
        hr = f[self.hr_file]
        self.assertEqual(hr["state"], "restricted")
        self.assertEqual(hr["mode"], "0640")  # as found
        self.assertIn("acl user:nobody:r--", hr["exposure"])
        self.assertIn("group-readable (root)", hr["exposure"])
        self.assertEqual(stat.S_IMODE(os.stat(self.hr_file).st_mode), 0o600)
        acl = subprocess.run(["getfacl", "-cp", self.hr_file],
                             capture_output=True, text=True).stdout
        self.assertIn("mask::---", acl)
        csv = f[self.csv]
        self.assertEqual((csv["state"], csv["remediation"], csv["owner"],
                          csv["group"]), ("open", "notify-owner", "nobody",
                                          "nogroup"))
        self.assertIn("owner told at nobody@corp.test", csv["detail"])
        wait_for(self.postfix.settled, "the owner's notice")
        mails = [read(m) for m in self.postfix.delivered()]
        notice = [m for m in mails if self.csv in m]
        self.assertEqual(len(notice), 1, mails)
        self.assertIn("nobody@corp.test", notice[0])
        self.assertIn(csv["reference"], notice[0])
        # Each finding is an incident of source discover with its facts.
        shown = json.loads(self.lh(["incidents", "show", str(csv["incident"]),
                                    "--json", "--incidents",
                                    self.store]).stdout)
        self.assertEqual(shown["source"], "discover")
        self.assertEqual(shown["file"], self.csv)
        self.assertIn("owner nobody:nogroup, mode 0644, world-readable",
                      shown["detail"])
        self.assertIn("customer-records (medium, notify-owner)",
                      json.dumps(shown["rules"]))

    def test_02_a_rescan_with_nothing_changed_reads_nothing(self):
        p = self.run_discover(ok=(0,))
        self.assertEqual(self.read_count(p), (0, 1998), p.stdout)
        self.assertIn("0 new findings", self.summary(p))

    def test_03_ten_changed_files_are_the_ten_read(self):
        for k in range(10):
            path = os.path.join(self.share, "team-%02d" % (k % 40),
                                "note-%04d.txt" % k)
            with open(path, "a") as f:
                f.write("one more line\n")
        p = self.run_discover(ok=(0,))
        self.assertEqual(self.read_count(p), (10, 1988), p.stdout)

    def test_04_restore_puts_files_back_as_they_were(self):
        f = self.findings()
        prices = os.path.join(self.share, "public/prices-copy.txt")
        p = self.lh(["discover", "restore", f[prices]["reference"],
                     f[self.hr_file]["reference"], "--incidents",
                     self.store, "--user", "auditor"])
        self.assertIn("put back with its mode and owner", p.stdout)
        st = os.stat(prices)
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid), (0o644, 0))
        self.assertFalse(os.path.exists(prices +
                                        ".leakhound-quarantined.txt"))
        self.assertFalse(os.path.exists(f[prices]["quarantine_path"]))
        self.assertEqual(stat.S_IMODE(os.stat(self.hr_file).st_mode), 0o640)
        after = self.findings()
        self.assertEqual(after[prices]["state"], "restored")
        self.assertEqual(after[self.hr_file]["state"], "restored")
        # Audited under the user who restored.
        db = sqlite3.connect(self.store)
        audited = db.execute("SELECT \"user\", action FROM audit WHERE "
                             "action = 'restored'").fetchall()
        db.close()
        self.assertEqual(audited, [("auditor", "restored")] * 2)
        # A restored file is left where it is by the next run.
        p = self.run_discover(ok=(0,))
        self.assertIn("0 new findings", self.summary(p))
        self.assertTrue(os.path.exists(prices))
        again = self.lh(["discover", "restore", f[prices]["reference"],
                         "--incidents", self.store], ok=(2,))
        self.assertIn("nothing to undo", again.stderr)

    def test_05_a_new_protected_document_reads_all_and_says_why(self):
        src = os.path.join(self.dir, "roadmap")
        os.makedirs(src)
        with open(os.path.join(src, "plan.txt"), "w") as f:
            f.write(self.roadmap_text)
        self.lh(["add", "--index", self.index, src])
        p = self.run_discover(ok=(1,))
        read, unchanged = self.read_count(p)
        self.assertEqual((read, unchanged), (1999, 0), p.stdout)
        self.assertIn("because the protected set or the policy changed",
                      self.summary(p))
        roadmap = os.path.join(self.share, "documents/roadmap-2028.txt")
        self.assertEqual(self.findings()[roadmap]["state"], "quarantined")

    def test_06_a_file_that_goes_closes_its_finding(self):
        os.unlink(self.csv)
        p = self.run_discover(ok=(0,))
        self.assertIn("1 closed", self.summary(p))
        f = self.findings()[self.csv]
        self.assertEqual((f["state"], f["detail"]),
                         ("closed", "the file is gone"))

    def test_07_an_unreadable_folder_is_an_error_and_keeps_its_files(self):
        locked = os.path.join(self.share, "team-03")
        os.chmod(locked, 0)
        try:
            # Root reads any folder: the run drops the capabilities that
            # let it, as the service user would be refused.
            prefix = ()
            if os.geteuid() == 0:
                prefix = ("setpriv", "--bounding-set",
                          "-dac_override,-dac_read_search", "--")
            p = self.run_discover(ok=(2,), prefix=prefix)
            self.assertIn(locked, p.stderr)
            self.assertIn("1 error", self.summary(p))
        finally:
            os.chmod(locked, 0o755)
        p = self.run_discover(ok=(0,))
        # Its files were kept in the catalogue: none is new now.
        self.assertEqual(self.read_count(p), (0, 1997), p.stdout)

    def test_08_sigkill_mid_crawl_loses_and_duplicates_nothing(self):
        with open(self.policy, "a") as f:
            f.write("\n# changed: every verdict is stale\n")
        before = self.count_incidents()
        db = sqlite3.connect(self.store)
        old = db.execute("SELECT basis FROM discover_files GROUP BY basis "
                         "ORDER BY count(*) DESC").fetchone()[0]
        db.close()
        proc = subprocess.Popen(
            [LEAKHOUND, "discover", "run", "--policy", self.policy,
             "--index", self.index, "--incidents", self.store,
             "--threads", "1"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        # Killed once the first 500 files are recorded on the new basis.
        end = time.monotonic() + 120
        recorded = 0
        while time.monotonic() < end and proc.poll() is None:
            try:
                db = sqlite3.connect(self.store, timeout=0.05)
                recorded = db.execute(
                    "SELECT count(*) FROM discover_files WHERE basis NOT IN "
                    "(?, 'restored')", (old,)).fetchone()[0]
                db.close()
            except sqlite3.OperationalError:
                pass
            if recorded >= 500:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self.assertGreaterEqual(recorded, 500)
        self.assertLess(recorded, 1997)
        p = self.run_discover(ok=(0, 1))
        # What was recorded before the kill is not read again.
        self.assertEqual(self.read_count(p)[0], 1997 - recorded, p.stdout)
        p = self.run_discover(ok=(0,))
        self.assertEqual(self.read_count(p), (0, 1997), p.stdout)
        self.assertEqual(self.count_incidents(), before)

    def count_incidents(self):
        db = sqlite3.connect(self.store)
        n = db.execute("SELECT count(*) FROM incidents").fetchone()[0]
        dup = db.execute("SELECT count(*) FROM (SELECT path FROM "
                         "discover_findings WHERE state NOT IN "
                         "('closed', 'restored') GROUP BY path HAVING "
                         "count(*) > 1)").fetchone()[0]
        db.close()
        self.assertEqual(dup, 0)
        return n

    def test_09_sigkill_mid_quarantine_move_is_finished_or_rolled_back(self):
        # The quarantine on another file system (tmpfs): the move is a
        # copy, long enough for a big file to be killed in the middle.
        q = "/dev/shm/lh-discover-q"
        text = read(self.policy).replace(self.quarantine, q)
        with open(self.policy, "w") as f:
            f.write(text)
        rng = random.Random(9)
        with open(os.path.join(SOURCE, "corpus/sample/protected/"
                               "pricing-2027.txt")) as f:
            prices = f.read()
        # The sanitized tree (.ci/run sets LSAN_OPTIONS for its suite) reads
        # several times slower: fewer, smaller files there.
        sanitized = "LSAN_OPTIONS" in os.environ
        blocks = 20 if sanitized else 50
        outcomes = set()
        for attempt in range(3 if sanitized else 6):
            big = os.path.join(self.share, "public/big-%d.txt" % attempt)
            with open(big, "w") as f:
                f.write(prices)
                filler = words(rng, 2000) + "\n"
                for _ in range(blocks):  # ~ 45 MB (18 MB sanitized)
                    f.write(filler * 60)
            proc = subprocess.Popen(
                [LEAKHOUND, "discover", "run", "--policy", self.policy,
                 "--index", self.index, "--incidents", self.store],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Killed as soon as the finding is recorded (before the move)
            # or once the move has begun, a little later each time.
            want = ("open",) if attempt % 3 == 2 else ("quarantining",)
            self.wait_for_state(big, proc, want)
            time.sleep(0.005 * attempt if want != ("open",) else 0)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            outcomes.add((self.state_of(big), os.path.exists(big)))
            self.run_discover(ok=(0, 1))
            f = self.findings()[big]
            self.assertEqual(f["state"], "quarantined", f)
            self.assertFalse(os.path.exists(big))
            self.assertTrue(os.path.exists(f["quarantine_path"]))
            self.assertFalse(os.path.exists(f["quarantine_path"] +
                                            ".partial"))
            self.assertTrue(os.path.exists(big +
                                           ".leakhound-quarantined.txt"))
            self.assertEqual(os.path.getsize(f["quarantine_path"]),
                             len(prices.encode()) + blocks * 60 *
                             len(filler.encode()))
        self.count_incidents()
        print("\nkills mid-quarantine left (state, file still at its "
              "place): %s" % sorted(outcomes), file=sys.stderr)
        # At least one kill landed while the file was being moved.
        self.assertTrue(any(s == "quarantining" for s, _ in outcomes),
                        outcomes)

    def test_10_the_console_shows_findings_and_an_admin_restores(self):
        self.lh(["console", "user", "add", "ada", "--role", "admin",
                 "--incidents", self.store], stdin="ada-password-1\n")
        port = free_port()
        log_path = os.path.join(self.dir, "console.log")
        with open(log_path, "w") as log:
            console = subprocess.Popen(
                [LEAKHOUND, "console", "--listen", "127.0.0.1:%d" % port,
                 "--incidents", self.store, "--policy", self.policy],
                stdout=subprocess.DEVNULL, stderr=log)
        try:
            wait_for(lambda: listening(port) or console.poll() is not None,
                     "the console")
            memo = os.path.join(self.share, "public/merger.docx")
            f = self.findings()[memo]
            self.assertEqual(f["state"], "quarantined")
            out = run_node(NODE_DIR, "discovery.mjs",
                           "http://127.0.0.1:%d" % port, "ada",
                           "ada-password-1", f["reference"], "nobody")
            self.assertEqual(out.returncode, 0, out.stderr + out.stdout)
            seen = json.loads(out.stdout.strip().splitlines()[-1])
        finally:
            stop_process(console)
        self.assertIn("finance-share", seen["runs"])
        self.assertEqual(seen["rows"], len(self.findings()))
        self.assertIn("public", seen["tree"])
        self.assertIn("nobody", seen["owners"])
        self.assertIn(memo, seen["row"])
        self.assertIn("world-readable", seen["row"])
        self.assertIn("quarantined", seen["row"])
        self.assertEqual(seen["owner_rows"], 1)  # the customer CSV
        self.assertEqual(seen["done"], "Restored %s." % f["reference"])
        self.assertEqual(seen["buttons_after"], 0)
        # The file is back with its mode, the restore audited by who did it.
        st = os.stat(memo)
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid), (0o644, 0))
        self.assertFalse(os.path.exists(memo + ".leakhound-quarantined.txt"))
        db = sqlite3.connect(self.store)
        who = db.execute("SELECT \"user\" FROM audit WHERE action = "
                         "'restored' AND incident_id = ?",
                         (f["incident"],)).fetchall()
        db.close()
        self.assertEqual(who, [("console:ada",)])
        self.assertIn("console:ada: restored", read(log_path))

    def state_of(self, path):
        db = sqlite3.connect(self.store, timeout=5)
        row = db.execute("SELECT state FROM discover_findings WHERE "
                         "path = ?", (path,)).fetchone()
        db.close()
        return row[0] if row else None

    def wait_for_state(self, path, proc, want):
        """Polls the store until `path`'s finding is in one of `want`
        (or the run ends)."""
        end = time.monotonic() + 120
        while time.monotonic() < end and proc.poll() is None:
            try:
                if self.state_of(path) in want:
                    return
            except sqlite3.OperationalError:
                pass
            time.sleep(0.002)


if __name__ == "__main__":
    LEAKHOUND = os.path.abspath(sys.argv[1])
    SOURCE = os.path.abspath(sys.argv[2])
    NODE_DIR = os.path.abspath(sys.argv[3])
    unittest.main(argv=[sys.argv[0], "-v"])
