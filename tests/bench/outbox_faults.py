#!/usr/bin/python3
"""The outbox under faults (docs/siem.md, "Measured"), on loopback:

  1. rsyslog (TCP, CEF) and an HTTPS webhook receiver are both down while
     --incidents leaks go through a private Postfix to `leakhound milter`
     (--down-seconds in all, counted from the first mail);
  2. rsyslog comes back: the time it takes the milter to deliver the whole
     backlog to it is the delivery rate over TCP syslog (events/s);
  3. the webhook receiver comes back, and while it takes its backlog the
     milter is killed with SIGKILL --kills times and restarted;
  4. every destination must have every event, in order, with at most one
     repeat per kill (the receivers count repeats by event id).

    outbox_faults.py LEAKHOUND SOURCE_DIR WORK_DIR [--incidents 10000]
                     [--down-seconds 600] [--kills 3] [--sessions 8]

Needs root (Postfix). Stops every process it started.
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "siem"))
from siem_integration_test import (NO_FLOW_DELAY, Setup, cef_parse,  # noqa: E402
                                   in_order, send_all)
from private_postfix import (PrivatePostfix, free_port,  # noqa: E402
                             start_milter, stop_process, wait_for)

POLICY = """[[rule]]
name = "leak"
action = "reject"
severity = "high"

[[destination]]
name = "siem"
type = "syslog"
url = "tcp://127.0.0.1:{tcp}"
max_retry_seconds = 5

[[destination]]
name = "hook"
type = "webhook"
url = "https://localhost:{hook}/events"
secret_file = "{key}"
ca_file = "{ca}"
max_retry_seconds = 5
"""


def recorded(store):
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT COUNT(*) FROM incidents").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("source")
    ap.add_argument("work")
    ap.add_argument("--incidents", type=int, default=10000)
    ap.add_argument("--down-seconds", type=float, default=600)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=8)
    args = ap.parse_args()
    rng = random.Random(1)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    setup = Setup(args.leakhound, args.source, work, POLICY)
    index, store, policy = setup.index, setup.store, setup.policy
    rsyslog, hook = setup.rsyslog, setup.hook
    milter_port = free_port()
    postfix = PrivatePostfix(work, {"gateway": milter_port}, NO_FLOW_DELAY)
    log = os.path.join(work, "milter.log")
    flags = ("--policy", policy, "--incidents", store, "--reload-seconds", "0",
             "--duplicate-window", "0")
    milter = None
    try:
        postfix.start()
        milter = start_milter(args.leakhound, index, milter_port, log, *flags)
        down_from = time.monotonic()
        refused = send_all(postfix.smtp["gateway"], setup.body, args.incidents,
                           args.sessions)
        sent_seconds = time.monotonic() - down_from
        wait_for(lambda: recorded(store) == args.incidents, "incidents", 120)
        print("%d leaks refused and recorded in %.0f s" % (len(refused),
                                                         sent_seconds))
        time.sleep(max(0.0, args.down_seconds - (time.monotonic() - down_from)))
        print("receivers down for %.0f s" % (time.monotonic() - down_from))
        rsyslog.start()
        back = time.monotonic()
        wait_for(lambda: len(rsyslog.messages("tcp")) > 0, "rsyslog", 60)
        first = time.monotonic()
        wait_for(lambda: len(rsyslog.messages("tcp")) >= args.incidents,
                 "the syslog backlog", 3600)
        drain = time.monotonic() - first
        print("TCP syslog: the sender reconnected %.1f s after rsyslog came "
              "back; %d events from the first to the last in %.2f s "
              "(%.0f events/s)" % (first - back, args.incidents, drain,
                                   (args.incidents - 1) / drain))
        hook.start()
        back = time.monotonic()
        for k in range(args.kills):
            target = (k + 1) * args.incidents // (args.kills + 1)
            target += rng.randrange(-50, 50)
            wait_for(lambda: len(hook.accepted()) >= target, "webhook progress",
                     3600)
            milter.kill()
            milter.wait()
            milter = start_milter(args.leakhound, index, milter_port, log, *flags)
        wait_for(lambda: len({json.loads(b)["id"] for _, b in hook.accepted()})
                 >= args.incidents, "the webhook backlog", 3600)
        drain = time.monotonic() - back
        bodies = [json.loads(b) for _, b in hook.accepted()]
        hook_repeats = in_order([b["sequence"] for b in bodies])
        syslog_seqs = [int(cef_parse(m["msg"])[1]["cn3"])
                       for m in rsyslog.messages("tcp")]
        syslog_repeats = in_order(syslog_seqs)
        assert len(set(syslog_seqs)) == args.incidents
        assert len({b["id"] for b in bodies}) == args.incidents
        assert hook_repeats <= args.kills and syslog_repeats <= args.kills
        print("webhook: %d events in %.1f s (%.0f events/s) with %d kills; "
              "repeats: webhook %d, syslog %d; lost: 0; order: kept"
              % (args.incidents, drain, args.incidents / drain, args.kills,
                 hook_repeats, syslog_repeats))
        return 0
    finally:
        if milter is not None:
            stop_process(milter)
        postfix.stop()
        hook.stop()
        rsyslog.stop()


if __name__ == "__main__":
    sys.exit(main())
