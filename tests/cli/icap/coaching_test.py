#!/usr/bin/python3
"""Web coaching end to end (docs/overrides.md): a real Squid with ICAP
REQMOD to c-icap running leakhound's module under a rule with
`override = "justify"`, the console where the block page's form posts,
and an origin server that records what it receives with its SHA-256:

- alice's upload quoting a protected document is blocked with a page
  whose form offers a justification; submitted to the console, it grants
  one retry: the same upload, sent again as a browser would (a new
  multipart boundary), is delivered byte-identical, and recorded as the
  override with its text; a third try is blocked again;
- a different upload by alice, and the same upload by bob, stay blocked;
- the block page's token does not open another incident's grant, and a
  wrong token grants nothing;
- a JSON chat client gets the offer as a JSON error with the grant URL,
  posts its justification there, and its retry passes.

Every process it started is stopped by its pid.

  coaching_test.py LEAKHOUND_BINARY MODULE SOURCE_DIR

Needs the c-icap and squid-openssl packages (cmake/install_deps.sh --test).
"""
import hashlib
import html
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from private_proxy import (DEADLINE, Origin, PrivateCicap,  # noqa: E402
                           PrivateSquid, free_port, listening, wait_for)

LEAKHOUND = MODULE = SOURCE = None
EXTERNAL = "upload.example.test"
JUSTIFICATION = "Sending the draft to our auditors, engagement letter 2026-14."

POLICY = """internal_domains = ["corp.test"]

[[rule]]
name = "coached uploads"
severity = "medium"
action = "reject"
reject_text = "Protected documents may not leave the company"
override = "justify"
override_minutes = 5
override_min_chars = 20
[rule.when]
channels = ["web"]
external_recipient = true
min_documents = 1
"""


def multipart(boundary, name, filename, content):
    """A form with one file, as a browser sends it."""
    return (("--%s\r\nContent-Disposition: form-data; name=\"%s\"; "
             "filename=\"%s\"\r\nContent-Type: text/plain\r\n\r\n" %
             (boundary, name, filename)).encode() + content +
            ("\r\n--%s--\r\n" % boundary).encode())


class CoachingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="leakhound-coaching-")
        os.chmod(cls.dir, 0o755)
        cls.origin = cls.icap = cls.squid = cls.console = None
        try:
            cls._start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def _start(cls):
        d = cls.dir
        run = lambda *a: subprocess.run(list(a), check=True,
                                        capture_output=True, timeout=120)
        cls.index = os.path.join(d, "index")
        run(LEAKHOUND, "init", "--index", cls.index)
        run(LEAKHOUND, "add", "--index", cls.index,
            os.path.join(SOURCE, "corpus/sample/protected"))
        policy = os.path.join(d, "policy.toml")
        with open(policy, "w") as f:
            f.write(POLICY)
        cls.store = os.path.join(d, "incidents.db")
        cls.http_port = free_port()
        cls.console_url = "http://127.0.0.1:%d" % cls.http_port
        cls.console_log = os.path.join(d, "console.log")
        with open(cls.console_log, "w") as log:
            cls.console = subprocess.Popen(
                [LEAKHOUND, "console", "--listen", "127.0.0.1:%d" % cls.http_port,
                 "--incidents", cls.store], stdout=subprocess.DEVNULL, stderr=log)
        wait_for(lambda: listening(cls.http_port) or cls.console.poll() is not None,
                 "the console")
        cls.origin = Origin()
        cls.origin.start()
        cls.icap = PrivateCicap(d, MODULE, cls.index,
                                "leakhound.Policy %s\nleakhound.Incidents %s\n"
                                "leakhound.ConsoleUrl %s/"
                                % (policy, cls.store, cls.console_url))
        cls.icap.start()
        if "cannot start" in cls.icap.read_log():
            raise AssertionError(cls.icap.read_log())
        cls.squid = PrivateSquid(d, cls.icap.port, [EXTERNAL],
                                 {"alice": "wonderland", "bob": "builder-1"})
        cls.squid.start()
        with open(os.path.join(SOURCE, "corpus/sample/outbound/email-board-leak.txt"),
                  "rb") as f:
            cls.leak = f.read()
        with open(os.path.join(SOURCE, "corpus/sample/outbound/wechat-zh-leak.txt"),
                  "rb") as f:
            cls.other_leak = f.read()

    @classmethod
    def tearDownClass(cls):
        for part in (cls.squid, cls.icap, cls.origin):
            if part is not None:
                part.stop()
        if cls.console is not None:
            cls.console.terminate()
            try:
                cls.console.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                cls.console.kill()
                cls.console.wait()
        if not os.environ.get("LEAKHOUND_KEEP_TEST_DIR"):
            shutil.rmtree(cls.dir, ignore_errors=True)

    # --- helpers -----------------------------------------------------------

    def upload(self, path, body, content_type, user="alice:wonderland",
               accept="text/html"):
        """(status, headers, body) of a POST through the proxy."""
        with tempfile.NamedTemporaryFile(dir=self.dir, delete=False) as f:
            f.write(body)
        out = subprocess.run(
            ["curl", "-s", "-S", "-i", "--max-time", str(DEADLINE),
             "--proxy", "http://127.0.0.1:%d" % self.squid.port,
             "--proxy-user", user, "-H", "Content-Type: " + content_type,
             "-H", "Accept: " + accept, "-H", "Expect:",
             "--data-binary", "@" + f.name,
             "http://%s:%d%s" % (EXTERNAL, self.origin.port, path)],
            capture_output=True, timeout=DEADLINE + 5)
        os.unlink(f.name)
        self.assertEqual(out.returncode, 0, out.stderr.decode())
        head, _, payload = out.stdout.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(lines[0].split()[1]), headers, payload

    def form(self, path, boundary, content, user="alice:wonderland"):
        return self.upload(path, multipart(boundary, "file", "draft.txt", content),
                           "multipart/form-data; boundary=" + boundary, user)

    def grant(self, url, justification, accept="text/html"):
        """POSTs the coaching form to the console, as the browser does once
        the incident is in the store (the gateway writes it in the
        background); returns (status, body)."""
        data = urllib.parse.urlencode({"justification": justification}).encode()
        result = []

        def posted():
            request = urllib.request.Request(url, data=data, headers={"Accept": accept})
            try:
                with urllib.request.urlopen(request, timeout=DEADLINE) as r:
                    result.append((r.status, r.read().decode()))
            except urllib.error.HTTPError as e:
                result.append((e.code, e.read().decode()))
            return result[-1][0] != 404
        wait_for(posted, "the incident at the console")
        return result[-1]

    def origin_saw(self, path):
        return [e for e in self.origin.entries() if e["path"] == path]

    def incident(self, reference):
        db = sqlite3.connect(self.store)
        try:
            db.row_factory = sqlite3.Row
            return db.execute(
                "SELECT i.action, i.detail, i.sender, o.state, o.text, o.used_by, "
                "o.host, o.retried_ms FROM incidents i JOIN overrides o ON "
                "o.incident_id = i.id WHERE i.reference = ?", (reference,)).fetchone()
        finally:
            db.close()

    def blocked_offer(self, status, headers, body):
        self.assertEqual(status, 403, body[:300])
        page = body.decode()
        self.assertIn("Protected documents may not leave the company", page)
        action = re.search(r'<form method="post" action="([^"]+)"', page)
        self.assertIsNotNone(action, page)
        url = html.unescape(action.group(1))
        reference = headers["x-leakhound-incident"]
        self.assertTrue(url.startswith("%s/coach/%s?t=" % (self.console_url, reference)),
                        url)
        self.assertIn('name="justification"', page)
        return reference, url

    # --- the tests -----------------------------------------------------------

    def test_a_justified_upload_passes_once_byte_identical(self):
        # Each test sends its own bytes: a grant is for a body, whatever the
        # path, and one test's grant must not serve another.
        leak = self.leak + b"\ntest 1\n"
        reference, url = self.blocked_offer(*self.form("/doc-1", "AaB03x", leak))
        self.assertEqual(self.origin_saw("/doc-1"), [])
        # Too short first: refused, nothing granted.
        status, page = self.grant(url, "because")
        self.assertEqual(status, 409, page)
        self.assertIn("at least 20 characters", page)
        status, page = self.grant(url, JUSTIFICATION)
        self.assertEqual(status, 200, page)
        self.assertIn("send the same upload again, once, within 5 minutes", page)
        # The same form sent again by the browser: a new boundary.
        retry = multipart("----WebKitFormBoundary7MA4YWxkTrZu0gW", "file", "draft.txt",
                          leak)
        status, headers, body = self.upload(
            "/doc-1-retry", retry,
            "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW")
        self.assertEqual(status, 200, body[:300])
        seen = [e for e in self.origin.entries() if e["path"] == "/doc-1-retry"]
        self.assertEqual(len(seen), 1)
        self.assertEqual(seen[0]["sha256"], hashlib.sha256(retry).hexdigest())
        self.assertEqual(self.origin.body("/doc-1-retry"), retry)
        blocked = self.incident(reference)
        self.assertEqual((blocked["state"], blocked["text"], blocked["used_by"]),
                         ("used", JUSTIFICATION, "alice"))
        self.assertGreater(blocked["retried_ms"], 0)
        # The retry's own incident: let through by the override, with its
        # text (written in the background).
        def retried():
            db = sqlite3.connect(self.store)
            try:
                return db.execute(
                    "SELECT i.action, i.detail, o.state, o.text FROM incidents i "
                    "JOIN overrides o ON o.incident_id = i.id WHERE "
                    "o.state = 'retried' AND i.detail LIKE ?",
                    ("%" + reference,)).fetchall()
            finally:
                db.close()
        wait_for(retried, "the retry's incident")
        rows = retried()
        self.assertEqual(len(rows), 1, rows)
        self.assertEqual(rows[0][0], "log")
        self.assertEqual(rows[0][1], "let through once by the override of " + reference)
        self.assertEqual(rows[0][3], JUSTIFICATION)
        # One retry: the third send is blocked, with a new offer.
        status, headers, body = self.form("/doc-1-third", "third", leak)
        self.assertEqual(status, 403)
        self.assertNotIn("/doc-1-third", [e["path"] for e in self.origin.entries()])

    def test_a_grant_unlocks_neither_another_upload_nor_another_user(self):
        leak = self.leak + b"\ntest 2\n"
        reference, url = self.blocked_offer(*self.form("/doc-2", "b2", leak))
        status, _ = self.grant(url, JUSTIFICATION)
        self.assertEqual(status, 200)
        # alice's other document, and bob's copy of the same one.
        status, _, _ = self.form("/doc-2-other", "b3", self.other_leak)
        self.assertEqual(status, 403)
        status, _, _ = self.form("/doc-2-bob", "b4", leak, user="bob:builder-1")
        self.assertEqual(status, 403)
        paths = [e["path"] for e in self.origin.entries()]
        self.assertNotIn("/doc-2-other", paths)
        self.assertNotIn("/doc-2-bob", paths)
        self.assertEqual(self.incident(reference)["retried_ms"], 0)

    def test_a_token_opens_only_its_own_incident(self):
        leak = self.leak + b"\ntest 3\n"
        other = self.other_leak + b"\ntest 3\n"
        first, url = self.blocked_offer(*self.form("/doc-3", "c1", leak))
        second, _ = self.blocked_offer(*self.form("/doc-3b", "c2", other))
        token = url.split("?t=")[1]
        moved = "%s/coach/%s?t=%s" % (self.console_url, second, token)
        status, page = self.grant(moved, JUSTIFICATION)
        self.assertEqual(status, 403, page)
        status, page = self.grant(url.replace("?t=", "?t=0"), JUSTIFICATION)
        self.assertEqual(status, 403, page)
        self.assertEqual(self.incident(second)["state"], "offered")
        self.assertEqual(self.incident(first)["state"], "offered")

    def test_a_json_client_gets_the_grant_url_and_its_retry_passes(self):
        chat = json.dumps({"model": "m", "messages": [
            {"role": "user", "content": self.leak.decode()}]}).encode()
        status, _, body = self.upload("/v1/chat", chat, "application/json",
                                      accept="application/json")
        self.assertEqual(status, 403)
        error = json.loads(body)["error"]
        self.assertEqual(error["type"], "leakhound_blocked")
        offer = error["override"]
        self.assertEqual((offer["kind"], offer["field"], offer["min_chars"],
                          offer["retry_minutes"]), ("justify", "justification", 20, 5))
        status, reply = self.grant(offer["url"], JUSTIFICATION, accept="application/json")
        self.assertEqual(status, 200, reply)
        self.assertEqual(json.loads(reply)["granted"], True)
        status, _, _ = self.upload("/v1/chat", chat, "application/json",
                                   accept="application/json")
        self.assertEqual(status, 200)
        self.assertEqual(self.origin.body("/v1/chat"), chat)


if __name__ == "__main__":
    LEAKHOUND, MODULE, SOURCE = sys.argv[1:4]
    unittest.main(argv=sys.argv[:1], verbosity=2)
