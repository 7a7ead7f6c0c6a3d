#!/usr/bin/python3
"""The verdict's latency against the state of the desk (docs/fleet.md,
"Measured"): a private Postfix and `leakhound milter` recording every
leak's incident, measured in one run with the incident store

  none   --incidents off (the baseline: no record at all),
  sqlite a SQLite file beside the index,
  up     the desk, a private PostgreSQL 15 cluster,
  slow   the same desk behind a proxy on its unix socket that holds every
         message from the server for --delay ms (500), as a desk across a
         slow link or a busy server would,
  down   the desk stopped (incidents go to the spool folder).

For each, --mails leaking mails (200) are sent over 4 SMTP sessions and
the time of each DATA (the milter's verdict included) is taken; p50, p95
and the slowest are printed with their ratio to the baseline's p50.

    desk_latency.py LEAKHOUND SOURCE_DIR [--mails N] [--delay MS]

Needs root (Postfix, initdb as postgres). Stops what it starts.
"""
import argparse
import os
import shutil
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "milter"))
import postgres_cluster  # noqa: E402
from private_postfix import (PrivatePostfix, free_port, read,  # noqa: E402
                             start_milter, stop_process)

POLICY = """internal_domains = ["corp.test"]
[[rule]]
name = "confidential outside"
action = "quarantine"
[rule.when]
labels_any = ["confidential"]
external_recipient = true
"""


class SlowSocketProxy:
    """Listens at DIR/.s.PGSQL.5432 and forwards to the real socket,
    holding each chunk the server sends for `delay` seconds."""

    def __init__(self, directory, target, delay):
        self.path = os.path.join(directory, ".s.PGSQL.%d" % postgres_cluster.PORT)
        self.target, self.delay = target, delay
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(self.path)
        os.chmod(self.path, 0o777)
        self.server.listen(64)
        self.stopping = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.stopping:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.target)
            threading.Thread(target=self.pipe, args=(client, upstream, 0),
                             daemon=True).start()
            threading.Thread(target=self.pipe,
                             args=(upstream, client, self.delay),
                             daemon=True).start()

    def pipe(self, src, dst, delay):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if delay:
                    time.sleep(delay)
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        self.server.close()


def send(port, body, numbers, sessions=4):
    times, lock = [], threading.Lock()

    def worker(chunk):
        with smtplib.SMTP("127.0.0.1", port, timeout=300) as s:
            for n in chunk:
                message = ("From: s%d@corp.test\r\nTo: x%d@example.test\r\n"
                           "Subject: latency %d\r\n\r\n%s\r\n" % (n, n, n, body))
                t = time.perf_counter()
                s.sendmail("s%d@corp.test" % n, ["x%d@example.test" % n],
                           message.encode())
                with lock:
                    times.append(time.perf_counter() - t)
    threads = [threading.Thread(target=worker, args=(numbers[k::sessions],))
               for k in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("leakhound")
    p.add_argument("source")
    p.add_argument("--mails", type=int, default=200)
    p.add_argument("--delay", type=int, default=500)
    args = p.parse_args()
    lh = args.leakhound
    work = tempfile.mkdtemp(prefix="leakhound-latency-")
    os.chmod(work, 0o755)
    pg, proxy_dir = os.path.join(work, "pg"), os.path.join(work, "proxy")
    os.makedirs(proxy_dir)
    os.chmod(proxy_dir, 0o755)
    index = os.path.join(work, "index")
    subprocess.run([lh, "init", "--index", index], check=True,
                   capture_output=True)
    subprocess.run([lh, "add", "--index", index, "--label", "confidential",
                    os.path.join(args.source, "corpus/sample/protected")],
                   check=True, capture_output=True)
    policy = os.path.join(work, "policy.toml")
    with open(policy, "w") as f:
        f.write(POLICY)
    memo = read(os.path.join(args.source,
                             "corpus/sample/protected/merger-memo.txt"))
    body = " ".join(memo.split()[40:110])
    port = free_port()
    postfix = PrivatePostfix(os.path.join(work, "postfix"), {"mx": port},
                             "in_flow_delay = 0\n")
    proxy = None
    results = []
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "..",
                        "postgres_cluster.py"), "start", pg], check=True,
                       capture_output=True)
        subprocess.run(["psql", "-q", postgres_cluster.uri(pg), "-c",
                        "CREATE DATABASE desk"], check=True)
        proxy = SlowSocketProxy(proxy_dir, os.path.join(
            pg, ".s.PGSQL.%d" % postgres_cluster.PORT), args.delay / 1000)
        stores = [("none", "off"),
                  ("sqlite", os.path.join(work, "index.incidents")),
                  ("up", postgres_cluster.uri(pg, "desk")),
                  ("slow", postgres_cluster.uri(proxy_dir, "desk")),
                  ("down", postgres_cluster.uri(pg, "desk"))]
        postfix.start()
        n = 0
        for name, store in stores:
            if name == "down":
                postgres_cluster.stop(pg)
            milter = start_milter(
                lh, index, port, os.path.join(work, name + ".log"),
                "--incidents", store, "--policy", policy,
                "--incident-spool-dir", os.path.join(work, name + ".spool"))
            try:
                send(postfix.smtp["mx"], body, list(range(n, n + 20)))  # warm
                times = send(postfix.smtp["mx"], body,
                             list(range(n + 20, n + 20 + args.mails)))
            finally:
                stop_process(milter)
            n += 20 + args.mails
            # What the milter says at its stop: recorded, written (stored).
            lines = read(os.path.join(work, name + ".log")).splitlines()
            tail = [l.split("incidents: ")[1] for l in lines
                    if "recorded," in l or "for the next start" in l]
            results.append((name, times, "; ".join(tail) or "no store"))
    finally:
        if proxy:
            proxy.stop()
        postfix.stop()
        postgres_cluster.stop(pg)
        if os.environ.get("LEAKHOUND_KEEP"):
            print("kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    base = results[0][1][len(results[0][1]) // 2]
    print("| incident store | p50 | p95 | slowest | p50 / baseline | the "
          "milter's count at stop |")
    print("|---|---:|---:|---:|---:|---|")
    for name, t, count in results:
        p50, p95 = t[len(t) // 2], t[int(len(t) * 0.95)]
        print("| %s | %.1f ms | %.1f ms | %.1f ms | %.2f | %s |" % (
            name, p50 * 1e3, p95 * 1e3, t[-1] * 1e3, p50 / base, count))


if __name__ == "__main__":
    main()
