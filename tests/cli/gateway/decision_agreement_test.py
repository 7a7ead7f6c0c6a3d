#!/usr/bin/python3
"""One decision in every tool (issue 65, cli/gateway/decision.h).

The same 20 mails, with mixed recipients, labelled and unlabelled
documents, rows of a protected table, card numbers and an unreadable part,
go to all five places a policy is applied, which must agree field by
field (action, severity, the rules that matched):

  milter    a real Postfix (private_postfix.py) with `leakhound milter`;
  icap      c-icap with srv_leakhound.so, each mail uploaded as a POST
            body by c-icap-client (channel web: the proxy user and the
            destination host), compared with scan and explain given the
            same web envelope;
  scan      `leakhound scan --policy --json`, the .eml judged as mail;
  explain   `leakhound policy explain`, its decision line;
  replay    `leakhound policy replay` of the milter's incidents under the
            recording policy: 0 changes, and per rule the milter's counts.

  decision_agreement_test.py LEAKHOUND_BINARY SRV_LEAKHOUND SOURCE_DIR

Needs root (Postfix's master), postfix, c-icap. Every process it starts is
stopped by its pid.
"""
import base64
import json
import os
import shutil
import smtplib
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "icap"))
from private_postfix import (DEADLINE, PrivatePostfix, free_port,  # noqa: E402
                             read, start_milter, stop_process, wait_for)
from private_proxy import PrivateCicap  # noqa: E402

LEAKHOUND = MODULE = SOURCE = None

POLICY = """internal_domains = ["corp.test"]

[[rule]]
name = "confidential outside"
action = "reject"
severity = "high"
when = { labels_any = ["confidential"], external_recipient = true }

[[rule]]
name = "confidential inside"
action = "tag"
severity = "low"
when = { labels_any = ["confidential"], external_recipient = false }

[[rule]]
name = "pricing stays inside"
action = "remove-external-recipients"
severity = "medium"
when = { documents = ["public/"], external_recipient = true }

[[rule]]
name = "unlabelled outside"
action = "quarantine"
severity = "medium"
when = { unlabelled = true, external_recipient = true }

[[rule]]
name = "customer rows"
action = "reject"
severity = "high"
when = { records = 2, tables = ["customers"] }

[[rule]]
name = "card numbers"
mode = "monitor"
action = "reject"
severity = "medium"
when = { identifiers = { card = 3 } }

[[rule]]
name = "unread outside"
action = "tempfail"
when = { unread = true, external_recipient = true }
"""

CUSTOMERS = [("ann.lee@clients.test", "Ann Lee"),
             ("bob.ray@clients.test", "Bob Ray"),
             ("cy.twombly@clients.test", "Cy Twombly"),
             ("di.prima@clients.test", "Di Prima")]
CARDS = ["4111111111111111", "5500005555555559", "378282246310005",
         "6011111111111117"]


def mails(source):
    """The 20 mails: (name, sender, recipients, body parts)."""
    def excerpt(name, start=0, words=70):
        text = read(os.path.join(source, "corpus/sample/protected", name))
        return " ".join(text.split()[start:start + words])
    memo = excerpt("merger-memo.txt")
    pricing = excerpt("pricing-2027.txt")
    report = excerpt("incident-report.txt")
    plan = excerpt("research-plan-ja.txt", 0, 120)
    rows = "\n".join("Call %s at %s about the renewal." % (n, e)
                     for e, n in CUSTOMERS[:3])
    one_row = "Call %s at %s." % (CUSTOMERS[0][1], CUSTOMERS[0][0])
    cards = "Cards on file: " + ", ".join(CARDS)
    two_cards = "Cards: %s and %s." % (CARDS[0], CARDS[1])
    clean = "Lunch on Friday? The usual place at noon works for me."
    inside, outside = ["ann@corp.test"], ["bob@example.test"]
    mixed = ["ann@corp.test", "bob@example.test"]
    sub = ["eve@sub.corp.test"]
    cases = [
        ("memo-outside", outside, [memo]),
        ("memo-inside", inside, [memo]),
        ("memo-mixed", mixed, [memo]),
        ("memo-subdomain", sub, [memo]),
        ("pricing-outside", outside, [pricing]),
        ("pricing-mixed", mixed, [pricing]),
        ("report-outside", outside, [report]),
        ("report-inside", inside, [report]),
        ("plan-outside", outside, [plan]),
        ("plan-inside", inside, [plan]),
        ("rows-outside", outside, [rows]),
        ("rows-inside", inside, [rows]),
        ("one-row-outside", outside, [one_row]),
        ("cards-outside", outside, [cards]),
        ("two-cards-outside", outside, [two_cards]),
        ("clean-outside", outside, [clean]),
        ("memo-and-rows", mixed, [memo, rows]),
        ("image-outside", outside, [clean, "IMAGE"]),
        ("image-inside", inside, [clean, "IMAGE"]),
        ("pricing-and-cards", mixed, [pricing + "\n" + cards]),
    ]
    return [(n, "alex@corp.test", to, parts) for n, to, parts in cases]


PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
    "hKmMIQAAAABJRU5ErkJggg==")


def eml(name, sender, recipients, parts):
    """An RFC 5322 message: text parts, and a PNG without text for IMAGE."""
    boundary = "lh-" + name
    head = ("From: %s\r\nTo: %s\r\nSubject: agreement %s\r\nMIME-Version: 1.0"
            "\r\nContent-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n"
            % (sender, ", ".join(recipients), name, boundary))
    body = ""
    for p in parts:
        if p == "IMAGE":
            body += ("--%s\r\nContent-Type: image/png\r\nContent-Disposition: "
                     "attachment; filename=\"scan.png\"\r\nContent-Transfer-"
                     "Encoding: base64\r\n\r\n%s\r\n"
                     % (boundary, base64.b64encode(PNG).decode()))
        else:
            body += ("--%s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
                     "%s\r\n" % (boundary, p.replace("\n", "\r\n")))
    return (head + body + "--%s--\r\n" % boundary).encode()


def rule_names(rules):
    return sorted(r["rule"] if isinstance(r, dict) else r for r in rules)


class DecisionAgreementTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-agree-")
        cls.milter = cls.postfix = cls.icap = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        cls.index = os.path.join(d, "index")
        cls.run_lh("init", "--index", cls.index)
        protected = os.path.join(SOURCE, "corpus/sample/protected")
        for label, files in (("confidential", ("merger-memo.txt",)),
                             ("public", ("pricing-2027.txt", "incident-report.txt")),
                             ("plain", ("research-plan-ja.txt",))):
            staging = os.path.join(d, "share", label)
            os.makedirs(staging)
            for f in files:
                shutil.copy(os.path.join(protected, f), staging)
            labels = [] if label == "plain" else ["--label", label]
            cls.run_lh("sources", "add", "--index", cls.index, *labels, label,
                       staging)
        schema = os.path.join(d, "customers.toml")
        with open(schema, "w") as f:
            f.write('table = "customers"\nmin_matches = 1\n[[column]]\n'
                    'name = "email"\ntype = "email"\nprimary = true\n'
                    '[[column]]\nname = "name"\ntype = "name"\n')
        table = os.path.join(d, "customers.csv")
        with open(table, "w") as f:
            f.write("email,name\n" + "".join("%s,%s\n" % c for c in CUSTOMERS))
        cls.run_lh("records", "add", "--index", cls.index, "--schema", schema,
                   table)
        cls.policy = os.path.join(d, "policy.toml")
        with open(cls.policy, "w") as f:
            f.write(POLICY)
        cls.run_lh("policy", "check", "--index", cls.index, cls.policy)
        cls.mails = []
        for name, sender, to, parts in mails(SOURCE):
            path = os.path.join(d, name + ".eml")
            with open(path, "wb") as f:
                f.write(eml(name, sender, to, parts))
            cls.mails.append((name, sender, to, path))
        cls.store = os.path.join(d, "milter.incidents")
        port = free_port()
        cls.milter = start_milter(
            LEAKHOUND, cls.index, port, os.path.join(d, "milter.log"),
            "--policy", cls.policy, "--incidents", cls.store,
            "--reload-seconds", "0", "--duplicate-window", "0")
        cls.postfix = PrivatePostfix(d, {"agree": port})
        cls.postfix.start()
        cls.web_store = os.path.join(d, "web.incidents")
        cls.icap = PrivateCicap(d, MODULE, cls.index,
                                "leakhound.Policy %s\nleakhound.Incidents %s"
                                % (cls.policy, cls.web_store))
        cls.icap.start()
        if "cannot start" in cls.icap.read_log():
            raise AssertionError(cls.icap.read_log())

    @classmethod
    def tearDownClass(cls):
        if cls.icap is not None:
            cls.icap.stop()
        if cls.postfix is not None:
            cls.postfix.stop()
        if cls.milter is not None:
            stop_process(cls.milter)
        shutil.rmtree(cls.dir, ignore_errors=True)

    @staticmethod
    def run_lh(*args, ok=(0,)):
        p = subprocess.run([LEAKHOUND, *args], capture_output=True, text=True,
                           timeout=120)
        assert p.returncode in ok, (args, p.stdout, p.stderr)
        return p

    # --- the five ------------------------------------------------------------

    def through_milter(self, sender, to, path):
        with open(path, "rb") as f:
            message = f.read()
        with smtplib.SMTP("127.0.0.1", self.postfix.smtp["agree"],
                          timeout=DEADLINE) as s:
            try:
                s.sendmail(sender, to, message)
            except smtplib.SMTPDataError:
                pass  # refused or deferred: the incident says which

    def milter_decisions(self):
        """Per subject: (action, severity, rules), from the milter's store."""
        def rows():
            if not os.path.exists(self.store):
                return []
            out = self.run_lh("incidents", "export", "--format", "jsonl",
                              "--incidents", self.store).stdout
            return [json.loads(line) for line in out.splitlines()]
        return rows

    def scan(self, path, *envelope):
        out = self.run_lh("scan", "--index", self.index, "--policy",
                          self.policy, "--json", *envelope, path,
                          ok=(0, 1)).stdout
        r = json.loads(out.splitlines()[0])
        return (r.get("action", "log"), r.get("severity", ""),
                rule_names(r.get("rules", [])))

    def explain(self, path, *envelope):
        out = self.run_lh("policy", "explain", "--index", self.index,
                          "--policy", self.policy, *envelope, path,
                          ok=(0, 1)).stdout
        (line,) = [l for l in out.splitlines() if l.startswith("decision: ")]
        action = line[len("decision: "):].split()[0].rstrip(",")
        if line.startswith("decision: no rule matches: "):
            action = line[len("decision: no rule matches: "):].split()[0]
        rules = sorted(l.split("'")[1] for l in out.splitlines()
                       if l.startswith("rule '") and "): yes" in l)
        return action, rules

    def through_icap(self, n, path):
        url = "http://uploads.example.test/agree/%d" % n
        subprocess.run(
            ["c-icap-client", "-i", "127.0.0.1", "-p", str(self.icap.port),
             "-s", "leakhound", "-req", url, "-method", "POST", "-f", path,
             "-x", "X-Authenticated-User: alice", "-nopreview"],
            capture_output=True, timeout=DEADLINE)
        return url

    # --- the test ------------------------------------------------------------

    def test_twenty_mails_get_one_decision_from_all_five(self):
        for name, sender, to, path in self.mails:
            self.through_milter(sender, to, path)
        rows = self.milter_decisions()
        wait_for(lambda: len(rows()) >= 17, "the milter's incidents")
        wait_for(self.postfix.settled, "Postfix's queue to settle")
        by_subject = {r["subject"].split()[-1]: r for r in rows()}
        compared = 0
        for name, sender, to, path in self.mails:
            with self.subTest(mail=name):
                scan = self.scan(path)
                explain = self.explain(path)
                r = by_subject.get(name)
                milter = (("log", "", []) if r is None else
                          (r["action"], r["severity"],
                           rule_names([x.split(" (")[0] for x in
                                       r["rules"].split("; ") if x])))
                # The milter's store says "accept" for the flags' log.
                milter = ("log" if milter[0] == "accept" else milter[0],) + milter[1:]
                self.assertEqual(scan, milter, "scan vs milter")
                self.assertEqual(explain, (milter[0], milter[2]),
                                 "explain vs milter")
                compared += 1
        self.assertEqual(compared, 20)
        # Every action of the policy was taken somewhere, the refusal of a
        # removal that would leave nobody among them.
        actions = {r["action"] for r in rows()}
        for a in ("reject", "tag", "remove-external-recipients", "quarantine",
                  "tempfail"):
            self.assertIn(a, actions)
        # Replay of the recording policy: nothing changes, and each rule
        # matches what it matched in the milter.
        replay = json.loads(self.run_lh(
            "policy", "replay", "--policy", self.policy, "--incidents",
            self.store, "--json").stdout)
        self.assertEqual(replay["changed"], 0, replay)
        self.assertEqual(replay["incidents"], len(rows()))
        for rule in replay["rules"]:
            if rule["rule"] == "(no rule)":
                continue
            fired = sum(1 for r in rows() if rule["rule"] + " (" in r["rules"])
            self.assertEqual(rule["matched"], fired, rule["rule"])

    def test_uploads_get_the_decision_scan_and_explain_give_as_web(self):
        envelope = ("--channel", "web", "--sender", "alice",
                    "--recipient", "uploads.example.test")
        urls = {}
        for n, (name, _, _, path) in enumerate(self.mails):
            urls[name] = self.through_icap(n, path)
        db = sqlite3.connect(self.web_store)
        try:
            for name, _, _, path in self.mails:
                with self.subTest(upload=name):
                    row = db.execute(
                        "SELECT action, severity FROM incidents WHERE url = ?",
                        (urls[name],)).fetchone()
                    icap = ("log", "") if row is None else tuple(row)
                    scan = self.scan(path, *envelope)
                    self.assertEqual(scan[:2], icap, "scan vs icap")
                    self.assertEqual(self.explain(path, *envelope)[0], icap[0],
                                     "explain vs icap")
        finally:
            db.close()


if __name__ == "__main__":
    LEAKHOUND, MODULE, SOURCE = map(os.path.abspath, sys.argv[1:4])
    del sys.argv[1:4]
    unittest.main(verbosity=2)
