#!/usr/bin/python3
"""The packaged milter, started as its unit starts it, behind a private
Postfix (tests/cli/milter/private_postfix.py; loopback only): a leak is
refused with 5.7.1 and a clean message is delivered.

  packaged_milter_check.py SOURCE_DIR MILTER_PORT
"""
import os
import shutil
import smtplib
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "milter"))
from private_postfix import DEADLINE, PrivatePostfix, read, wait_for  # noqa: E402


def main():
    source, port = sys.argv[1], int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="leakhound-packaged-")
    postfix = PrivatePostfix(work, {"gateway": port})
    try:
        postfix.start()
        leak = read(os.path.join(source, "corpus/sample/outbound/email-board-leak.txt"))
        clean = read(os.path.join(source, "corpus/sample/outbound/support-reply-clean.txt"))
        with smtplib.SMTP("127.0.0.1", postfix.smtp["gateway"], timeout=DEADLINE) as s:
            try:
                s.sendmail("a@corp.test", ["b@example.test"], leak.replace("\n", "\r\n").encode())
                raise AssertionError("the leak was accepted")
            except smtplib.SMTPDataError as e:
                assert e.smtp_code == 550 and b"5.7.1" in e.smtp_error, e
            s.sendmail("a@corp.test", ["b@example.test"],
                       ("Subject: clean\r\n\r\n" + clean).replace("\n", "\r\n").encode())
        wait_for(lambda: postfix.delivered(), "delivery of the clean message")
        print("packaged milter: leak refused (550), clean message delivered")
        return 0
    finally:
        postfix.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
