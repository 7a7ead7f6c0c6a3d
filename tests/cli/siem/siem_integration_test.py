#!/usr/bin/python3
"""The outbox end to end (docs/siem.md), all on loopback:

  - a private Postfix hands leaking mail with hostile subjects ('|', '=',
    '\\', line breaks, tabs, through RFC 2047) to `leakhound milter
    --incidents --policy`; the policy names four destinations:
      * real rsyslog (Debian's rsyslogd, its own configuration) over TLS
        (RFC 5425, its certificate checked against the test CA) as CEF,
      * the same rsyslog over TCP (RFC 6587) as LEEF 2.0,
      * the same rsyslog over UDP (RFC 5426), review events only,
      * an HTTPS webhook receiver that checks every signature with the
        documented code (docs/examples/leakhound_webhook_verify.py),
    and a fifth, TLS to the same rsyslog with the wrong CA, which must
    never deliver;
  - the webhook receiver is down while the mail goes through, and comes up
    after; while it takes the backlog the milter is killed with SIGKILL
    and restarted;
  - every incident arrives at every destination in order, each field
    checked against the store, at most one repeat per destination for the
    kill; a replayed or altered webhook is refused by the documented check;
  - `leakhound incidents outbox --json` and the milter's /metrics agree.

    siem_integration_test.py LEAKHOUND SOURCE_DIR [--messages N]

Needs root (Postfix). Stops every process it started.
"""
import argparse
import base64
import hmac
import http.server
import json
import os
import shutil
import signal
import smtplib
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "icap"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "docs", "examples"))
from private_postfix import (PrivatePostfix, free_port, read, start_milter,  # noqa: E402
                             stop_process, wait_for)
from private_proxy import make_tls_files  # noqa: E402
from leakhound_webhook_verify import WebhookVerifier  # noqa: E402

DEADLINE = 120
# Refused mail never gives Postfix's flow-control tokens back, so past 100
# refusals smtpd would pause in_flow_delay (1 s) before each message.
NO_FLOW_DELAY = "in_flow_delay = 0\n"
KEY = b"test-webhook-key-0123456789abcdef"


# --- the formats, parsed to their specs --------------------------------

def cef_parse(text):
    """CEF:0|...|...|...|class|name|severity|extension -> (header, ext)."""
    assert text.startswith("CEF:0|"), text[:80]
    header, i, field = [], len("CEF:0|"), ""
    while len(header) < 6:
        c = text[i]
        if c == "\\" and text[i + 1] in "\\|":
            field += text[i + 1]
            i += 2
            continue
        if c == "|":
            header.append(field)
            field = ""
        else:
            field += c
        i += 1
    ext = text[i:]
    # Keys are the words before each unescaped '='.
    marks, k = [], 0
    while k < len(ext):
        if ext[k] == "\\":
            k += 2
            continue
        if ext[k] == "=":
            start = ext.rfind(" ", 0, k) + 1
            marks.append((start, k))
        k += 1
    fields = {}
    for n, (start, eq) in enumerate(marks):
        end = marks[n + 1][0] - 1 if n + 1 < len(marks) else len(ext)
        raw, value, j = ext[eq + 1:end], "", 0
        while j < len(raw):
            if raw[j] == "\\" and j + 1 < len(raw):
                value += {"n": "\n", "r": "\r", "=": "=", "\\": "\\"}.get(
                    raw[j + 1], raw[j + 1])
                j += 2
            else:
                value += raw[j]
                j += 1
        fields[ext[start:eq]] = value
    return header, fields


def leef_parse(text):
    """LEEF:2.0|vendor|product|version|event|x09|k=v<TAB>k=v."""
    parts = text.split("|", 6)
    assert parts[0] == "LEEF:2.0" and parts[5] == "x09", text[:80]
    fields = {}
    for attr in parts[6].split("\t"):
        key, raw = attr.split("=", 1)
        value, j = "", 0
        while j < len(raw):
            if raw[j] == "\\" and j + 1 < len(raw):
                value += {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}[raw[j + 1]]
                j += 2
            else:
                value += raw[j]
                j += 1
        fields[key] = value
    return parts[1:5], fields


def cleaned(text, keep_tab):
    """What a value becomes: controls but LF, CR (and tab in LEEF) as spaces,
    a tab in CEF a space."""
    out = ""
    for c in text:
        if c in "\n\r" or (c == "\t" and keep_tab):
            out += c
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out += " "
        else:
            out += c
    return out


# --- the receivers -------------------------------------------------------

RSYSLOG_CONF = """global(workDirectory="{d}/work" maxMessageSize="256k"
       parser.escapeControlCharactersOnReceive="off"
       defaultNetstreamDriverCAFile="{cert}"
       defaultNetstreamDriverCertFile="{cert}"
       defaultNetstreamDriverKeyFile="{key}")
module(load="imtcp" maxSessions="100")
module(load="imudp")
template(name="line" type="string"
         string="%app-name%\\t%procid%\\t%msgid%\\t%pri%\\t%hostname%\\t%msg:::json%\\n")
ruleset(name="tls") {{ action(type="omfile" file="{d}/tls.log" template="line") }}
ruleset(name="tcp") {{ action(type="omfile" file="{d}/tcp.log" template="line") }}
ruleset(name="udp") {{ action(type="omfile" file="{d}/udp.log" template="line") }}
input(type="imtcp" port="{tls}" address="127.0.0.1" ruleset="tls"
      streamDriver.name="ossl" streamDriver.mode="1" streamDriver.authMode="anon")
input(type="imtcp" port="{tcp}" address="127.0.0.1" ruleset="tcp")
input(type="imudp" port="{udp}" address="127.0.0.1" ruleset="udp")
"""


class Rsyslog:
    def __init__(self, directory, tls_files):
        self.dir = directory
        os.makedirs(os.path.join(directory, "work"), exist_ok=True)
        self.ports = {"tls": free_port(), "tcp": free_port(), "udp": free_port()}
        self.conf = os.path.join(directory, "rsyslog.conf")
        with open(self.conf, "w") as f:
            f.write(RSYSLOG_CONF.format(d=directory, cert=tls_files["origin.pem"],
                                        key=tls_files["origin.key"], **self.ports))
        self.pidfile = os.path.join(directory, "rsyslogd.pid")
        self.pid = None

    def start(self):
        subprocess.run(["rsyslogd", "-f", self.conf, "-i", self.pidfile],
                       check=True, timeout=60)
        wait_for(lambda: os.path.exists(self.pidfile), "rsyslogd")
        self.pid = int(read(self.pidfile).strip())

    def stop(self):
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGTERM)
            for _ in range(200):
                os.kill(self.pid, 0)
                time.sleep(0.05)
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.pid = None

    def messages(self, name):
        path = os.path.join(self.dir, name + ".log")
        if not os.path.exists(path):
            return []
        out = []
        for line in read(path).splitlines():
            app, procid, msgid, pri, host, msg = line.split("\t", 5)
            out.append({"app": app, "procid": procid, "msgid": msgid,
                        "pri": int(pri), "host": host,
                        "msg": json.loads('"' + msg + '"').lstrip(" ")})
        return out


class HookHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real receiver would

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        outcome = self.server.verifier.check(
            self.headers.get("X-Leakhound-Signature"), body)
        with self.server.lock:
            self.server.requests.append(
                (dict(self.headers), body, outcome))
        self.send_response(200 if outcome in ("new", "repeat") else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class HookReceiver:
    """The port is bound at once (no other process can take it) but not
    listened on until start(): until then a connection is refused."""

    def __init__(self, tls_files):
        self.tls = tls_files
        self.verifier = WebhookVerifier(KEY)
        self.requests = []
        self.lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), HookHandler, bind_and_activate=False)
        self.server.verifier = None
        self.server.server_bind()
        self.port = self.server.server_address[1]

    def start(self):
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.tls["origin.pem"], self.tls["origin.key"])
        self.server.socket = context.wrap_socket(self.server.socket,
                                                 server_side=True)
        self.server.server_activate()
        self.server.verifier, self.server.requests = self.verifier, self.requests
        self.server.lock = self.lock
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        if self.server is not None:
            if self.server.verifier is self.verifier:  # started
                self.server.shutdown()
            self.server.server_close()
            self.server = None

    def accepted(self):
        with self.lock:
            return [(h, b) for h, b, o in self.requests if o in ("new", "repeat")]

    def post(self, headers, body):
        """Replays a request; returns the HTTP status."""
        context = ssl.create_default_context(cafile=self.tls["origin.pem"])
        request = urllib.request.Request(
            "https://localhost:%d/events" % self.port, data=body,
            headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, context=context, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code


# --- the run ---------------------------------------------------------------

POLICY = """internal_domains = ["corp.test"]
help_url = "https://help.corp.test/dlp"

[outbox]
console_url = "https://console.corp.test"

[[rule]]
name = "external-leak"
action = "reject"
severity = "high"
reject_text = "Protected text"
[rule.when]
external_recipient = true

[[destination]]
name = "siem-cef"
type = "syslog"
url = "tls://localhost:{tls}"
format = "cef"
facility = "local4"
ca_file = "{ca}"

[[destination]]
name = "qradar-leef"
type = "syslog"
url = "tcp://127.0.0.1:{tcp}"
format = "leef"

[[destination]]
name = "udp-reviews"
type = "syslog"
url = "udp://127.0.0.1:{udp}"
events = ["review"]

[[destination]]
name = "tickets"
type = "webhook"
url = "https://localhost:{hook}/events"
secret_file = "{key}"
ca_file = "{ca}"
max_retry_seconds = 2

[[destination]]
name = "untrusted"
type = "syslog"
url = "tls://localhost:{tls}"
ca_file = "{wrong_ca}"
max_retry_seconds = 2
"""


def subject_of(n):
    """Hostile subjects: the separators of both formats, and line breaks
    and a tab (RFC 2047, so they survive SMTP)."""
    raw = "Q%d|plan=final\\draft" % n
    if n % 3 == 0:
        return raw, raw
    hidden = raw + "\nBcc: evil=1\r\tend|"
    encoded = "=?utf-8?b?%s?=" % base64.b64encode(hidden.encode()).decode()
    return hidden, encoded


def send_all(port, body, count, sessions=8):
    refused = []
    lock = threading.Lock()

    def worker(ids):
        # A new session every 200 messages: smtpd ends a session after
        # smtpd_hard_error_limit (1,000 here) refusals.
        ids = list(ids)
        for start in range(0, len(ids), 200):
            with smtplib.SMTP("127.0.0.1", port, timeout=60) as s:
                for n in ids[start:start + 200]:
                    _, header = subject_of(n)
                    message = ("From: s%d@corp.test\r\nTo: x%d@example.test"
                               "\r\nSubject: %s\r\n\r\n%s"
                               % (n, n, header, body))
                    try:
                        s.sendmail("s%d@corp.test" % n,
                                   ["x%d@example.test" % n], message.encode())
                    except smtplib.SMTPDataError as e:
                        with lock:
                            refused.append((n, e.smtp_code))
    threads = [threading.Thread(target=worker, args=(range(k, count, sessions),))
               for k in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return refused


def store_incidents(store):
    db = sqlite3.connect(store)
    db.row_factory = sqlite3.Row
    rows = {r["id"]: dict(r) for r in db.execute("SELECT * FROM incidents")}
    words = dict(db.execute(
        "SELECT incident_id, SUM(words) FROM incident_documents "
        "WHERE document NOT LIKE 'table %' AND document NOT LIKE 'identifier %' "
        "GROUP BY 1"))
    db.close()
    for i, r in rows.items():
        r["words"] = words.get(i, 0)
    return rows


def in_order(sequences):
    """Strictly increasing but for one repeat of the previous event after
    a kill; returns the number of such repeats."""
    repeats = 0
    for a, b in zip(sequences, sequences[1:]):
        if b == a:
            repeats += 1
        else:
            assert b > a, "out of order: %d after %d" % (b, a)
    return repeats


def check_cef(messages, incidents):
    by_ref = {}
    for m in messages:
        assert m["app"] == "leakhound" and m["msgid"] == "incident:leak", m
        assert m["pri"] == 20 * 8 + 2, m["pri"]  # local4, critical
        header, f = cef_parse(m["msg"])
        assert header[:2] == ["leakhound", "leakhound"], header
        assert header[3:] == ["incident:leak", "Protected text leaving", "9"], header
        by_ref[f["externalId"]] = f
    for i in incidents.values():
        f = by_ref[i["reference"]]
        expected = {
            "rt": str(i["time_ms"]), "cat": "mail", "act": "reject",
            "suser": i["sender"], "duser": i["recipients"].replace("\n", ","),
            "msg": cleaned(i["subject"], keep_tab=False).replace("\t", " "),
            "cs1": i["policy"], "cs2": "external-leak",
            "cs3": i["documents"].replace("\n", ","),
            "cs4": "https://console.corp.test/incidents?reference=" + i["reference"],
            "cn1": str(i["words"]), "cn2": str(i["id"]),
            "flexString2": "high", "externalId": i["reference"],
        }
        for key, value in expected.items():
            assert f.get(key) == value, (key, f.get(key), value)
        assert f["cs5Label"] == "eventId" and len(f["cs5"]) == 32
    return len(by_ref)


def check_leef(messages, incidents):
    by_ref = {}
    for m in messages:
        header, f = leef_parse(m["msg"])
        assert header == ["leakhound", "leakhound", header[2], "incident:leak"]
        by_ref[f["reference"]] = f
    for i in incidents.values():
        f = by_ref[i["reference"]]
        expected = {
            "sev": "9", "cat": "mail", "action": "reject",
            "usrName": i["sender"], "recipients": i["recipients"].replace("\n", ","),
            "subject": cleaned(i["subject"], keep_tab=True),
            "policy": i["policy"], "rules": "external-leak",
            "documents": i["documents"].replace("\n", ","),
            "words": str(i["words"]), "incidentId": str(i["id"]),
            "severity": "high",
        }
        for key, value in expected.items():
            assert f.get(key) == value, (key, f.get(key), value)
        assert f["devTimeFormat"] == "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
    return len(by_ref)


def outbox_state(leakhound, store):
    out = subprocess.run([leakhound, "incidents", "outbox", "--json",
                          "--incidents", store], capture_output=True,
                         text=True, timeout=60, check=True)
    return {d["name"]: d for d in json.loads(out.stdout)["destinations"]}


class Setup:
    """What a run needs in `work`: the test CA and certificate, an index of
    the sample's protected documents, the webhook key, rsyslog's and the
    webhook receiver's ports, the policy file (`policy` formatted with
    ca, wrong_ca, hook, key, tls, tcp, udp) and a leaking body."""

    def __init__(self, leakhound, source, work, policy):
        self.tls = make_tls_files(os.path.join(work, "tls"), ["localhost"])
        self.index = os.path.join(work, "index")
        self.store = os.path.join(work, "incidents.db")
        subprocess.run([leakhound, "init", "--index", self.index], check=True,
                       capture_output=True)
        subprocess.run([leakhound, "add", "--index", self.index,
                        os.path.join(source, "corpus/sample/protected")],
                       check=True, capture_output=True)
        key = os.path.join(work, "hook.key")
        with open(key, "wb") as f:
            f.write(KEY + b"\n")
        os.chmod(key, 0o600)
        self.rsyslog = Rsyslog(os.path.join(work, "rsyslog"), self.tls)
        self.hook = HookReceiver(self.tls)
        self.policy = os.path.join(work, "policy.toml")
        with open(self.policy, "w") as f:
            f.write(policy.format(ca=self.tls["origin.pem"],
                                  wrong_ca=self.tls["bump-ca.pem"],
                                  hook=self.hook.port, key=key,
                                  **self.rsyslog.ports))
        self.body = read(os.path.join(
            source, "corpus/sample/outbound/email-board-leak.txt")).replace(
                "\n", "\r\n")


def run(args, work):
    leakhound = args.leakhound
    setup = Setup(leakhound, args.source, work, POLICY)
    index, store, policy = setup.index, setup.store, setup.policy
    rsyslog, hook, body = setup.rsyslog, setup.hook, setup.body
    milter_port, metrics_port = free_port(), free_port()
    postfix = PrivatePostfix(work, {"gateway": milter_port}, NO_FLOW_DELAY)
    milter_log = os.path.join(work, "milter.log")
    flags = ("--policy", policy, "--incidents", store, "--reload-seconds", "0",
             "--duplicate-window", "0", "--metrics", "127.0.0.1:%d" % metrics_port)
    milter = None
    try:
        rsyslog.start()
        postfix.start()
        milter = start_milter(leakhound, index, milter_port, milter_log, *flags)
        # 1. The mail, with the webhook receiver down.
        started = time.monotonic()
        refused = send_all(postfix.smtp["gateway"], body, args.messages)
        assert len(refused) == args.messages, (len(refused), refused[:3])
        assert all(code == 550 for _, code in refused), refused[:3]
        print("%d mails refused in %.1f s" % (len(refused),
                                              time.monotonic() - started))
        wait_for(lambda: len(store_incidents(store)) == args.messages,
                 "incidents recorded", DEADLINE)
        wait_for(lambda: len(rsyslog.messages("tls")) >= args.messages and
                 len(rsyslog.messages("tcp")) >= args.messages,
                 "CEF and LEEF at rsyslog", DEADLINE)
        state = outbox_state(leakhound, store)
        assert state["tickets"]["pending"] == args.messages, state["tickets"]
        assert state["tickets"]["retried"] > 0, state["tickets"]
        # 2. The receiver comes back; the milter is killed while it
        # delivers the backlog, and restarted.
        hook.start()
        wait_for(lambda: len(hook.accepted()) >= args.messages // 4,
                 "webhook backlog under way", DEADLINE)
        milter.kill()
        milter.wait()
        delivered_at_kill = len(hook.accepted())
        milter = start_milter(leakhound, index, milter_port, milter_log, *flags)
        # Reviews: to every destination that takes them (UDP too).
        ids = sorted(store_incidents(store))[:5]
        for i in ids:
            subprocess.run([leakhound, "incidents", "resolve", str(i), "--as",
                            "confirmed", "--note", "seen|a=b\\c\nok",
                            "--incidents", store], check=True,
                           capture_output=True, timeout=60)
        total = args.messages + len(ids)
        wait_for(lambda: len({json.loads(b)["id"] for _, b in hook.accepted()})
                 == total, "every event at the webhook", DEADLINE)
        wait_for(lambda: len(rsyslog.messages("udp")) == len(ids),
                 "the reviews over UDP", DEADLINE)
        print("webhook: %d accepted before the kill" % delivered_at_kill)
        return check(args, leakhound, store, rsyslog, hook, ids, metrics_port)
    except Exception:
        print("milter log (end):\n" + read(milter_log)[-4000:])
        raise
    finally:
        if milter is not None:
            stop_process(milter)
        postfix.stop()
        hook.stop()
        rsyslog.stop()


def check(args, leakhound, store, rsyslog, hook, review_ids, metrics_port):
    incidents = store_incidents(store)
    n, total = args.messages, args.messages + len(review_ids)
    # CEF over TLS and LEEF over TCP: every field of every incident.
    tls_msgs = [m for m in rsyslog.messages("tls") if m["msgid"] == "incident:leak"]
    tcp_msgs = [m for m in rsyslog.messages("tcp") if m["msgid"] == "incident:leak"]
    assert check_cef(tls_msgs, incidents) == n
    assert check_leef(tcp_msgs, incidents) == n
    for name, msgs, key in (("tls", rsyslog.messages("tls"), "cn3"),
                            ("tcp", rsyslog.messages("tcp"), "sequence")):
        parse = cef_parse if name == "tls" else leef_parse
        seqs = [int(parse(m["msg"])[1][key]) for m in msgs]
        repeats = in_order(seqs)
        assert repeats <= 1, (name, repeats)
        assert len(set(seqs)) == total, (name, len(set(seqs)))
        print("%s: %d messages, %d events, %d repeated after the kill"
              % (name, len(msgs), len(set(seqs)), repeats))
    # The reviews over UDP: CEF, with the reviewer's note escaped.
    for m in rsyslog.messages("udp"):
        header, f = cef_parse(m["msg"])
        assert header[3] == "review:resolved" and header[5] == "1", header
        assert f["outcome"] == "confirmed" and f["reason"] == "seen|a=b\\c\nok", f
    # The webhook: every event once as new, in order, signatures checked.
    bodies = [json.loads(b) for _, b in hook.accepted()]
    seqs = [b["sequence"] for b in bodies]
    repeats = in_order(seqs)
    assert repeats <= 1, repeats
    assert len({b["id"] for b in bodies}) == total
    rejected = [o for _, _, o in hook.requests if o not in ("new", "repeat")]
    assert not rejected, rejected[:3]
    by_ref = {b["reference"]: b for b in bodies if b["type"] == "incident"}
    for i in incidents.values():
        b = by_ref[i["reference"]]
        assert b["schema"] == "leakhound.webhook/1" and b["class"] == "incident:leak"
        assert b["subject"] == i["subject"] and b["sender"] == i["sender"]
        assert b["incident_id"] == i["id"] and b["words"] == i["words"]
        assert b["link"].endswith("reference=" + i["reference"])
        assert "snippets" not in b
    print("webhook: %d requests, %d events, %d repeated after the kill"
          % (len(bodies), len({b["id"] for b in bodies}), repeats))
    # The documented check refuses a replayed or altered request.
    headers, body = hook.accepted()[-1]
    replay = {"X-Leakhound-Signature": headers["X-Leakhound-Signature"],
              "Content-Type": "application/json"}
    before = len([o for _, _, o in hook.requests if o == "new"])
    assert hook.post(replay, body) == 200  # answered, not taken again
    assert len([o for _, _, o in hook.requests if o == "new"]) == before
    assert hook.requests[-1][2] == "repeat"
    assert hook.post(replay, body.replace(b'"high"', b'"low"', 1)) == 401
    assert hook.requests[-1][2] == "bad-signature"
    stamp = int(time.time()) - 3600
    old = "t=%d,v1=%s" % (stamp, hmac.new(
        KEY, str(stamp).encode() + b"." + body, "sha256").hexdigest())
    assert hook.post({**replay, "X-Leakhound-Signature": old}, body) == 401
    assert hook.requests[-1][2] == "stale"
    # The outbox and /metrics.
    state = outbox_state(leakhound, store)
    for name in ("siem-cef", "qradar-leef", "tickets"):
        assert state[name]["pending"] == 0 and state[name]["delivered"] == total, \
            state[name]
    assert state["udp-reviews"]["delivered"] == len(review_ids)
    assert state["udp-reviews"]["skipped"] == n, state["udp-reviews"]
    assert state["untrusted"]["delivered"] == 0
    assert state["untrusted"]["pending"] == total
    assert "certificate is refused" in state["untrusted"]["last_error"], \
        state["untrusted"]
    def scrape():
        url = "http://127.0.0.1:%d/metrics" % metrics_port
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()
    # The senders refresh what they show at least once a second.
    want = ['leakhound_outbox_delivered_total{destination="tickets"} %d' % total,
            'leakhound_outbox_pending{destination="untrusted"} %d' % total,
            'leakhound_outbox_queued_total{destination="siem-cef"} %d' % total]
    wait_for(lambda: all(w in scrape() for w in want), "the metrics", 30)
    print("siem integration: ok")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("source")
    ap.add_argument("--messages", type=int, default=1000)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="leakhound-siem-")
    try:
        return run(args, work)
    finally:
        if not os.environ.get("LEAKHOUND_KEEP"):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
