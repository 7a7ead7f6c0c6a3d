#!/usr/bin/python3
"""The mail-gateway hook against a real Postfix (docs/mail-gateway.md).

Starts, on loopback and non-standard ports only, a private Postfix
instance (its own configuration, queue and mail directories under a
temporary directory, no systemd) and four `leakhound milter` daemons, one
per policy (reject, quarantine, tag, hurried: too little time for OCR),
each behind its own smtpd listener,
plus a listener whose milter is down. Sends messages with smtplib and
checks the SMTP replies, the hold queue, the delivered mail and its
headers, Postfix's milter_default_action, and that the daemon picks up an
`leakhound add` on SIGHUP and stops on SIGTERM; that a leak attached as
Word 97, Excel 97, PowerPoint 97 (LibreOffice), RTF, EPUB (pandoc), a
page image (read by OCR), an Outlook .msg or a winmail.dat is refused,
that a part leakhound cannot read is named in X-Leakhound-Unread, and that
one it had no time to read (OCR past --max-seconds) is held.
Every process it started is stopped by its pid.

  postfix_integration_test.py LEAKHOUND_BINARY SOURCE_DIR

Needs root (Postfix's master) and the postfix package
(cmake/install_deps.sh --test installs it).
"""
import email
import email.message
import email.policy
import json
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
from private_postfix import (DEADLINE, PrivatePostfix, free_port, read,  # noqa: E402
                             start_milter, stop_process, wait_for)

LEAKHOUND = None
SOURCE = None


class PostfixMilterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-postfix-")
        cls.milters = {}  # policy -> (Popen, port, log path)
        cls.postfix = None
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
        cls.metrics_port = free_port()
        policies = {
            "reject": ["--on-leak", "reject", "--show-matches", "--metrics",
                       "127.0.0.1:%d" % cls.metrics_port],
            "quarantine": ["--on-leak", "quarantine"],
            "tag": ["--on-leak", "tag", "--status-header"],
            # Too little time for OCR: a scanned attachment is unread for
            # lack of time (class limit), held by default.
            "hurried": ["--max-seconds", "0.3"],
        }
        for name, flags in policies.items():
            port = free_port()
            log = os.path.join(d, "milter-%s.log" % name)
            proc = start_milter(
                LEAKHOUND, cls.index, port, log, "--max-message-size", "1000000",
                "--reload-seconds", "0", "--pidfile",  # SIGHUP only
                os.path.join(d, "milter-%s.pid" % name), *flags)
            cls.milters[name] = (proc, port, log)
        listeners = {name: port for name, (_, port, _) in cls.milters.items()}
        listeners["down"] = free_port()  # nothing listens there
        cls.postfix = PrivatePostfix(d, listeners)
        cls.postfix.start()
        cls.smtp = cls.postfix.smtp

    @classmethod
    def tearDownClass(cls):
        if cls.postfix is not None:
            cls.postfix.stop()
        for proc, _, _ in cls.milters.values():
            stop_process(proc)
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
            for path in self.postfix.delivered():
                text = read(path, "rb")
                if marker in text:
                    found.append(text)
                    return True
            return False
        wait_for(look, "delivery of a message with %r" % marker)
        return email.message_from_bytes(found[0])

    @staticmethod
    def with_attachment(subject, name, data):
        m = email.message.EmailMessage(policy=email.policy.SMTP)
        m["From"] = "alex@leakhound.test"
        m["To"] = "partner@example.test"
        m["Subject"] = subject
        m.set_content("The file is attached.\n")
        m.add_attachment(data, maintype="application", subtype="octet-stream",
                         filename=name)
        return m.as_bytes()

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
        # Leaking in the body too: the body is named "body" in the log
        # line, not an empty entry.
        both = email.message_from_bytes(message, policy=email.policy.SMTP)
        for part in both.walk():
            if part.get_content_type() == "text/plain":
                part.set_content(self.sample("email-board-leak.txt").decode())
                break
        del both["Message-ID"]
        both["Message-ID"] = "<body-and-attachment@corp.test>"
        code, _ = self.send("reject", both.as_bytes())
        self.assertEqual(code, 550)
        wait_for(lambda: "parts=body,call-prep.docx" in self.milter_log("reject"),
                 "the log line naming the body")

    def test_clean_mail_is_delivered_to_the_mailbox(self):
        message = self.with_subject(self.sample("support-reply-clean.txt"),
                                    "clean-delivery-check")
        self.assertEqual(self.send("reject", message), (250, ""))
        self.assertIn("clean-delivery-check", self.delivered(b"clean-delivery-check")["Subject"])

    def test_oversized_message_gets_the_oversize_action(self):
        big = b"Subject: big\r\n\r\n" + (b"x" * 76 + b"\r\n") * 16000  # 1.2 MB
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
        wait_for(lambda: any(q.get("queue_name") == "hold" for q in self.postfix.queue()),
                 "a message in the hold queue")

    def test_tagged_leak_is_delivered_with_headers(self):
        message = self.with_subject(self.sample("obfuscated-pricing-leak.txt"),
                                    "tag-check")
        self.assertEqual(self.send("tag", message), (250, ""))
        delivered = self.delivered(b"tag-check")
        self.assertEqual(delivered["X-Leakhound-Status"], "leak")
        self.assertEqual(delivered["X-Leakhound-Matches"], "protected/pricing-2027.txt")
        clean = self.with_subject(self.sample("support-reply-clean.txt"),
                                  "tag-clean-check")
        self.assertEqual(self.send("tag", clean), (250, ""))
        self.assertEqual(self.delivered(b"tag-clean-check")["X-Leakhound-Status"],
                         "clean")

    def test_legacy_office_rtf_epub_and_image_attachments_are_rejected(self):
        leak = os.path.join(SOURCE, "corpus/sample/outbound/email-board-leak.txt")
        manifest = os.path.join(self.dir, "formats.tsv")
        formats = ["doc", "xls", "ppt", "rtf", "epub", "png"]
        with open(manifest, "w") as f:
            for fmt in formats:
                f.write("%s\t%s\t%s\n" % (fmt, leak, os.path.join(
                    self.dir, "board." + fmt)))
        subprocess.run(["/usr/bin/python3", os.path.join(
            SOURCE, "corpus/make_formats.py"), "--batch", manifest],
            check=True, timeout=600)
        for fmt in formats:
            with self.subTest(fmt):
                name = "board." + fmt
                data = read(os.path.join(self.dir, name), "rb")
                code, text = self.send(
                    "reject", self.with_attachment("legacy-" + fmt, name, data))
                self.assertEqual(code, 550, fmt)
                self.assertIn("merger-memo.txt", text)
                wait_for(lambda: ("parts=" + name) in self.milter_log("reject"),
                         "the log naming " + name)

    def test_the_same_image_in_two_messages_is_read_by_ocr_once(self):
        # One scanned page attached to two messages (a resend, or one per
        # recipient): the second's reading comes from the OCR cache, counted
        # on /metrics; both are judged leaks.
        from prometheus_client.parser import text_string_to_metric_families
        import urllib.request

        def counters():
            with urllib.request.urlopen(
                    "http://127.0.0.1:%d/metrics" % self.metrics_port,
                    timeout=DEADLINE) as r:
                families = {f.name: f for f in
                            text_string_to_metric_families(r.read().decode())}
            return tuple(families[n].samples[0].value for n in (
                "leakhound_ocr_cache_hits", "leakhound_ocr_cache_misses"))
        text = os.path.join(self.dir, "ocr-cache.txt")
        memo = read(os.path.join(SOURCE, "corpus/sample/protected/merger-memo.txt"))
        with open(text, "w") as f:
            f.write("Resent for the OCR cache\n\n" + " ".join(memo.split()[40:140]))
        page = os.path.join(self.dir, "resent.png")
        subprocess.run(["/usr/bin/python3", os.path.join(
            SOURCE, "corpus/make_formats.py"), "png", text, page],
            check=True, timeout=600)
        data = read(page, "rb")
        hits, misses = counters()
        for k in range(2):
            code, _ = self.send("reject", self.with_attachment(
                "resent %d" % k, "resent.png", data))
            self.assertEqual(code, 550)
        self.assertEqual(counters(), (hits + 1, misses + 1))

    def test_outlook_msg_and_winmail_dat_attachments_are_rejected(self):
        import make_legacy_fixtures as fx
        body = read(os.path.join(
            SOURCE, "corpus/sample/outbound/email-board-leak.txt"))
        root = os.path.join(self.dir, "msg")
        fx.write_message(root, "Board", body)
        msg = os.path.join(self.dir, "board.msg")
        fx.create_ole(msg, root)
        rtf = ("{\\rtf1\\ansi " + body.replace("\n", "\\par ") + "}").encode()
        attachments = {"board.msg": read(msg, "rb"),
                       "winmail.dat": fx.tnef("Board", rtf, [])}
        for name, data in attachments.items():
            with self.subTest(name):
                code, text = self.send(
                    "reject", self.with_attachment("outlook-" + name, name, data))
                self.assertEqual(code, 550, name)
                self.assertIn("merger-memo.txt", text)

    def test_unreadable_part_of_a_clean_mail_is_tagged(self):
        blob = b"LHB\x00\x01\x02\x03" * 300  # no format libmagic names
        message = self.with_attachment("unread-check", "blob.bin", blob)
        self.assertEqual(self.send("tag", message), (250, ""))
        delivered = self.delivered(b"unread-check")
        self.assertEqual(delivered["X-Leakhound-Status"], "clean")
        self.assertEqual(delivered["X-Leakhound-Unread"], "blob.bin (unsupported)")
        wait_for(lambda: 'unread="blob.bin (unsupported)"' in self.milter_log("tag"),
                 "the log naming the unread part")

    def test_part_left_unread_for_lack_of_time_is_held_not_delivered(self):
        clean = os.path.join(SOURCE, "corpus/sample/outbound/support-reply-clean.txt")
        scan = os.path.join(self.dir, "reply-scan.pdf")
        subprocess.run(["/usr/bin/python3", os.path.join(
            SOURCE, "corpus/make_formats.py"), "pdf-scan", clean, scan],
            check=True, timeout=600)
        message = self.with_attachment("limit-check", "reply-scan.pdf",
                                       read(scan, "rb"))
        self.assertEqual(self.send("hurried", message), (250, ""))
        wait_for(lambda: 'action=quarantine' in self.milter_log("hurried") and
                 'unread="reply-scan.pdf!/page1 (limit)' in self.milter_log("hurried"),
                 "the log of a held message naming the part left unread")
        self.assertIn("on-unread-limit quarantine", self.milter_log("hurried"))
        wait_for(lambda: any(q.get("queue_name") == "hold"
                             for q in self.postfix.queue()),
                 "a message in the hold queue")

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
        stats = json.loads(subprocess.run(
            [LEAKHOUND, "stats", "--index", self.index, "--json"], check=True,
            capture_output=True, timeout=60).stdout)
        proc = self.milters["reject"][0]
        proc.send_signal(signal.SIGHUP)
        # The daemon serves the generation `leakhound stats` reads.
        wait_for(lambda: "index reloaded (SIGHUP): generation %d ("
                 % stats["generation"] in self.milter_log("reject"), "the reload")
        code, text_reply = self.send("reject", message)
        self.assertEqual(code, 550)
        self.assertIn("relocation-plan.txt", text_reply)

    def test_systemd_hears_ready_watchdog_and_stopping(self):
        # What Type=notify and WatchdogSec need, without systemd: the
        # daemon's datagrams on a socket of ours ($NOTIFY_SOCKET).
        import socket as sockets
        path = os.path.join(self.dir, "notify.sock")
        listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_DGRAM)
        listener.bind(path)
        listener.settimeout(DEADLINE)
        port = free_port()
        env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
        proc = subprocess.Popen(
            [LEAKHOUND, "milter", "--index", self.index, "--socket",
             "inet:%d@127.0.0.1" % port, "--incidents", "off"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            seen = []
            while not any("WATCHDOG=1" in m for m in seen):
                seen.append(listener.recv(4096).decode())
            self.assertIn("READY=1", seen[0])
            self.assertIn("STATUS=serving generation", seen[0])
            proc.send_signal(signal.SIGTERM)
            while not any("STOPPING=1" in m for m in seen):
                seen.append(listener.recv(4096).decode())
            self.assertEqual(proc.wait(timeout=DEADLINE), 0)
        finally:
            stop_process(proc)
            listener.close()

    def test_zy_metrics_count_what_the_daemon_logged(self):
        # Near the end: the reject daemon has judged the other tests' mail.
        # Parsed with prometheus_client's own parser (Debian's
        # python3-prometheus-client).
        from prometheus_client.parser import text_string_to_metric_families
        import urllib.request
        self.assertEqual(self.send("reject", self.sample("email-board-leak.txt"))[0], 550)
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.metrics_port,
                                    timeout=DEADLINE) as r:
            self.assertIn("version=0.0.4", r.headers["Content-Type"])
            families = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
        logged = {}
        for line in self.milter_log("reject").splitlines():
            if " verdict=" in line and "queue_id=" in line:
                fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
                key = (fields["verdict"], fields["action"])
                logged[key] = logged.get(key, 0) + 1
        counted = {(s.labels["verdict"], s.labels["action"]): s.value
                   for s in families["leakhound_milter_messages"].samples}
        self.assertEqual(counted, logged)
        self.assertGreaterEqual(counted[("leak", "reject")], 2)
        scan = [s for s in families["leakhound_milter_scan_seconds"].samples
                if s.name.endswith("_count")][0]
        self.assertEqual(scan.value, sum(logged.values()))
        docs = families["leakhound_index_documents"].samples[0].value
        self.assertGreaterEqual(docs, 5)
        self.assertGreater(families["leakhound_index_generation"].samples[0].value, 0)
        with self.assertRaises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen("http://127.0.0.1:%d/other" % self.metrics_port,
                                   timeout=DEADLINE)
        self.assertEqual(missing.exception.code, 404)

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
