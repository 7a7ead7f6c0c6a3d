#!/usr/bin/python3
"""A fleet with one desk, end to end (docs/fleet.md), all on loopback:

  - a real PostgreSQL 15 (a private cluster, tests/postgres_cluster.py) is
    the desk: the incident store of every gateway and the console;
  - three milters (mx1, mx2 behind Postfix A; mx3 behind Postfix B) and one
    c-icap service (icap1) run `--policy desk` and report to the desk;
  - one console on the desk.

The main checks (default):
  - N mails (3,000) judged, every incident in PostgreSQL exactly once;
  - a mail held by mx2, released from the console, delivered by Postfix A;
  - a policy published once and enforced by all four gateways within their
    reload interval, the Nodes page showing one digest;
  - mx3, on an index snapshot the writer moved past, flagged behind.

With --faults, instead:
  - PostgreSQL stopped for --outage seconds (60) while mail flows, then
    started: 0 incidents lost, 0 duplicated, no mail waits on the desk;
  - a milter SIGKILLed while its spool holds incidents: all arrive after
    its restart;
  - PostgreSQL restarted during release requests: each ends done or
    failed, never both, and the mail is delivered exactly when done.

    fleet_integration_test.py LEAKHOUND SRV_LEAKHOUND SOURCE_DIR
        [--mails N] [--faults [--outage S]]

Needs root (Postfix, initdb as postgres), postfix, c-icap, postgresql-15.
Every process it starts is stopped by its pid.
"""
import argparse
import http.client
import os
import re
import shutil
import smtplib
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "icap"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "console"))
from console_client import Client  # noqa: E402
from private_postfix import (PrivatePostfix, free_port, read,  # noqa: E402
                             start_milter, stop_process, wait_for)
from private_proxy import PrivateCicap  # noqa: E402
import postgres_cluster  # noqa: E402

DEADLINE = 120
PASSWORD = "fleet-desk-password-1"
NO_FLOW_DELAY = "in_flow_delay = 0\n"

POLICY = """internal_domains = ["corp.test"]

[[rule]]
name = "confidential outside"
action = "quarantine"
severity = "%s"
[rule.when]
labels_any = ["confidential"]
external_recipient = true
"""


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Fleet:
    def __init__(self, args):
        self.args = args
        self.lh = args.leakhound
        self.dir = tempfile.mkdtemp(prefix="leakhound-fleet-")
        os.chmod(self.dir, 0o755)
        self.procs = {}
        self.pg_dir = os.path.join(self.dir, "pg")
        self.uri = None
        self.postfix = {}
        self.icap = None

    # --- the desk ------------------------------------------------------
    def start_desk(self):
        out = subprocess.run([sys.executable, os.path.join(
            self.args.source, "tests", "postgres_cluster.py"), "start",
            self.pg_dir], capture_output=True, text=True, timeout=120)
        check(out.returncode == 0, "postgres: " + out.stderr + out.stdout)
        self.psql_admin("CREATE DATABASE desk")
        self.uri = postgres_cluster.uri(self.pg_dir, "desk")

    def pg_ctl(self, verb):
        data = os.path.join(self.pg_dir, "data")
        argv = [os.path.join(postgres_cluster.bin_dir(), "pg_ctl"), "-D", data,
                "-m", "fast", "-w", "-t", "60"]
        if verb != "stop":
            argv += ["-l", os.path.join(self.pg_dir, "server.log"), "-o",
                     "-k %s -p %d -c listen_addresses='' -c fsync=off "
                     "-c max_connections=200" % (self.pg_dir,
                                                  postgres_cluster.PORT)]
        subprocess.run(postgres_cluster.as_owner(argv + [verb]), check=True,
                       capture_output=True, timeout=120)

    def psql_admin(self, sql):
        subprocess.run(["psql", "-Atq", postgres_cluster.uri(self.pg_dir),
                        "-c", sql], check=True, capture_output=True,
                       timeout=60)

    def sql(self, query):
        out = subprocess.run(["psql", "-Atq", "-F", "\t", self.uri, "-c",
                              query], check=True, capture_output=True,
                             text=True, timeout=60)
        return [line.split("\t") for line in out.stdout.splitlines() if line]

    def run(self, *argv, ok=(0,)):
        out = subprocess.run([self.lh, *argv], capture_output=True, text=True,
                             timeout=300)
        check(out.returncode in ok, "%s: %d %s%s" % (
            " ".join(argv), out.returncode, out.stdout, out.stderr))
        return out.stdout

    # --- the gateways ---------------------------------------------------
    def start_index(self):
        self.index = os.path.join(self.dir, "index")
        self.run("init", "--index", self.index)
        self.run("add", "--index", self.index, "--label", "confidential",
                 os.path.join(self.args.source, "corpus/sample/protected"))
        self.memo = read(os.path.join(self.args.source,
                                      "corpus/sample/protected/merger-memo.txt"))
        # mx3 serves a snapshot the writer will move past.
        self.stale_index = os.path.join(self.dir, "index-mx3")
        self.run("snapshot", "--index", self.index, self.stale_index)

    def milter_flags(self, name, postfix):
        return ["--incidents", self.uri, "--policy", "desk", "--node-name",
                name, "--desk-seconds", "1", "--reload-seconds", "1",
                "--postfix-config", postfix.config, "--metrics",
                "127.0.0.1:%d" % self.metrics[name],
                "--incident-spool-dir", os.path.join(self.dir, name + ".spool")]

    def start_milter(self, name):
        postfix = self.postfix[self.milter_postfix[name]]
        index = self.stale_index if name == "mx3" else self.index
        self.procs[name] = start_milter(
            self.lh, index, self.milter_ports[name],
            os.path.join(self.dir, name + ".log"),
            *self.milter_flags(name, postfix))

    def start_gateways(self):
        self.milter_ports = {n: free_port() for n in ("mx1", "mx2", "mx3")}
        self.metrics = {n: free_port() for n in ("mx1", "mx2", "mx3")}
        self.milter_postfix = {"mx1": "A", "mx2": "A", "mx3": "B"}
        self.postfix["A"] = PrivatePostfix(
            os.path.join(self.dir, "postfix-a"),
            {"mx1": self.milter_ports["mx1"], "mx2": self.milter_ports["mx2"]},
            NO_FLOW_DELAY)
        self.postfix["B"] = PrivatePostfix(
            os.path.join(self.dir, "postfix-b"),
            {"mx3": self.milter_ports["mx3"]}, NO_FLOW_DELAY)
        for name in ("mx1", "mx2", "mx3"):
            self.start_milter(name)
        for pf in self.postfix.values():
            pf.start()
        self.icap = PrivateCicap(
            self.dir, self.args.srv_leakhound, self.index,
            "leakhound.Incidents %s\nleakhound.Policy desk\n"
            "leakhound.NodeName icap1\nleakhound.IncidentSpoolDir %s\n"
            "leakhound.DeskSeconds 1\n"
            % (self.uri, os.path.join(self.dir, "icap.spool")))
        self.icap.start()
        self.console_port = free_port()
        with open(os.path.join(self.dir, "console.log"), "w") as log:
            self.procs["console"] = subprocess.Popen(
                [self.lh, "console", "--listen",
                 "127.0.0.1:%d" % self.console_port, "--incidents", self.uri,
                 "--index", self.index, "--policy", "desk",
                 "--behind-minutes", "0", "--silent-seconds", "30"],
                stdout=subprocess.DEVNULL, stderr=log)
        subprocess.run([self.lh, "console", "user", "add", "ada", "--role",
                        "admin", "--incidents", self.uri],
                       input=PASSWORD + "\n", text=True, check=True,
                       capture_output=True, timeout=60)
        wait_for(lambda: self.console_up(), "the console")
        self.console = Client(self.console_port, timeout=60)
        status, _, _ = self.console.login("ada", PASSWORD)
        check(status == 303, "login: %d" % status)

    def console_up(self):
        try:
            return Client(self.console_port).request("GET", "/login")[0] == 200
        except OSError:
            return False

    def stop(self):
        for name, proc in list(self.procs.items()):
            stop_process(proc)
        if self.icap is not None:
            self.icap.stop()
        for pf in self.postfix.values():
            pf.stop()
        postgres_cluster.stop(self.pg_dir)

    # --- mail -----------------------------------------------------------
    def mail(self, n, leak):
        body = (" ".join(self.memo.split()[40:110]) if leak else
                "Lunch on Thursday? The usual place, %d, around noon." % n)
        return ("From: s%d@corp.test\r\nTo: x%d@example.test\r\n"
                "Subject: fleet mail %d\r\nMessage-ID: <fleet-%d@corp.test>"
                "\r\n\r\n%s\r\n" % (n, n, n, n, body))

    def send(self, listener, numbers, leak, sessions=4, latencies=None):
        """Sends each mail of `numbers` through `listener` ("mx1"...);
        returns the SMTP errors. `latencies` collects each DATA's time."""
        pf = self.postfix[self.milter_postfix[listener]]
        port = pf.smtp[listener]
        errors, lock = [], threading.Lock()

        def worker(chunk):
            for start in range(0, len(chunk), 200):
                with smtplib.SMTP("127.0.0.1", port, timeout=300) as s:
                    for n in chunk[start:start + 200]:
                        t = time.monotonic()
                        try:
                            s.sendmail("s%d@corp.test" % n,
                                       ["x%d@example.test" % n],
                                       self.mail(n, leak(n)).encode())
                        except smtplib.SMTPException as e:
                            with lock:
                                errors.append((n, repr(e)))
                        if latencies is not None:
                            with lock:
                                latencies.append(time.monotonic() - t)
        numbers = list(numbers)
        threads = [threading.Thread(target=worker,
                                    args=(numbers[k::sessions],))
                   for k in range(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return errors

    def metric(self, node, name):
        conn = http.client.HTTPConnection("127.0.0.1", self.metrics[node],
                                          timeout=30)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        conn.close()
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise AssertionError("no %s in %s's /metrics" % (name, node))

    def spools_empty(self):
        rows = self.sql("SELECT COALESCE(SUM(spool_depth), 0) FROM nodes")
        return rows and rows[0][0] == "0"

    def incident_rows(self):
        return self.sql("SELECT uid, message_id, node, queue_id FROM incidents")


# --- the main checks ---------------------------------------------------

def check_mail_once(f, mails):
    per = mails // 3
    leak = lambda n: n % 2 == 0  # noqa: E731
    numbers = {"mx1": range(0, per), "mx2": range(per, 2 * per),
               "mx3": range(2 * per, 3 * per)}
    t = time.monotonic()
    errors = []
    threads = [threading.Thread(target=lambda k=k: errors.extend(
        f.send(k, numbers[k], leak))) for k in numbers]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    seconds = time.monotonic() - t
    check(not errors, "SMTP errors: %r" % errors[:5])
    expected = {"<fleet-%d@corp.test>" % n for k in numbers
                for n in numbers[k] if leak(n)}
    wait_for(lambda: len(f.incident_rows()) >= len(expected) and
             f.spools_empty(), "every incident in the desk", DEADLINE)
    rows = f.incident_rows()
    ids = [r[1] for r in rows]
    check(len(ids) == len(set(ids)), "an incident stored twice")
    check(set(ids) == expected, "incidents lost: %d of %d stored" % (
        len(set(ids) & expected), len(expected)))
    check(len({r[0] for r in rows}) == len(rows), "a uid stored twice")
    per_node = {}
    for r in rows:
        per_node[r[2]] = per_node.get(r[2], 0) + 1
    check(set(per_node) == {"mx1", "mx2", "mx3"}, "nodes: %r" % per_node)
    print("ok: %d mails through 3 milters in %.1f s, %d incidents in "
          "PostgreSQL once each (%r)" % (3 * per, seconds, len(rows),
                                         per_node))


def check_release_on_node_2(f):
    rows = f.sql("SELECT id, queue_id, message_id FROM incidents WHERE node = "
                 "'mx2' AND mail_state = 'held' ORDER BY id LIMIT 1")
    incident, queue_id, message_id = int(rows[0][0]), rows[0][1], rows[0][2]
    page = "/incidents/%d" % incident
    status, headers, _ = f.console.request("POST", page + "/release", {
        "csrf": f.console.token(page), "confirm": "yes"})
    check(status == 303 and "done=requested" in headers["Location"],
          "release: %d %s" % (status, headers.get("Location")))
    wait_for(lambda: f.sql("SELECT state FROM mail_requests WHERE "
                           "incident_id = %d" % incident)[0][0] in
             ("done", "failed"), "node 2 to carry out the request", DEADLINE)
    state = f.sql("SELECT state, detail FROM mail_requests WHERE incident_id "
                  "= %d" % incident)[0]
    check(state[0] == "done", "request: %r" % state)
    pf = f.postfix["A"]
    wait_for(lambda: any(message_id in read(p) for p in pf.delivered()),
             "Postfix A to deliver the released mail", DEADLINE)
    _, _, body = f.console.request("GET", page)
    check("request-done" in body and "released" in body,
          "the console shows the request done")
    check(f.sql("SELECT mail_state FROM incidents WHERE id = %d" % incident)
          [0][0] == "released", "mail_state released")
    print("ok: incident %d held by mx2 (queue id %s) released from the "
          "console, delivered by Postfix A (%s)" % (incident, queue_id,
                                                    state[1]))


def check_policy_reaches_all(f):
    path = os.path.join(f.dir, "policy-v2.toml")
    with open(path, "w") as out:
        out.write(POLICY % "medium")
    f.run("policy", "publish", path, "--incidents", f.uri, "--comment", "v2")
    version = int(f.sql("SELECT MAX(version) FROM policy_versions")[0][0])
    t = time.monotonic()
    gateways = ("mx1", "mx2", "mx3", "icap1")
    wait_for(lambda: all(r[1] == str(version) for r in f.sql(
        "SELECT name, policy_version FROM nodes WHERE role != 'writer'"))
        and len(f.sql("SELECT name FROM nodes WHERE role != 'writer'")) == 4,
        "every gateway on v%d" % version, 30)
    seconds = time.monotonic() - t
    digests = {r[0] for r in f.sql("SELECT policy_digest FROM nodes WHERE "
                                   "role != 'writer'")}
    check(len(digests) == 1, "digests: %r" % digests)
    _, _, page = f.console.request("GET", "/nodes")
    for g in gateways:
        check('id="node-%s"' % g in page, "node %s on the Nodes page" % g)
    shown = set(re.findall(r"v%d <code>([0-9a-f]{12})</code>" % version, page))
    check(len(shown) == 1 and len(re.findall(
        r"v%d <code>" % version, page)) == 4, "one digest on the page")
    check(page.count('class="error"') == 0 or "behind" not in page,
          "no flag before the writer moves")
    print("ok: v%d published once, enforced by %s within %.1f s (reload 1 s,"
          " report 1 s), one digest on the Nodes page" % (
              version, ", ".join(gateways), seconds))


def check_old_generation_flagged(f):
    late = os.path.join(f.dir, "late-memo.txt")
    with open(late, "w") as out:
        out.write("The harbour authority will close the northern quay for "
                  "dredging from the first week of March; shipments booked "
                  "for berths nine to twelve move to the southern terminal, "
                  "and the tug roster is redrawn accordingly. " * 3)
    before = f.run("stats", "--index", f.index)
    f.run("add", "--index", f.index, "--label", "confidential", late)
    check(f.run("stats", "--index", f.index) != before, "the index changed")
    f.run("fleet", "report", "--index", f.index, "--role", "writer",
          "--node-name", "writer", "--incidents", f.uri)
    writer = int(f.sql("SELECT index_generation FROM nodes WHERE name = "
                       "'writer'")[0][0])
    wait_for(lambda: all(int(r[0]) == writer for r in f.sql(
        "SELECT index_generation FROM nodes WHERE name IN ('mx1', 'mx2', "
        "'icap1')")), "the gateways on the writer's generation", 30)
    _, _, page = f.console.request("GET", "/nodes")
    row = page[page.index('id="node-mx3"'):]
    row = row[:row.index("</tr>")]
    check("the writer&#39;s is %d" % writer in row, "mx3 flagged: " + row)
    for other in ("mx1", "mx2", "icap1"):
        r = page[page.index('id="node-%s"' % other):]
        check('class="ok"' in r[:r.index("</tr>")], other + " not flagged")
    out = subprocess.run([f.lh, "fleet", "nodes", "--incidents", f.uri,
                          "--behind-minutes", "0"], capture_output=True,
                         text=True, timeout=60)
    check(out.returncode == 1 and "behind" in out.stdout, out.stdout)
    print("ok: mx3 on generation %s flagged behind the writer's %d (console "
          "and `fleet nodes`)" % (row.split("<td>")[7].split("<")[0], writer))


# --- the faults -------------------------------------------------------

def check_outage(f, outage):
    leak = lambda n: True  # noqa: E731
    latencies, errors = [], []
    before = len(f.incident_rows())
    f.pg_ctl("stop")
    t = time.monotonic()
    n = 100000
    sent = []
    while time.monotonic() - t < outage:
        batch = range(n, n + 20)
        errors += f.send("mx1", batch, leak, sessions=2, latencies=latencies)
        sent += batch
        n += 20
        time.sleep(0.5)
    depth = f.metric("mx1", "leakhound_incident_spool_depth")
    f.pg_ctl("start")
    check(not errors, "mail refused while the desk was down: %r" % errors[:3])
    wait_for(lambda: len(f.incident_rows()) >= before + len(sent) and
             f.spools_empty(), "the spool to drain", DEADLINE)
    ids = [r[1] for r in f.incident_rows()]
    expected = {"<fleet-%d@corp.test>" % k for k in sent}
    check(len(ids) == len(set(ids)), "duplicates after the outage")
    check(expected <= set(ids), "lost: %d" % len(expected - set(ids)))
    print("ok: PostgreSQL down %d s under load: %d mails, slowest %.3f s, "
          "median %.3f s, 0 refused; %d incidents in mx1's spool at the end "
          "(its /metrics); all %d incidents stored once after the restart" % (
              outage, len(sent), max(latencies),
              sorted(latencies)[len(latencies) // 2], depth, len(sent)))


def check_sigkill_with_spool(f):
    f.pg_ctl("stop")
    sent = range(200000, 200040)
    errors = f.send("mx2", sent, lambda n: True, sessions=2)
    check(not errors, "refused: %r" % errors[:3])
    # Spooled: in the folder, as mx2's /metrics counts it.
    wait_for(lambda: f.metric("mx2", "leakhound_incident_spool_depth") ==
             len(sent), "mx2 to spool all %d" % len(sent), 30)
    spool = os.path.join(f.dir, "mx2.spool", "0")
    files = [x for x in os.listdir(spool) if x.endswith(".batch")]
    f.procs["mx2"].kill()
    f.procs["mx2"].wait()
    f.pg_ctl("start")
    f.start_milter("mx2")
    expected = {"<fleet-%d@corp.test>" % k for k in sent}
    wait_for(lambda: expected <= {r[1] for r in f.incident_rows()},
             "mx2's spool after its restart", DEADLINE)
    ids = [r[1] for r in f.incident_rows()]
    check(len(ids) == len(set(ids)), "duplicates after the kill")
    print("ok: mx2 SIGKILLed with %d spool files (%d incidents), all stored "
          "once after its restart" % (len(files), len(expected)))


def check_release_across_restart(f, attempts=4):
    held = f.sql("SELECT id, message_id FROM incidents WHERE node = 'mx1' AND "
                 "mail_state = 'held' ORDER BY id LIMIT %d" % attempts)
    pf = f.postfix["A"]
    outcomes = []
    for k, (incident, message_id) in enumerate(held):
        page = "/incidents/%s" % incident
        status, _, _ = f.console.request("POST", page + "/release", {
            "csrf": f.console.token(page), "confirm": "yes"})
        check(status == 303, "release request: %d" % status)
        time.sleep(0.3 * k)
        f.pg_ctl("restart")
        wait_for(lambda: f.sql("SELECT state FROM mail_requests WHERE "
                               "incident_id = %s" % incident)[0][0] in
                 ("done", "failed"), "the request to end", DEADLINE)
        state = f.sql("SELECT state FROM mail_requests WHERE incident_id = "
                      "%s" % incident)
        check(len(state) == 1, "one request")
        wait_for(pf.settled, "Postfix A to settle")
        delivered = any(message_id in read(p) for p in pf.delivered())
        check((state[0][0] == "done") == delivered,
              "request %s but delivered=%s" % (state[0][0], delivered))
        outcomes.append(state[0][0])
    print("ok: %d releases with PostgreSQL restarted 0-%.1f s after each: %s,"
          " each delivered exactly when done" % (
              len(outcomes), 0.3 * (attempts - 1), ", ".join(outcomes)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("leakhound")
    p.add_argument("srv_leakhound")
    p.add_argument("source")
    p.add_argument("--mails", type=int, default=3000)
    p.add_argument("--faults", action="store_true")
    p.add_argument("--outage", type=int, default=60)
    args = p.parse_args()
    f = Fleet(args)
    passed = False
    try:
        f.start_desk()
        f.start_index()
        policy = os.path.join(f.dir, "policy-v1.toml")
        with open(policy, "w") as out:
            out.write(POLICY % "high")
        f.run("policy", "publish", policy, "--incidents", f.uri)
        f.start_gateways()
        if args.faults:
            check_outage(f, args.outage)
            check_sigkill_with_spool(f)
            check_release_across_restart(f)
        else:
            check_mail_once(f, args.mails)
            check_release_on_node_2(f)
            check_policy_reaches_all(f)
            check_old_generation_flagged(f)
        passed = True
    finally:
        f.stop()
        if passed or not os.environ.get("LEAKHOUND_KEEP_FAILED"):
            shutil.rmtree(f.dir, ignore_errors=True)
        else:
            print("kept for a look: " + f.dir)
    print("all checks passed")


if __name__ == "__main__":
    main()
