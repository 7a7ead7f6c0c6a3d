#!/usr/bin/python3
"""Cumulative (drip) detection end to end (docs/policy.md, "Cumulative").

A protected handbook of 700 words, and passages of 25 words of it, each
below any per-message rule:
  - `scan --record --policy` of mail files dated a day apart (a mail
    archive): of 20 mails from one sender with distinct passages under
    cumulative = { words = 300, days = 30 }, mail 12 is the first the rule
    holds for, and its incident lists the 11 before it; the same passage
    20 times never adds up; two senders of 150 words each add up under
    per = "sender-domain" only; passages 40 days apart never add up.
  - a real Postfix with the milter and a real Squid with c-icap and the
    service module, sharing one incident store and policy: alice sends 6
    passages as uploads through the proxy and 5 by mail (275 words, all
    delivered); her sixth mail is held (quarantine), and its incident
    lists the 11 earlier messages of both channels. Then `policy replay`
    of a policy with a 400-word rule changes nothing, of one with a
    200-word rule finds the mails that would have been held.

  drip_integration_test.py LEAKHOUND_BINARY SOURCE_DIR MODULE

Needs root (Postfix's master), postfix, c-icap and squid-openssl.
Every process it started is stopped by its pid.
"""
import email.utils
import json
import os
import random
import shutil
import smtplib
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "icap"))
from private_postfix import (DEADLINE, PrivatePostfix, free_port,  # noqa: E402
                             start_milter, stop_process, wait_for)
from private_proxy import Origin, PrivateCicap, PrivateSquid  # noqa: E402

LEAKHOUND = None
SOURCE = None
MODULE = None
EXTERNAL = "files.partner.test"

POLICY = """
internal_domains = ["corp.test"]

[[rule]]
name = "drip"
action = "quarantine"
when = { cumulative = { words = 300, days = 30 } }
"""

DOMAIN_POLICY = """
[[rule]]
name = "drip-domain"
action = "quarantine"
when = { cumulative = { words = 300, days = 30, per = "sender-domain" } }
"""


def handbook_words():
    """700 words drawn (fixed seed) from the sample corpus's English
    documents: a text whose 25-word passages are each distinctive."""
    vocab = set()
    for name in ("merger-memo.txt", "pricing-2027.txt", "incident-report.txt"):
        with open(os.path.join(SOURCE, "corpus/sample/protected", name)) as f:
            for w in f.read().lower().split():
                w = w.strip(".,:;()\"'")
                if w.isalpha() and len(w) > 3:
                    vocab.add(w)
    rng = random.Random(70)
    vocab = sorted(vocab)
    return [rng.choice(vocab) for _ in range(700)]


def passage(words, i):
    return " ".join(words[25 * i:25 * i + 25])


def mail(sender, day, text, n):
    date = email.utils.formatdate(1790000000 + day * 86400, usegmt=True)
    return ("From: %s\r\nTo: partner@example.test\r\nSubject: note %d\r\n"
            "Date: %s\r\nMessage-ID: <drip-%d@corp.test>\r\n\r\nHello,\r\n%s\r\n"
            % (sender, n, date, n, text))


class DripTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-drip-")
        os.chmod(cls.dir, 0o755)
        cls.words = handbook_words()
        cls.index = os.path.join(cls.dir, "index")
        cls.run_ok("init", "--index", cls.index)
        handbook = os.path.join(cls.dir, "handbook.txt")
        with open(handbook, "w") as f:
            f.write(" ".join(cls.words) + "\n")
        cls.run_ok("add", "--index", cls.index, handbook)
        cls.doc = handbook

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("LEAKHOUND_KEEP_TEST_DIR"):
            shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def run_ok(cls, *args):
        return subprocess.run([LEAKHOUND, *args], check=True,
                              capture_output=True, text=True, timeout=120)

    def scan(self, name, mails, policy=POLICY):
        """Scans `mails` (sender, day, text) as .eml files with --record;
        returns the store and the incidents' references in mail order."""
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        paths = []
        for n, (sender, day, text) in enumerate(mails, 1):
            paths.append(os.path.join(d, "m%02d.eml" % n))
            with open(paths[-1], "w") as f:
                f.write(mail(sender, day, text, n))
        with open(os.path.join(d, "policy.toml"), "w") as f:
            f.write(policy)
        store = os.path.join(d, "incidents.db")
        subprocess.run([LEAKHOUND, "scan", "--index", self.index, "--policy",
                        os.path.join(d, "policy.toml"), "--record",
                        "--incidents", store, *paths],
                       capture_output=True, timeout=120)
        return store, paths

    @staticmethod
    def incidents(store):
        """file -> (reference, rules, cumulative facts) of each incident."""
        db = sqlite3.connect(store)
        try:
            out = {}
            for id_, ref, path in db.execute(
                    "SELECT id, reference, file_path FROM incidents"):
                rules = [r for (r,) in db.execute(
                    "SELECT rule FROM incident_rules WHERE incident_id = ?",
                    (id_,))]
                facts = [(w, labels.split("\n")) for w, labels in db.execute(
                    "SELECT words, labels FROM incident_documents WHERE "
                    "incident_id = ? AND document LIKE 'cumulative %'", (id_,))]
                out[os.path.basename(path)] = (ref, rules, facts)
            return out
        finally:
            db.close()

    def test_mail_12_of_20_distinct_passages_crosses_and_lists_the_11(self):
        store, _ = self.scan("distinct", [
            ("alice@corp.test", day, passage(self.words, day))
            for day in range(20)])
        found = self.incidents(store)
        self.assertEqual(len(found), 20)
        for n in range(1, 12):
            self.assertEqual(found["m%02d.eml" % n][1], [], n)
        ref, rules, facts = found["m12.eml"]
        self.assertEqual(rules, ["drip"])
        words, labels = facts[0]
        self.assertEqual(words, 300)
        earlier = [l[len("earlier:"):] for l in labels if l.startswith("earlier:")]
        self.assertEqual(earlier, [found["m%02d.eml" % n][0] for n in range(1, 12)])
        # Past the threshold, each further passage is caught too.
        self.assertEqual(found["m20.eml"][1], ["drip"])

    def test_the_same_passage_twenty_times_never_adds_up(self):
        store, _ = self.scan("same", [
            ("alice@corp.test", day, passage(self.words, 3))
            for day in range(20)])
        found = self.incidents(store)
        self.assertEqual(len(found), 20)
        self.assertTrue(all(rules == [] for _, rules, _ in found.values()))
        self.assertEqual(found["m20.eml"][2][0][0], 25)

    def test_two_senders_add_up_per_domain_not_per_sender(self):
        mails = [("alice@corp.test", i, passage(self.words, i)) for i in range(6)]
        mails += [("bob@corp.test", i, passage(self.words, i)) for i in range(6, 12)]
        store, _ = self.scan("per-sender", mails)
        self.assertTrue(all(r == [] for _, r, _ in self.incidents(store).values()))
        store, _ = self.scan("per-domain", mails, DOMAIN_POLICY)
        found = self.incidents(store)
        self.assertEqual(found["m11.eml"][1], [])
        self.assertEqual(found["m12.eml"][1], ["drip-domain"])

    def test_passages_forty_days_apart_never_add_up(self):
        store, _ = self.scan("window", [
            ("alice@corp.test", 40 * day, passage(self.words, day))
            for day in range(14)])
        self.assertTrue(all(r == [] for _, r, _ in self.incidents(store).values()))


class DripThroughPostfixAndProxyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-drip-gw-")
        os.chmod(cls.dir, 0o755)
        cls.milter = cls.postfix = cls.origin = cls.icap = cls.squid = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        cls.words = handbook_words()
        cls.index = os.path.join(d, "index")
        run = lambda *a: subprocess.run([LEAKHOUND, *a], check=True,
                                        capture_output=True, timeout=120)
        run("init", "--index", cls.index)
        with open(os.path.join(d, "handbook.txt"), "w") as f:
            f.write(" ".join(cls.words) + "\n")
        run("add", "--index", cls.index, os.path.join(d, "handbook.txt"))
        cls.policy = os.path.join(d, "policy.toml")
        with open(cls.policy, "w") as f:
            f.write(POLICY)
        cls.store = os.path.join(d, "incidents.db")
        port = free_port()
        cls.milter = start_milter(
            LEAKHOUND, cls.index, port, os.path.join(d, "milter.log"),
            "--policy", cls.policy, "--incidents", cls.store,
            "--reload-seconds", "0", "--duplicate-window", "0")
        cls.postfix = PrivatePostfix(d, {"drip": port})
        cls.postfix.start()
        cls.origin = Origin()
        cls.origin.start()
        cls.icap = PrivateCicap(d, MODULE, cls.index,
                                "leakhound.Policy %s\nleakhound.Incidents %s\n"
                                % (cls.policy, cls.store))
        cls.icap.start()
        if "cannot start" in cls.icap.read_log():
            raise AssertionError(cls.icap.read_log())
        cls.squid = PrivateSquid(d, cls.icap.port, [EXTERNAL],
                                 {"alice@corp.test": "wonderland"})
        cls.squid.start()

    @classmethod
    def tearDownClass(cls):
        for part in (cls.squid, cls.icap, cls.origin):
            if part is not None:
                part.stop()
        if cls.postfix is not None:
            cls.postfix.stop()
        if cls.milter is not None:
            stop_process(cls.milter)
        if not os.environ.get("LEAKHOUND_KEEP_TEST_DIR"):
            shutil.rmtree(cls.dir, ignore_errors=True)

    def upload(self, text):
        out = subprocess.run(
            ["curl", "-s", "-S", "-o", "/dev/null", "-w", "%{http_code}",
             "--max-time", str(DEADLINE),
             "--proxy", "http://127.0.0.1:%d" % self.squid.port,
             "--proxy-user", "alice@corp.test:wonderland",
             "-H", "Content-Type: text/plain", "-H", "Expect:",
             "--data-binary", text,
             "http://%s:%d/notes" % (EXTERNAL, self.origin.port)],
            capture_output=True, text=True, timeout=DEADLINE + 5)
        self.assertEqual(out.returncode, 0, out.stderr)
        return int(out.stdout)

    def send(self, n, text):
        message = mail("alice@corp.test", 0, text, 100 + n).encode()
        with smtplib.SMTP("127.0.0.1", self.postfix.smtp["drip"],
                          timeout=DEADLINE) as s:
            s.sendmail("alice@corp.test", ["bob@example.test"], message)

    def incident_rows(self):
        db = sqlite3.connect(self.store)
        try:
            return db.execute(
                "SELECT id, reference, source, action FROM incidents "
                "ORDER BY id").fetchall()
        finally:
            db.close()

    def held(self):
        return [q for q in self.postfix.queue() if q.get("queue_name") == "hold"]

    def test_uploads_and_mails_add_up_and_the_twelfth_is_held(self):
        for i in range(6):
            self.assertEqual(self.upload(passage(self.words, i)), 200, i)
        # The web channel records its incidents in the background.
        wait_for(lambda: len(self.incident_rows()) == 6, "6 web incidents")
        for i in range(6, 11):
            self.send(i, passage(self.words, i))
        wait_for(lambda: len(self.incident_rows()) == 11, "11 incidents")
        self.assertEqual(self.held(), [])
        self.send(11, passage(self.words, 11))
        wait_for(lambda: len(self.incident_rows()) == 12, "the twelfth")
        wait_for(lambda: len(self.held()) == 1, "the held mail")
        rows = self.incident_rows()
        self.assertEqual(rows[-1][3], "quarantine")
        self.assertTrue(all(r[3] == "log" for r in rows[:-1]), rows)
        self.assertEqual(sorted({r[2] for r in rows}), ["milter", "web"])
        shown = json.loads(subprocess.run(
            [LEAKHOUND, "incidents", "show", str(rows[-1][0]), "--json",
             "--incidents", self.store], check=True, capture_output=True,
            text=True, timeout=60).stdout)
        self.assertEqual(shown["cumulative"][0]["words"], 300)
        self.assertEqual(shown["cumulative"][0]["earlier"],
                         [r[1] for r in rows[:-1]])
        # Replay reads the ledger as it was for each message.
        # 400 words: the held mail would have passed; 200: the 8th to 11th
        # passages (200 to 275 words) would have been held.
        for words, changed in ((400, 1), (200, 4)):
            policy = os.path.join(self.dir, "replay-%d.toml" % words)
            with open(policy, "w") as f:
                f.write(POLICY.replace("words = 300", "words = %d" % words))
            out = subprocess.run(
                [LEAKHOUND, "policy", "replay", "--policy", policy,
                 "--incidents", self.store, "--json"], check=True,
                capture_output=True, text=True, timeout=60).stdout
            self.assertEqual(json.loads(out)["changed"], changed, out)


if __name__ == "__main__":
    LEAKHOUND, SOURCE, MODULE = sys.argv[1], sys.argv[2], sys.argv[3]
    unittest.main(argv=sys.argv[:1], verbosity=2)
