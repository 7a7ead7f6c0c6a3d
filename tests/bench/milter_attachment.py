#!/usr/bin/python3
"""How the mail gateway judges one attachment at its default budgets
(docs/formats.md, "Scanned documents"): a private Postfix instance
(loopback only) and `leakhound milter` with no option but its index and
socket; the attachment is sent N times, one message at a time, and each
message's log line (verdict, action, ms, unread parts) is printed.

  milter_attachment.py LEAKHOUND INDEX_DIR FILE [--times 3] [--flags "..."]

Needs root (Postfix). Stops every process it started.
"""
import argparse
import email.message
import email.policy
import os
import shutil
import smtplib
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "milter"))
from private_postfix import (DEADLINE, PrivatePostfix, free_port, read,  # noqa: E402
                             start_milter, stop_process, wait_for)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("index")
    ap.add_argument("file")
    ap.add_argument("--times", type=int, default=3)
    ap.add_argument("--flags", default="")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="leakhound-attachment-")
    milter = postfix = None
    try:
        port = free_port()
        log = os.path.join(work, "milter.log")
        milter = start_milter(args.leakhound, args.index, port, log,
                              *args.flags.split())
        postfix = PrivatePostfix(work, {"gateway": port})
        postfix.start()
        data = read(args.file, "rb")
        for i in range(args.times):
            m = email.message.EmailMessage(policy=email.policy.SMTP)
            m["From"] = "alex@leakhound.test"
            m["To"] = "partner@example.test"
            m["Subject"] = "attachment %d" % i
            m.set_content("The file is attached.\n")
            m.add_attachment(data, maintype="application",
                             subtype="octet-stream",
                             filename=os.path.basename(args.file))
            with smtplib.SMTP("127.0.0.1", postfix.smtp["gateway"],
                              timeout=DEADLINE) as s:
                try:
                    s.sendmail("alex@leakhound.test", ["bob@example.test"],
                               m.as_bytes())
                except smtplib.SMTPException as e:
                    print("refused:", e)
            wait_for(lambda: read(log).count("queue_id=") > i,
                     "the verdict of message %d" % i, timeout=600)
        for line in read(log).splitlines():
            if "queue_id=" in line:
                print(line.split("leakhound milter: ", 1)[-1])
    finally:
        if postfix is not None:
            postfix.stop()
        if milter is not None:
            stop_process(milter)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
