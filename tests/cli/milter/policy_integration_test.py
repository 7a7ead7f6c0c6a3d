#!/usr/bin/python3
"""Policies through a real Postfix (docs/policy.md).

Starts a private Postfix on loopback ports (private_postfix.py) and four
`leakhound milter` daemons, each with its own policy file and incident
store, behind its own smtpd listener:
  enforce  confidential text: logged inside corp.test, refused outside
           (severity high at 50 % of a document or 3 documents), with an
           exception for the legal group's mail to counsel; public text
           never alerts;
  remove   remove-external-recipients;
  monitor  a reject rule in monitor mode;
  review   redirect to a reviewer, and bcc to an auditor.
Sends mail with smtplib and checks the SMTP replies (the multi-line 550),
the delivered copies (Delivered-To names each recipient the maildir got
it for) and the incidents recorded. Every process it started is stopped
by its pid.

  policy_integration_test.py LEAKHOUND_BINARY SOURCE_DIR

Needs root (Postfix's master) and the postfix package.
"""
import email
import http.client
import json
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from private_postfix import (DEADLINE, PrivatePostfix, free_port, listening,  # noqa: E402
                             read, start_milter, stop_process, wait_for)
from private_slapd import PrivateSlapd  # noqa: E402

LEAKHOUND = None
SOURCE = None

COMMON = """
internal_domains = ["corp.test"]
help_url = "https://help.corp.test/dlp"

[groups]
legal = ["@legal.corp.test"]
"""

POLICIES = {
    "enforce": COMMON + """
[[rule]]
name = "confidential inside"
action = "log"
severity = "low"
[rule.when]
labels_any = ["confidential"]
external_recipient = false

[[rule]]
name = "confidential outside"
action = "reject"
reject_text = "Confidential text may not leave corp.test."
severity = "medium"
steps = [ { share = 0.5, severity = "high" }, { documents = 3, severity = "high" } ]
[rule.when]
labels_any = ["confidential"]
external_recipient = true
[[rule.unless]]
senders = ["group:legal"]
all_recipient_domains = ["counsel.test"]
""",
    "remove": COMMON + """
[[rule]]
name = "confidential stays inside"
action = "remove-external-recipients"
[rule.when]
labels_any = ["confidential"]
external_recipient = true

[[rule]]
name = "trial: quarantine confidential"
mode = "monitor"
action = "quarantine"
[rule.when]
labels_any = ["confidential"]
""",
    "monitor": COMMON + """
[[rule]]
name = "trial: refuse confidential outside"
mode = "monitor"
action = "reject"
[rule.when]
labels_any = ["confidential"]
external_recipient = true
""",
    "notice": COMMON + """
[[rule]]
name = "tell the sender and the desk"
action = "reject"
reject_text = "Refused: it quotes confidential documents."
notify_sender = true
notify = ["dlp@corp.test"]
[rule.when]
labels_any = ["confidential"]
external_recipient = true
""",
    # The legal group from a real slapd (private_slapd.py): paula is in it.
    "directory": COMMON.replace('legal = ["@legal.corp.test"]',
                                'legal = { directory = "cn=legal,ou=groups,dc=corp,dc=test" }') + """
[directory]
url = "{url}"
ca_file = "{ca}"
bind_dn = "{bind_dn}"
bind_password_file = "{secret}"
base_dn = "dc=corp,dc=test"
[directory.roles]
reviewer = "cn=dlp-reviewers,ou=groups,dc=corp,dc=test"
admin = "cn=dlp-admins,ou=groups,dc=corp,dc=test"

[[rule]]
name = "confidential outside"
action = "reject"
[rule.when]
labels_any = ["confidential"]
external_recipient = true
[[rule.unless]]
senders = ["group:legal"]
all_recipient_domains = ["counsel.test"]
""",
    "review": COMMON + """
[[rule]]
name = "prices go to review"
action = "redirect"
reviewer = "reviewer@corp.test"
[rule.when]
documents = ["confidential/pricing-2027.txt"]

[[rule]]
name = "audit copy"
action = "log"
bcc = true
reviewer = "audit@corp.test"
[rule.when]
labels_any = ["confidential"]
""",
}


class PolicyThroughPostfixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-policy-")
        cls.milters = {}  # name -> (Popen, port, log path, incidents)
        cls.postfix = None
        cls.slapd = None
        cls.console = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        cls.index = os.path.join(d, "index")
        protected = os.path.join(SOURCE, "corpus/sample/protected")

        def run(*a):
            subprocess.run([LEAKHOUND, *a], check=True, capture_output=True,
                           timeout=60)
        run("init", "--index", cls.index)
        # One folder per label; ids are "confidential/merger-memo.txt" and so
        # on.
        for label, files in (("confidential",
                              ("merger-memo.txt", "pricing-2027.txt",
                               "supplier-contract-zh.txt",
                               "research-plan-ja.txt")),
                             ("public", ("incident-report.txt",))):
            staging = os.path.join(d, label)
            os.makedirs(staging)
            for f in files:
                shutil.copy(os.path.join(protected, f), staging)
            run("add", "--index", cls.index, "--label", label, staging)
        cls.slapd = PrivateSlapd(os.path.join(d, "ldap"))
        os.makedirs(cls.slapd.dir)
        cls.slapd.start()
        for name, text in POLICIES.items():
            policy = os.path.join(d, "%s.toml" % name)
            with open(policy, "w") as f:
                if name == "directory":
                    text = text.replace("{url}", cls.slapd.url).replace(
                        "{ca}", cls.slapd.ca_file).replace(
                        "{bind_dn}", cls.slapd.bind_dn).replace(
                        "{secret}", cls.slapd.secret_file)
                f.write(text)
            check = subprocess.run([LEAKHOUND, "policy", "check", "--index",
                                    cls.index, policy], capture_output=True,
                                   text=True, timeout=60)
            assert check.returncode == 0, check.stdout + check.stderr
            port = free_port()
            log = os.path.join(d, "milter-%s.log" % name)
            incidents = os.path.join(d, "%s.incidents" % name)
            extra = []
            if name == "notice":
                # Notices through this Postfix's own sendmail(1); digests
                # every 2 s so that the test need not wait a minute.
                extra = ["--sendmail", "/usr/sbin/sendmail -C %s"
                         % os.path.join(d, "postfix"),
                         "--notify-digest-seconds", "2",
                         "--console-url", "https://dlp.corp.test"]
            if name == "monitor":
                cls.metrics_port = free_port()
                extra = ["--metrics", "127.0.0.1:%d" % cls.metrics_port]
            proc = start_milter(
                LEAKHOUND, cls.index, port, log, "--policy", policy,
                "--incidents", incidents, "--reload-seconds", "0",
                "--duplicate-window", "0", *extra)
            cls.milters[name] = (proc, port, log, incidents)
        cls.postfix = PrivatePostfix(
            d, {name: m[1] for name, m in cls.milters.items()})
        cls.postfix.start()
        # A console that logs people in against the directory.
        cls.console_port = free_port()
        cls.console_log = os.path.join(d, "console.log")
        with open(cls.console_log, "w") as log:
            cls.console = subprocess.Popen(
                [LEAKHOUND, "console", "--listen", "127.0.0.1:%d" % cls.console_port,
                 "--incidents", cls.milters["directory"][3],
                 "--policy", os.path.join(d, "directory.toml")],
                stdout=subprocess.DEVNULL, stderr=log)
        wait_for(lambda: listening(cls.console_port) or cls.console.poll() is not None,
                 "the console")
        if cls.console.poll() is not None:
            raise AssertionError("console exited: " + read(cls.console_log))

    @classmethod
    def tearDownClass(cls):
        if cls.console is not None:
            stop_process(cls.console)
        if cls.postfix is not None:
            cls.postfix.stop()
        for proc, _, _, _ in cls.milters.values():
            stop_process(proc)
        if cls.slapd is not None:
            cls.slapd.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- helpers -----------------------------------------------------------

    @staticmethod
    def outbound(name):
        return read(os.path.join(SOURCE, "corpus/sample/outbound", name))

    @staticmethod
    def protected(name):
        return read(os.path.join(SOURCE, "corpus/sample/protected", name))

    def send(self, milter, body, sender="alex@corp.test",
             recipients=("bob@example.test",)):
        """Sends a message with a fresh subject; returns (code, text,
        subject): 250 when accepted."""
        subject = "policy test " + uuid.uuid4().hex
        message = ("From: %s\r\nTo: %s\r\nSubject: %s\r\n"
                   "Content-Type: text/plain; charset=utf-8\r\n\r\n%s"
                   % (sender, ", ".join(recipients), subject,
                      body.replace("\n", "\r\n"))).encode()
        port = self.postfix.smtp[milter]
        with smtplib.SMTP("127.0.0.1", port, timeout=DEADLINE) as s:
            try:
                s.sendmail(sender, list(recipients), message)
                return 250, "", subject
            except smtplib.SMTPDataError as e:
                return e.smtp_code, e.smtp_error.decode(), subject

    def copies(self, subject, expected):
        """The delivered copies of the message with `subject`, by
        Delivered-To, once `expected` copies arrived and Postfix's queue
        settled (so that a copy too many would be seen)."""
        def found():
            out = {}
            for path in self.postfix.delivered():
                m = email.message_from_bytes(read(path, "rb"))
                if m["Subject"] and subject in m["Subject"]:
                    out[m["Delivered-To"]] = m
            return out
        wait_for(lambda: len(found()) >= expected,
                 "%d copies of %s" % (expected, subject))
        wait_for(self.postfix.settled, "Postfix's queue to settle")
        return found()

    def incident(self, milter, subject):
        """The recorded incident of the message with `subject`."""
        store = self.milters[milter][3]
        rows = []

        def look():
            if not os.path.exists(store):
                return False
            out = subprocess.run(
                [LEAKHOUND, "incidents", "export", "--format", "jsonl",
                 "--incidents", store], capture_output=True, text=True,
                timeout=60)
            rows[:] = [json.loads(line) for line in out.stdout.splitlines()
                       if subject in line]
            return bool(rows)
        wait_for(look, "the incident of " + subject)
        return rows[0]

    # --- tests ---------------------------------------------------------------

    def test_internal_only_mail_quoting_a_confidential_document_is_delivered_and_logged(self):
        code, _, subject = self.send("enforce", self.outbound("email-board-leak.txt"),
                                     recipients=("alice@corp.test", "carol@corp.test"))
        self.assertEqual(code, 250)
        self.assertEqual(set(self.copies(subject, 2)),
                         {"alice@corp.test", "carol@corp.test"})
        i = self.incident("enforce", subject)
        self.assertEqual(i["action"], "log")
        self.assertEqual(i["severity"], "low")
        self.assertIn("confidential inside", i["rules"])

    def test_the_same_mail_with_one_external_recipient_is_refused_with_a_multi_line_reply(self):
        code, text, subject = self.send(
            "enforce", self.outbound("email-board-leak.txt"),
            recipients=("alice@corp.test", "bob@example.test"))
        self.assertEqual(code, 550)
        lines = text.split("\n")
        self.assertEqual(len(lines), 3, text)
        self.assertIn("5.7.1 Confidential text may not leave corp.test.", lines[0])
        self.assertRegex(lines[1], r"5\.7\.1 Incident LH-[2-9A-Z]{10}, rule "
                                   r"'confidential outside', severity medium")
        self.assertIn("https://help.corp.test/dlp", lines[2])
        i = self.incident("enforce", subject)
        self.assertEqual(i["action"], "reject")
        self.assertIn(i["reference"], lines[1])
        self.assertNotIn("confidential inside", i["rules"])

    def test_a_public_document_never_alerts(self):
        code, _, subject = self.send("enforce",
                                     self.protected("incident-report.txt"))
        self.assertEqual(code, 250)
        m = self.copies(subject, 1)["bob@example.test"]
        self.assertIsNone(m["X-Leakhound-Status"])
        i = self.incident("enforce", subject)
        self.assertEqual((i["action"], i["severity"], i["rules"]), ("log", "", ""))

    def test_half_of_a_document_is_severity_high(self):
        code, text, subject = self.send("enforce", self.protected("merger-memo.txt"))
        self.assertEqual(code, 550)
        self.assertIn("severity high", text)
        self.assertEqual(self.incident("enforce", subject)["severity"], "high")

    def test_three_documents_step_severity_up(self):
        body = "\n\n".join(self.outbound(f) for f in (
            "email-board-leak.txt", "obfuscated-pricing-leak.txt",
            "wechat-zh-leak.txt"))
        code, text, subject = self.send("enforce", body)
        self.assertEqual(code, 550)
        self.assertIn("severity high", text)
        i = self.incident("enforce", subject)
        self.assertEqual(len(i["documents"]), 3)
        self.assertEqual(i["severity"], "high")
        # One of them alone is medium.
        code, text, _ = self.send("enforce", self.outbound("email-board-leak.txt"))
        self.assertIn("severity medium", text)

    def test_legal_group_mail_to_counsel_passes_but_not_with_one_more_recipient(self):
        code, _, subject = self.send(
            "enforce", self.outbound("email-board-leak.txt"),
            sender="dana@legal.corp.test", recipients=("lee@counsel.test",))
        self.assertEqual(code, 250)
        self.assertIn("lee@counsel.test", self.copies(subject, 1))
        code, _, _ = self.send(
            "enforce", self.outbound("email-board-leak.txt"),
            sender="dana@legal.corp.test",
            recipients=("lee@counsel.test", "bob@example.test"))
        self.assertEqual(code, 550)
        code, _, _ = self.send(
            "enforce", self.outbound("email-board-leak.txt"),
            sender="alex@corp.test", recipients=("lee@counsel.test",))
        self.assertEqual(code, 550)

    def test_a_directory_group_from_slapd_excepts_its_members_mail_to_counsel(self):
        self.assertIn("directory groups: 1 read, 1 addresses",
                      read(self.milters["directory"][2]))
        board = self.outbound("email-board-leak.txt")
        code, _, subject = self.send("directory", board, sender="paula@corp.test",
                                     recipients=("lee@counsel.test",))
        self.assertEqual(code, 250)
        self.assertIn("lee@counsel.test", self.copies(subject, 1))
        code, _, _ = self.send("directory", board, sender="paula@corp.test",
                               recipients=("lee@counsel.test", "bob@example.test"))
        self.assertEqual(code, 550)
        code, _, _ = self.send("directory", board, sender="sam@corp.test",
                               recipients=("lee@counsel.test",))
        self.assertEqual(code, 550)

    def console_login(self, user, password):
        """(status, Location, Set-Cookie) of a login through the form."""
        c = http.client.HTTPConnection("127.0.0.1", self.console_port,
                                       timeout=DEADLINE)
        c.request("GET", "/login")
        r = c.getresponse()
        r.read()
        token = r.getheader("Set-Cookie").split("lh_login=")[1].split(";")[0]
        body = urllib.parse.urlencode({"csrf": token, "user": user,
                                       "password": password,
                                       "next": "/incidents"})
        c.request("POST", "/login", body, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "lh_login=" + token,
            "Origin": "http://127.0.0.1:%d" % self.console_port,
            "Host": "127.0.0.1:%d" % self.console_port})
        r = c.getresponse()
        r.read()
        session = (r.getheader("Set-Cookie") or "").split(";")[0]
        page = ""
        if r.status == 303:
            c.request("GET", "/incidents", headers={"Cookie": session})
            page = c.getresponse().read().decode()
        c.close()
        return r.status, page

    def test_a_directory_user_logs_in_to_the_console_with_the_role_of_their_group(self):
        status, page = self.console_login("rhea", "rhea-ldap-1")
        self.assertEqual(status, 303)
        self.assertIn("rhea (reviewer)", page)
        self.assertEqual(self.console_login("rhea", "wrong-password")[0], 401)
        self.assertEqual(self.console_login("rhea", "")[0], 401)
        # In the directory, but in no console group.
        self.assertEqual(self.console_login("sam", "sam-ldap-1")[0], 401)
        self.assertEqual(self.console_login("nobody*", "x")[0], 401)
        log = read(self.console_log)
        self.assertIn("login: user 'rhea' (reviewer, directory)", log)

    def test_remove_external_recipients_delivers_to_the_internal_ones_only(self):
        code, _, subject = self.send(
            "remove", self.outbound("email-board-leak.txt"),
            recipients=("alice@corp.test", "bob@example.test"))
        self.assertEqual(code, 250)
        got = self.copies(subject, 1)
        self.assertEqual(set(got), {"alice@corp.test"})
        self.assertEqual(got["alice@corp.test"]["X-Leakhound-Removed-Recipients"],
                         "bob@example.test")
        # The whole tag header set goes with it; a monitor rule that also
        # matched is not named to the recipient (monitor changes nothing
        # they see), only in the incident.
        self.assertEqual(got["alice@corp.test"]["X-Leakhound-Status"], "leak")
        self.assertEqual(got["alice@corp.test"]["X-Leakhound-Rules"],
                         "confidential stays inside")
        i = self.incident("remove", subject)
        self.assertEqual(i["action"], "remove-external-recipients")
        self.assertIn("monitor: would quarantine", i["rules"])

    def test_remove_external_recipients_refuses_when_every_recipient_is_outside(self):
        code, _, _ = self.send("remove", self.outbound("email-board-leak.txt"),
                               recipients=("bob@example.test",))
        self.assertEqual(code, 550)

    def test_monitor_mode_delivers_and_records_would_reject(self):
        code, _, subject = self.send("monitor", self.outbound("email-board-leak.txt"))
        self.assertEqual(code, 250)
        self.assertIn("bob@example.test", self.copies(subject, 1))
        i = self.incident("monitor", subject)
        self.assertEqual((i["action"], i["would_action"]), ("log", "reject"))
        self.assertIn("monitor: would reject", i["rules"])
        self.assertIn("would=reject", read(self.milters["monitor"][2]))

    def test_notify_sender_reaches_the_sender_without_protected_text(self):
        code, text, subject = self.send("notice", self.outbound("email-board-leak.txt"))
        self.assertEqual(code, 550)
        reference = text.split("Incident ")[1].split(",")[0]
        # The notice comes back to alex@corp.test through Postfix.
        def notice():
            for path in self.postfix.delivered():
                m = email.message_from_bytes(read(path, "rb"))
                if (m["Delivered-To"] == "alex@corp.test" and
                        reference in (m["Subject"] or "")):
                    return m
            return None
        wait_for(lambda: notice() is not None, "the sender's notice")
        m = notice()
        body = m.get_payload(decode=True).decode()
        self.assertIn(subject, body)
        self.assertIn("confidential/merger-memo.txt", body)
        self.assertIn("Rule: tell the sender and the desk", body)
        self.assertIn("https://help.corp.test/dlp", body)
        self.assertEqual(m["Auto-Submitted"], "auto-generated")
        # Not one 5-word run of the protected memo or of the message.
        for source in (self.protected("merger-memo.txt"),
                       self.outbound("email-board-leak.txt")):
            words = source.split()
            for i in range(len(words) - 5):
                self.assertNotIn(" ".join(words[i:i + 5]), " ".join(body.split()))

    def test_notify_batches_a_burst_into_one_digest_for_the_reviewer(self):
        references = []
        for _ in range(3):
            code, text, _ = self.send("notice", self.outbound("email-board-leak.txt"))
            self.assertEqual(code, 550)
            references.append(text.split("Incident ")[1].split(",")[0])

        def digests():
            out = []
            for path in self.postfix.delivered():
                m = email.message_from_bytes(read(path, "rb"))
                if m["Delivered-To"] == "dlp@corp.test":
                    out.append(m.get_payload(decode=True).decode())
            return [d for d in out if any(r in d for r in references)]
        wait_for(lambda: all(any(r in d for d in digests()) for r in references),
                 "the digests naming the three incidents")
        # A burst inside one period is one mail (the three may straddle two
        # periods of 2 s: at most two mails, never three).
        self.assertLessEqual(len(digests()), 2)
        self.assertIn("https://dlp.corp.test/incidents?reference=" + references[0],
                      "".join(digests()))

    def test_redirect_and_bcc_reach_the_reviewers(self):
        code, _, subject = self.send("review", self.outbound("obfuscated-pricing-leak.txt"))
        self.assertEqual(code, 250)
        got = self.copies(subject, 2)
        self.assertEqual(set(got), {"reviewer@corp.test", "audit@corp.test"})
        self.assertEqual(got["reviewer@corp.test"]["X-Leakhound-Original-Recipients"],
                         "bob@example.test")
        code, _, subject = self.send("review", self.outbound("email-board-leak.txt"))
        self.assertEqual(code, 250)
        self.assertEqual(set(self.copies(subject, 2)),
                         {"bob@example.test", "audit@corp.test"})

    def test_policy_replay_counts_what_a_stricter_policy_would_change(self):
        # The monitor daemon's incidents, replayed under the enforce policy:
        # every confidential leak to bob@example.test would be refused.
        code, _, subject = self.send("monitor", self.outbound("email-board-leak.txt"))
        self.assertEqual(code, 250)
        self.incident("monitor", subject)
        out = subprocess.run(
            [LEAKHOUND, "policy", "replay", "--json", "--policy",
             os.path.join(self.dir, "enforce.toml"), "--incidents",
             self.milters["monitor"][3]], capture_output=True, text=True,
            timeout=60, check=True)
        report = json.loads(out.stdout)
        outside = [r for r in report["rules"] if r["rule"] == "confidential outside"][0]
        self.assertGreaterEqual(outside["changed"], 1)
        self.assertEqual(outside["changes"][0]["from"], "log")
        self.assertEqual(outside["changes"][0]["to"], "reject")
        self.assertEqual(report["changed"], outside["changed"])

    def test_a_broken_policy_on_sighup_keeps_the_previous_one_and_is_counted(self):
        proc, _, log, _ = self.milters["monitor"]
        policy = os.path.join(self.dir, "monitor.toml")
        good = read(policy)

        def metric(name):
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics"
                                        % self.metrics_port, timeout=DEADLINE) as r:
                for line in r.read().decode().splitlines():
                    if line.startswith(name + " "):
                        return float(line.split()[1])
            return None
        self.assertEqual(metric("leakhound_policy_reload_failures_total"), 0)
        try:
            with open(policy, "w") as f:
                f.write(good.replace('action = "reject"', 'acton = "reject"'))
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: "policy not reloaded" in read(log),
                     "the refused reload in the log")
            line = [l for l in read(log).splitlines()
                    if "policy not reloaded" in l][0]
            self.assertIn("monitor.toml:", line)
            self.assertIn("unknown key 'acton'", line)
            self.assertIn("the previous policy stays in force", line)
            self.assertEqual(metric("leakhound_policy_reload_failures_total"), 1)
            # A hostile file (a header of 40,000 dotted keys, which overflowed
            # toml++'s stack) is refused by the bounds: the milter lives on.
            with open(policy, "w") as f:
                f.write("[" + ".".join(["a"] * 40000) + "]\n" + good)
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: read(log).count("policy not reloaded") >= 2,
                     "the hostile file refused")
            self.assertIsNone(proc.poll())
            self.assertIn("a key of more than 8 dotted parts", read(log))
            self.assertEqual(metric("leakhound_policy_reload_failures_total"), 2)
            # A file another user could have written is refused too.
            with open(policy, "w") as f:
                f.write(good.replace('mode = "monitor"', 'mode = "enforce"'))
            os.chmod(policy, 0o666)
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: read(log).count("policy not reloaded") >= 3,
                     "the world-writable file refused")
            self.assertIn("can be written by other users (mode 0666)", read(log))
            self.assertEqual(metric("leakhound_policy_reload_failures_total"), 3)
            os.chmod(policy, 0o644)
            # Still the monitor rule: delivered, would reject.
            code, _, subject = self.send("monitor",
                                         self.outbound("email-board-leak.txt"))
            self.assertEqual(code, 250)
            self.assertEqual(self.incident("monitor", subject)["would_action"],
                             "reject")
            # A changed, valid file is applied on the next SIGHUP.
            with open(policy, "w") as f:
                f.write(good.replace('mode = "monitor"', 'mode = "enforce"'))
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: "policy reloaded (SIGHUP)" in read(log),
                     "the reload in the log")
            code, _, _ = self.send("monitor", self.outbound("email-board-leak.txt"))
            self.assertEqual(code, 550)
        finally:
            with open(policy, "w") as f:
                f.write(good)
            proc.send_signal(signal.SIGHUP)
            wait_for(lambda: read(log).count("policy reloaded (SIGHUP)") >= 2,
                     "the monitor policy back")


if __name__ == "__main__":
    LEAKHOUND, SOURCE = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
