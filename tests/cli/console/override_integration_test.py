"""Senders who justify and release their own held mail (docs/overrides.md),
end to end: a real Postfix on loopback ports hands mail to `leakhound
milter` under a policy whose rule holds protected text sent outside with
`override = "justify"`; the sender's notice comes back through Postfix
with the link to the console's self-service page; in Debian's Chromium
(override.mjs) the sender logs in through a real slapd (private_slapd.py),
reads what was held and releases it with a justification, and Postfix
delivers it to the recipient's mailbox. Then what must be refused is: the
page after the override was used, another sender's login, a one-time link
opened twice, and a link whose incident reference was changed; and the
self-service pages never show protected text.

usage: override_integration_test.py LEAKHOUND SOURCE_DIR NODE_DIR
Needs root (Postfix) and slapd. Every process started is stopped by its pid.
"""
import email
import http.client
import json
import os
import re
import shutil
import smtplib
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
from browser_runner import run_node  # noqa: E402
from private_postfix import (DEADLINE, PrivatePostfix, free_port, listening,  # noqa: E402
                             read, start_milter, stop_process, wait_for)
from private_slapd import PrivateSlapd  # noqa: E402

LEAKHOUND = SOURCE = NODE_DIR = None
JUSTIFICATION = "The buyer's counsel signed the NDA on 2 March; deal room access."

POLICY = """internal_domains = ["corp.test"]

[directory]
url = "{url}"
ca_file = "{ca}"
bind_dn = "{bind_dn}"
bind_password_file = "{secret}"
base_dn = "dc=corp,dc=test"

[[rule]]
name = "protected text outside"
action = "reject"
reject_text = "Protected documents may not leave the company."
override = "justify"
override_hours = 24
override_min_chars = 20
[rule.when]
min_documents = 1
external_recipient = true
"""


class OverrideTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-override-")
        cls.milter = cls.console = cls.postfix = cls.ldap = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def lh(cls, *args):
        return subprocess.run([LEAKHOUND, *args], check=True, capture_output=True,
                              text=True, timeout=120)

    @classmethod
    def _start(cls):
        d = cls.dir
        cls.ldap = PrivateSlapd(os.path.join(d, "ldap"))
        os.makedirs(cls.ldap.dir)
        cls.ldap.start()
        cls.index = os.path.join(d, "index")
        cls.store = os.path.join(d, "incidents.db")
        cls.lh("init", "--index", cls.index)
        cls.lh("add", "--index", cls.index, os.path.join(SOURCE, "corpus/sample/protected"))
        cls.policy = os.path.join(d, "policy.toml")
        with open(cls.policy, "w") as f:
            f.write(POLICY.format(url=cls.ldap.url, ca=cls.ldap.ca_file,
                                  bind_dn=cls.ldap.bind_dn, secret=cls.ldap.secret_file))
        cls.http_port = free_port()
        cls.url = "http://127.0.0.1:%d" % cls.http_port
        sendmail = "/usr/sbin/sendmail -C %s" % os.path.join(d, "postfix")
        port = free_port()
        cls.milter_log = os.path.join(d, "milter.log")
        cls.milter = start_milter(
            LEAKHOUND, cls.index, port, cls.milter_log, "--policy", cls.policy,
            "--incidents", cls.store, "--reload-seconds", "0",
            "--duplicate-window", "0", "--sendmail", sendmail,
            "--console-url", cls.url)
        cls.postfix = PrivatePostfix(d, {"override": port})
        cls.postfix.start()
        cls.console_log = os.path.join(d, "console.log")
        with open(cls.console_log, "w") as log:
            cls.console = subprocess.Popen(
                [LEAKHOUND, "console", "--listen", "127.0.0.1:%d" % cls.http_port,
                 "--incidents", cls.store, "--policy", cls.policy,
                 "--postfix-config", cls.postfix.config, "--url", cls.url,
                 "--sendmail", sendmail],
                stdout=subprocess.DEVNULL, stderr=log)
        wait_for(lambda: listening(cls.http_port) or cls.console.poll() is not None,
                 "the console")
        if cls.console.poll() is not None:
            raise AssertionError("console exited: " + read(cls.console_log))
        # Three held mails of sam's, one per path through the page.
        cls.refs = {}
        for subject in ("by directory", "by link", "never released"):
            cls.refs[subject] = cls.send("sam@corp.test", subject)

    @classmethod
    def tearDownClass(cls):
        for proc in (cls.console, cls.milter):
            if proc is not None:
                stop_process(proc)
        if cls.postfix is not None:
            cls.postfix.stop()
        if cls.ldap is not None:
            cls.ldap.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def send(cls, sender, subject):
        """Sends the board leak to an outside recipient; returns the
        incident's reference once Postfix holds the mail."""
        body = read(os.path.join(SOURCE, "corpus/sample/outbound/email-board-leak.txt"))
        message = ("From: %s\r\nTo: x@example.test\r\nSubject: %s\r\n\r\n%s" % (
            sender, subject, body.replace("\n", "\r\n"))).encode()
        with smtplib.SMTP("127.0.0.1", cls.postfix.smtp["override"], timeout=DEADLINE) as s:
            s.sendmail(sender, ["x@example.test"], message)  # accepted: held
        found = {}

        def recorded():
            out = subprocess.run([LEAKHOUND, "incidents", "list", "--json",
                                  "--incidents", cls.store], capture_output=True,
                                 text=True, timeout=60)
            for line in out.stdout.splitlines():
                i = json.loads(line)
                if i["subject"] == subject:
                    found.update(i)
            return bool(found)
        wait_for(recorded, "the incident of '%s'" % subject)
        return found["reference"]

    def mails_to(self, address, needle):
        """The delivered mails for `address` whose text holds `needle`."""
        out = []
        for path in self.postfix.delivered():
            m = email.message_from_bytes(read(path, "rb"))
            if m["Delivered-To"] == address:
                text = m.as_string()
                if needle in text:
                    out.append(m)
        return out

    def incident(self, reference):
        listed = json.loads(self.lh("incidents", "list", "--json", "--reference", reference,
                                    "--incidents", self.store).stdout.splitlines()[0])
        return json.loads(self.lh("incidents", "show", str(listed["id"]), "--json",
                                  "--incidents", self.store).stdout)

    def browser(self, *args):
        out = run_node(NODE_DIR, "override.mjs", *args)
        self.assertEqual(out.returncode, 0, out.stderr + out.stdout)
        return json.loads(out.stdout.strip().splitlines()[-1])

    def assert_no_protected_text(self, text):
        words = read(os.path.join(SOURCE, "corpus/sample/protected/merger-memo.txt")).split()
        flat = " ".join(text.split())
        for k in range(len(words) - 5):
            self.assertNotIn(" ".join(words[k:k + 5]), flat)

    def notice_link(self, reference):
        wait_for(lambda: self.mails_to("sam@corp.test", reference), "sam's notice")
        body = self.mails_to("sam@corp.test", reference)[0].get_payload(decode=True).decode()
        links = re.findall(r"http://127\.0\.0\.1:\d+/override/LH-\w+", body)
        self.assertEqual(links, ["%s/override/%s" % (self.url, reference)], body)
        return links[0]

    def test_1_the_sender_releases_a_held_mail_from_the_notice_link(self):
        reference = self.refs["by directory"]
        held = self.incident(reference)
        self.assertEqual((held["action"], held["mail_state"]), ("quarantine", "held"))
        self.assertEqual(held["override"]["state"], "offered")
        self.assertEqual(held["override"]["rule"], "protected text outside")
        self.assertEqual(self.mails_to("x@example.test", "by directory"), [])
        link = self.notice_link(reference)
        seen = self.browser("login", link, "sam", "sam-ldap-1", JUSTIFICATION)
        # What the sender read before releasing: their message, the rule and
        # its text, no protected text.
        self.assertIn("by directory", seen["form"])
        self.assertIn("x@example.test", seen["form"])
        self.assertIn("Protected documents may not leave the company.", seen["form"])
        self.assert_no_protected_text(seen["form"])
        self.assertEqual(seen["status"], 200)
        self.assertIn("was released to its recipients", seen["outcome"])
        wait_for(lambda: self.mails_to("x@example.test", "by directory"),
                 "the released mail in x@example.test's mailbox")
        used = self.incident(reference)
        self.assertEqual(used["mail_state"], "released")
        o = used["override"]
        self.assertEqual(o["state"], "used")
        self.assertEqual(o["text"], JUSTIFICATION)
        self.assertEqual(o["used_by"], "sam@corp.test (directory login sam)")
        self.assertEqual(o["address"], "127.0.0.1")
        # The second use of the link: nothing left to release.
        again = self.browser("login", link, "sam", "sam-ldap-1", "Once more, please release")
        self.assertNotIn("form", again)
        self.assertIn("was released on", again["outcome"])
        self.assertEqual(len(self.mails_to("x@example.test", "by directory")), 1)

    def test_2_another_sender_cannot_open_sams_message(self):
        reference = self.refs["never released"]
        seen = self.browser("login", "%s/override/%s" % (self.url, reference),
                            "paula", "paula-ldap-1", JUSTIFICATION)
        self.assertNotIn("form", seen)
        self.assertIn("You did not send this message", seen["error"])
        self.assertEqual(seen["status"], 403)
        self.assertIn("override of %s refused: 'paula' is not its sender" % reference,
                      read(self.console_log))
        self.assertEqual(self.incident(reference)["override"]["state"], "offered")

    def test_3_a_one_time_link_opens_once_and_only_for_its_incident(self):
        reference = self.refs["by link"]
        seen = self.browser("ask", "%s/override/%s" % (self.url, reference))
        self.assertIn("A one-time link was mailed", seen["notice"])
        wait_for(lambda: self.mails_to("sam@corp.test", "Your link to release held message " +
                                       reference), "the one-time link")
        body = self.mails_to("sam@corp.test", "Your link to release held message " +
                             reference)[0].get_payload(decode=True).decode()
        link = re.findall(r"http://\S+\?t=\S+", body)[0]
        # The same link for another held message of the same sender.
        other = link.replace(reference, self.refs["never released"])
        moved = self.browser("link", other)
        self.assertNotIn("form", moved)
        self.assertIn("not valid for this message", moved["error"])
        self.assertEqual(moved["status"], 403)
        seen = self.browser("link", link, JUSTIFICATION)
        self.assertIn("was released to its recipients", seen["outcome"])
        twice = self.browser("link", link)
        self.assertIn("opened already", twice["error"])
        self.assertEqual(twice["status"], 403)
        wait_for(lambda: self.mails_to("x@example.test", "by link"),
                 "the mail released through the link")
        o = self.incident(reference)["override"]
        self.assertEqual((o["state"], o["used_by"]),
                         ("used", "sam@corp.test (one-time link)"))

    def test_4_a_revoked_override_cannot_be_used(self):
        reference = self.send("sam@corp.test", "revoked")
        self.lh("incidents", "revoke-override", str(self.incident(reference)["id"]),
                "--incidents", self.store)
        seen = self.browser("login", "%s/override/%s" % (self.url, reference),
                            "sam", "sam-ldap-1", JUSTIFICATION)
        self.assertNotIn("form", seen)
        self.assertIn("can no longer be released", seen["outcome"])
        self.assertEqual(self.incident(reference)["mail_state"], "held")
        # Nothing the tests did not release reached the recipient.
        self.assertEqual(self.mails_to("x@example.test", "never released"), [])

    def test_5_forms_without_their_tokens_and_unknown_references_are_refused(self):
        reference = self.refs["never released"]
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=DEADLINE)
        try:
            form = urllib.parse.urlencode({"justification": JUSTIFICATION}).encode()
            for path in ("/override/%s/justify" % reference, "/override/%s/login" % reference,
                         "/override/%s/link" % reference):
                conn.request("POST", path, body=form, headers={
                    "Content-Type": "application/x-www-form-urlencoded"})
                r = conn.getresponse()
                r.read()
                self.assertEqual(r.status, 403, path)
            # An unknown reference, a malformed one and a long one read the
            # same.
            for ref in ("LH-AAAAAAAAAA", "LH-" + "9" * 60, "not-a-reference"):
                conn.request("GET", "/override/" + ref)
                r = conn.getresponse()
                page = r.read().decode()
                self.assertEqual(r.status, 404, ref)
                self.assertIn("No message can be released under this reference", page)
            # The page before a login names nothing of the message.
            conn.request("GET", "/override/" + reference)
            r = conn.getresponse()
            page = r.read().decode()
            self.assertEqual(r.status, 200)
            self.assertNotIn("never released", page)
            self.assertNotIn("x@example.test", page)
        finally:
            conn.close()
        self.assertEqual(self.incident(reference)["override"]["state"], "offered")


if __name__ == "__main__":
    LEAKHOUND, SOURCE, NODE_DIR = sys.argv[1:4]
    unittest.main(argv=sys.argv[:1], verbosity=2)
