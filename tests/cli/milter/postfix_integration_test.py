#!/usr/bin/python3
"""The mail-gateway hook against a real Postfix (docs/mail-gateway.md).

Starts, on loopback and non-standard ports only, a private Postfix
instance (its own configuration, queue and mail directories under a
temporary directory, no systemd) and three `leakhound milter` daemons, one
per policy (reject, quarantine, tag), each behind its own smtpd listener,
plus a listener whose milter is down. Sends messages with smtplib and
checks the SMTP replies, the hold queue, the delivered mail and its
headers, Postfix's milter_default_action, and that the daemon picks up an
`leakhound add` on SIGHUP and stops on SIGTERM. Every process it started
is stopped by its pid.

  postfix_integration_test.py LEAKHOUND_BINARY SOURCE_DIR

Needs root (Postfix's master) and the postfix package
(cmake/install_deps.sh installs it).
"""
import email
import glob
import json
import os
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import time
import unittest

LEAKHOUND = None
SOURCE = None
DEADLINE = 20  # seconds any single wait may take


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, what, timeout=DEADLINE):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class PostfixMilterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-postfix-")
        cls.milters = {}  # policy -> (Popen, port, log path)
        cls.master_pid = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        cls.index = os.path.join(d, "index")
        run = lambda *a: subprocess.run([LEAKHOUND, *a], check=True,
                                        capture_output=True, timeout=60)
        run("init", "--index", cls.index)
        run("add", "--index", cls.index,
            os.path.join(SOURCE, "corpus/sample/protected"))
        policies = {
            "reject": ["--on-leak", "reject", "--show-matches"],
            "quarantine": ["--on-leak", "quarantine"],
            "tag": ["--on-leak", "tag", "--status-header"],
        }
        for name, flags in policies.items():
            port = free_port()
            log = os.path.join(d, "milter-%s.log" % name)
            log_file = open(log, "w")
            proc = subprocess.Popen(
                [LEAKHOUND, "milter", "--index", cls.index, "--socket",
                 "inet:%d@127.0.0.1" % port, "--max-message-size", "200000",
                 "--reload-seconds", "3600", "--pidfile",
                 os.path.join(d, "milter-%s.pid" % name), *flags],
                stdout=subprocess.DEVNULL, stderr=log_file)
            log_file.close()  # the daemon has its own descriptor
            cls.milters[name] = (proc, port, log)
        for name, (proc, port, log) in cls.milters.items():
            wait_for(lambda: listening(port) or proc.poll() is not None,
                     "milter " + name)
            if proc.poll() is not None:
                raise AssertionError("milter %s exited: %s" % (name, read(log)))
        cls.smtp = {name: free_port() for name in list(policies) + ["down"]}
        cls.down_milter = free_port()  # nothing listens there
        cls._write_postfix_config()
        pf = os.path.join(d, "postfix")
        subprocess.run(["postfix", "-c", pf, "check"], check=True, timeout=60)
        subprocess.run(["postfix", "-c", pf, "start"], check=True, timeout=60,
                       capture_output=True)
        pidfile = os.path.join(d, "queue/pid/master.pid")
        wait_for(lambda: os.path.exists(pidfile), "Postfix master")
        cls.master_pid = int(read(pidfile).strip())
        for port in cls.smtp.values():
            wait_for(lambda: listening(port), "smtpd on %d" % port)

    @classmethod
    def _write_postfix_config(cls):
        d = cls.dir
        pf = os.path.join(d, "postfix")
        for sub in ("postfix", "queue", "mail"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        data = os.path.join(d, "data")
        os.makedirs(data, exist_ok=True)
        shutil.chown(data, "postfix")
        shutil.chown(os.path.join(d, "mail"), 65534, 65534)
        os.chmod(d, 0o755)
        with open(os.path.join(pf, "main.cf"), "w") as f:
            f.write("""compatibility_level = 3.6
queue_directory = {d}/queue
data_directory = {d}/data
mail_owner = postfix
setgid_group = postdrop
myhostname = gateway.leakhound.test
mydomain = leakhound.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
virtual_mailbox_domains = example.test
virtual_mailbox_base = {d}/mail
virtual_mailbox_maps = static:inbox/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
maillog_file = {d}/maillog
maillog_file_prefixes = {d}
milter_default_action = tempfail
milter_protocol = 6
alias_maps =
alias_database =
biff = no
smtputf8_enable = no
""".format(d=d))
        services = """pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
virtual unix - n n - - virtual
smtp unix - - n - - smtp
relay unix - - n - - smtp
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""
        with open(os.path.join(pf, "master.cf"), "w") as f:
            for name, port in cls.smtp.items():
                milter = cls.down_milter if name == "down" else cls.milters[name][1]
                f.write("127.0.0.1:%d inet n - n - - smtpd "
                        "-o smtpd_milters=inet:127.0.0.1:%d\n" % (port, milter))
            f.write(services)

    @classmethod
    def tearDownClass(cls):
        pf = os.path.join(cls.dir, "postfix")
        if cls.master_pid is not None:
            subprocess.run(["postfix", "-c", pf, "stop"], capture_output=True,
                           timeout=60)
            try:
                os.kill(cls.master_pid, 0)
                time.sleep(1)
                os.kill(cls.master_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for proc, _, _ in cls.milters.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=DEADLINE)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- helpers -----------------------------------------------------------

    def send(self, policy, message, recipient="bob@example.test"):
        """Sends `message` (bytes) through the listener of `policy`;
        returns (code, text) of the final reply: 250 when accepted."""
        with smtplib.SMTP("127.0.0.1", self.smtp[policy], timeout=DEADLINE) as s:
            try:
                s.sendmail("alex@leakhound.test", [recipient], message)
                return 250, ""
            except smtplib.SMTPDataError as e:
                return e.smtp_code, e.smtp_error.decode()
            except smtplib.SMTPRecipientsRefused as e:
                code, text = list(e.recipients.values())[0]
                return code, text.decode()
            except smtplib.SMTPSenderRefused as e:
                return e.smtp_code, e.smtp_error.decode()

    @staticmethod
    def sample(name):
        data = read(os.path.join(SOURCE, "corpus/sample/outbound", name), "rb")
        return data if name.endswith(".eml") else data.replace(b"\n", b"\r\n")

    def delivered(self, marker):
        """The delivered message containing `marker`, waiting for it."""
        found = []

        def look():
            for path in glob.glob(os.path.join(self.dir, "mail/inbox/new/*")):
                text = read(path, "rb")
                if marker in text:
                    found.append(text)
                    return True
            return False
        wait_for(look, "delivery of a message with %r" % marker)
        return email.message_from_bytes(found[0])

    def queue(self):
        out = subprocess.run(["postqueue", "-c", os.path.join(self.dir, "postfix"),
                              "-j"], capture_output=True, check=True, timeout=60)
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]

    def milter_log(self, policy):
        return read(self.milters[policy][2])

    @staticmethod
    def with_subject(message, subject):
        return b"Subject: " + subject.encode() + b"\r\n" + message

    # --- tests ---------------------------------------------------------------

    def test_leak_in_the_body_is_rejected_with_5_7_1(self):
        code, text = self.send("reject", self.sample("email-board-leak.txt"))
        self.assertEqual(code, 550)
        self.assertIn("5.7.1", text)
        self.assertIn("merger-memo.txt", text)  # --show-matches

    def test_leak_in_a_base64_docx_attachment_is_rejected(self):
        message = self.sample("mail-docx-attachment-leak.eml")
        self.assertIn(b"Content-Transfer-Encoding: base64", message)
        code, text = self.send("reject", message)
        self.assertEqual(code, 550)
        self.assertIn("incident-report.txt", text)
        wait_for(lambda: "parts=call-prep.docx" in self.milter_log("reject"),
                 "the milter's log line")

    def test_clean_mail_is_delivered_to_the_mailbox(self):
        message = self.with_subject(self.sample("support-reply-clean.txt"),
                                    "clean-delivery-check")
        self.assertEqual(self.send("reject", message), (250, ""))
        self.assertIn("clean-delivery-check", self.delivered(b"clean-delivery-check")["Subject"])

    def test_oversized_message_gets_the_oversize_action(self):
        big = b"Subject: big\r\n\r\n" + (b"x" * 76 + b"\r\n") * 4000  # 312 KB
        code, text = self.send("reject", big)
        self.assertEqual(code, 550)
        self.assertIn("too large", text)

    def test_malformed_mime_is_an_error_and_tempfails(self):
        malformed = (b"Subject: broken\r\nMIME-Version: 1.0\r\n"
                     b"Content-Type: multipart/mixed\r\n\r\n"
                     b"no boundary parameter, so no parts\r\n")
        code, _ = self.send("reject", malformed)
        self.assertEqual(code, 451)
        self.assertIn("verdict=error", self.milter_log("reject"))

    def test_quarantined_leak_waits_in_the_hold_queue(self):
        message = self.with_subject(self.sample("email-board-leak.txt"),
                                    "quarantine-check")
        self.assertEqual(self.send("quarantine", message), (250, ""))
        wait_for(lambda: any(q.get("queue_name") == "hold" for q in self.queue()),
                 "a message in the hold queue")

    def test_tagged_leak_is_delivered_with_headers(self):
        message = self.with_subject(self.sample("obfuscated-pricing-leak.txt"),
                                    "tag-check")
        self.assertEqual(self.send("tag", message), (250, ""))
        delivered = self.delivered(b"tag-check")
        self.assertEqual(delivered["X-Leakhound-Status"], "leak")
        self.assertEqual(delivered["X-Leakhound-Matches"], "pricing-2027.txt")
        clean = self.with_subject(self.sample("support-reply-clean.txt"),
                                  "tag-clean-check")
        self.assertEqual(self.send("tag", clean), (250, ""))
        self.assertEqual(self.delivered(b"tag-clean-check")["X-Leakhound-Status"],
                         "clean")

    def test_milter_down_gets_postfix_default_action_tempfail(self):
        code, _ = self.send("down", self.sample("support-reply-clean.txt"))
        self.assertEqual(code // 100, 4)

    def test_sighup_picks_up_a_document_added_meanwhile(self):
        text = (b"The relocation of the archive servers to the Tallinn site "
                b"begins on the fourth of May; the tape library moves first, "
                b"the indexing cluster follows a week later, and the old racks "
                b"are returned to the landlord at the end of June.\r\n")
        doc = os.path.join(self.dir, "relocation-plan.txt")
        with open(doc, "wb") as f:
            f.write(text.replace(b"\r\n", b"\n"))
        message = b"Subject: plan\r\n\r\n" + text
        self.assertEqual(self.send("reject", message)[0], 250)  # not protected yet
        subprocess.run([LEAKHOUND, "add", "--index", self.index, doc], check=True,
                       capture_output=True, timeout=60)
        proc = self.milters["reject"][0]
        proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "index reloaded (SIGHUP)" in self.milter_log("reject"),
                 "the reload")
        code, text_reply = self.send("reject", message)
        self.assertEqual(code, 550)
        self.assertIn("relocation-plan.txt", text_reply)

    def test_zz_sigterm_stops_the_daemon_and_removes_its_pidfile(self):
        # Runs last (unittest orders tests by name): it stops the tag milter.
        proc, _, _ = self.milters["tag"]
        pidfile = os.path.join(self.dir, "milter-tag.pid")
        self.assertEqual(int(read(pidfile)), proc.pid)
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(timeout=DEADLINE), 0)
        self.assertFalse(os.path.exists(pidfile))
        self.assertIn("stopped; 0 sessions cut", self.milter_log("tag"))


if __name__ == "__main__":
    LEAKHOUND, SOURCE = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    unittest.main(verbosity=2)
