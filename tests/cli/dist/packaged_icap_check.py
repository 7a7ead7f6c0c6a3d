#!/usr/bin/python3
"""The packaged web channel, c-icap started as leakhound-icap.service
starts it, behind a private Squid (tests/cli/icap/private_proxy.py;
loopback only): a form quoting a protected document is refused with the
block page and never reaches the origin; a clean one arrives unchanged.

  packaged_icap_check.py SOURCE_DIR ICAP_PORT
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "icap"))
from private_proxy import DEADLINE, Origin, PrivateSquid  # noqa: E402

HOST = "upload.example.test"


def post(squid, origin, path, text):
    out = subprocess.run(
        ["curl", "-s", "-S", "-o", "-", "-w", "\n%{http_code}", "--max-time",
         str(DEADLINE), "--proxy", "http://127.0.0.1:%d" % squid.port,
         "--proxy-user", "alice:wonderland", "-F", "file=@%s;filename=note.txt"
         % text, "http://%s:%d%s" % (HOST, origin.port, path)],
        capture_output=True, timeout=DEADLINE + 5, check=True)
    body, _, status = out.stdout.rpartition(b"\n")
    return int(status), body


def main():
    source, port = sys.argv[1], int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="leakhound-packaged-icap-")
    os.chmod(work, 0o755)
    origin = Origin()
    squid = PrivateSquid(work, port, [HOST], {"alice": "wonderland"})
    try:
        origin.start()
        squid.start()
        sample = os.path.join(source, "corpus/sample/outbound")
        status, body = post(squid, origin, "/leak",
                            os.path.join(sample, "email-board-leak.txt"))
        assert status == 403 and b"Incident <strong>LH-" in body, (status, body)
        assert not [e for e in origin.entries() if e["path"] == "/leak"]
        status, body = post(squid, origin, "/clean",
                            os.path.join(sample, "support-reply-clean.txt"))
        assert status == 200, (status, body)
        assert [e for e in origin.entries() if e["path"] == "/clean"]
        print("packaged icap: leak refused (403, block page), clean upload "
              "delivered")
        return 0
    finally:
        squid.stop()
        origin.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
