#!/usr/bin/python3
"""SIGKILL of the milter while it records incidents (docs/console.md,
"Measured"): a private Postfix (loopback only) hands leaking mail from
several SMTP sessions to `leakhound milter --incidents FILE`; the daemon
is killed with SIGKILL --kills times, each time within 50 ms after it
judged a random 1 to 8 leaks since its start (so while its writer is
busy), and restarted.
After every kill, SQLite's PRAGMA integrity_check must say ok, and the
records lost are counted by queue id: leaks the daemon logged (it logs a
verdict after handing its record to the writer's spool) whose incident is
not in the store.

  incident_kill.py LEAKHOUND SOURCE_DIR WORK_DIR [--kills 100] [--sessions 8]

Needs root (Postfix). Stops every process it started.
"""
import argparse
import os
import random
import shutil
import smtplib
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli", "milter"))
from private_postfix import (PrivatePostfix, free_port, read, start_milter,  # noqa: E402
                             stop_process)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("source")
    ap.add_argument("work")
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--sessions", type=int, default=8)
    args = ap.parse_args()
    rng = random.Random(1)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    index = os.path.join(work, "index")
    store = os.path.join(work, "incidents.db")
    subprocess.run([args.leakhound, "init", "--index", index], check=True,
                   capture_output=True)
    subprocess.run([args.leakhound, "add", "--index", index,
                    os.path.join(args.source, "corpus/sample/protected")],
                   check=True, capture_output=True)
    body = read(os.path.join(args.source, "corpus/sample/outbound/email-board-leak.txt"))
    message = ("From: k@corp.test\r\nTo: x@example.test\r\nSubject: kill test\r\n\r\n"
               + body.replace("\n", "\r\n")).encode()
    port = free_port()
    postfix = PrivatePostfix(work, {"gateway": port})
    postfix.start()
    stop = threading.Event()
    milter = None
    results = {"checks": [], "lost": []}
    uptime = 0.0
    logged_ids = set()

    def sender():
        # A refused message keeps the session; a deferred one (the daemon
        # down: Postfix's milter_default_action) opens a new one, since
        # smtpd keeps a failed milter failed for the rest of its session.
        while not stop.is_set():
            try:
                with smtplib.SMTP("127.0.0.1", postfix.smtp["gateway"], timeout=30) as s:
                    while not stop.is_set():
                        try:
                            s.sendmail("k@corp.test", ["x@example.test"], message)
                        except smtplib.SMTPResponseException as e:
                            if e.smtp_code != 550:
                                break
                            s.rset()
            except (OSError, smtplib.SMTPException):
                time.sleep(0.02)
    threads = [threading.Thread(target=sender) for _ in range(args.sessions)]
    try:
        for t in threads:
            t.start()
        for k in range(args.kills):
            log = os.path.join(work, "milter-%03d.log" % k)
            milter = start_milter(args.leakhound, index, port, log, "--on-leak",
                                  "reject", "--incidents", store, "--duplicate-window",
                                  "0", "--reload-seconds", "0")
            # Killed while recording: once this run has judged a random 1 to
            # 8 leaks (at most 5 s), within 50 ms of the last.
            want = rng.randint(1, 8)
            started = time.monotonic()
            while time.monotonic() - started < 5 and sum(
                    1 for line in read(log).splitlines() if " verdict=leak " in line) < want:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.05))
            uptime += time.monotonic() - started
            milter.kill()
            milter.wait()
            milter = None
            for line in read(log).splitlines():
                if " verdict=leak " in line:
                    logged_ids.add(line.split("queue_id=", 1)[1].split()[0])
            db = sqlite3.connect(store)
            check = db.execute("PRAGMA integrity_check").fetchone()[0]
            stored_ids = {r[0] for r in db.execute("SELECT queue_id FROM incidents")}
            db.close()
            results["checks"].append(check)
            results["lost"].append(len(logged_ids - stored_ids) -
                                   sum(results["lost"]))
    finally:
        stop.set()
        if milter is not None:
            milter.kill()
            milter.wait()
        for t in threads:
            t.join(timeout=60)
        postfix.stop()
    bad = [c for c in results["checks"] if c != "ok"]
    lost = results["lost"]
    print("| measure | value |\n|---|---:|")
    print("| SIGKILLs | %d |" % args.kills)
    print("| leaks judged per second of daemon uptime | %.0f |" % (len(logged_ids) / uptime))
    print("| integrity_check not ok after a kill | %d |" % len(bad))
    print("| leaks judged (logged) / incidents stored | %d / %d |"
          % (len(logged_ids), len(stored_ids)))
    print("| records lost (spooled, unwritten at the kill): total, max per kill |"
          " %d, %d |" % (sum(lost), max(lost) if lost else 0))
    print("| kills that lost records | %d |" % sum(1 for n in lost if n > 0))
    print("| stored but not logged (the kill fell between the two) | %d |"
          % len(stored_ids - logged_ids))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
