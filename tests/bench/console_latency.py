#!/usr/bin/python3
"""The incident list at scale, as users reach it (docs/console.md,
"Measured"): `leakhound console` over a store of a million incidents
(filled by incident_store_bench), the list page (50 rows) with the
console's filters, one client and then 4 at once; and the command
`leakhound incidents list --since 1d`, process start included. With
--index, also the documents page (100 rows) over that index: a million
synthetic documents kept by protected_index_bench's BM_DocumentsPage
(LEAKHOUND_BENCH_KEEP_INDEX=DIR).

  console_latency.py LEAKHOUND STORE [--requests 200] [--index DIR]

Binds loopback only; stops the console it started.
"""
import argparse
import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli", "milter"))
from private_postfix import free_port, listening, stop_process, wait_for  # noqa: E402

QUERIES = [
    ("newest", "/incidents"),
    ("status open", "/incidents?status=open"),
    ("sender", "/incidents?sender=user1500%40corp.test"),
    ("document", "/incidents?document=doc123.docx"),
    ("open, quarantined, last 7 days", "/incidents?status=open&action=quarantine&since=7d"),
    ("since 1 day", "/incidents?since=1d"),
    ("status open, page 21", "/incidents?status=open&page=20"),
]
DOCUMENT_QUERIES = [
    ("documents, first page", "/documents"),
    ("documents from no. 500,000", "/documents?from=500000"),
    ("search, every id matches", "/documents?q=finance"),
    ("search, one id matches (the whole catalog read)",
     "/documents?q=%2Fdocument-12345.docx"),
]


def q(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


class Session:
    def __init__(self, port):
        self.port, self.cookie = port, ""

    def get(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request("GET", path, headers={"Cookie": self.cookie} if self.cookie else {})
        r = c.getresponse()
        body = r.read()
        cookies = r.headers.get_all("Set-Cookie") or []
        c.close()
        return r.status, body.decode(), cookies

    def login(self, user, password):
        status, page, cookies = self.get("/login")
        token = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        login_cookie = cookies[0].split(";")[0]
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request("POST", "/login", body=urllib.parse.urlencode(
            {"csrf": token, "user": user, "password": password, "next": "/incidents"}),
            headers={"Content-Type": "application/x-www-form-urlencoded",
                     "Cookie": login_cookie})
        r = c.getresponse()
        r.read()
        for v in r.headers.get_all("Set-Cookie") or []:
            if v.startswith("lh_session="):
                self.cookie = v.split(";")[0]
        c.close()
        assert r.status == 303 and self.cookie, r.status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("store")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--index", help="also the documents page over this index")
    args = ap.parse_args()
    subprocess.run([args.leakhound, "console", "user", "add", "bench", "--role", "viewer",
                    "--incidents", args.store], input="bench-password\n", text=True,
                   capture_output=True)
    count = subprocess.run(["sqlite3", args.store, "SELECT COUNT(*) FROM incidents"],
                           capture_output=True, text=True).stdout.strip()
    port = free_port()
    index = ["--index", args.index] if args.index else []
    console = subprocess.Popen([args.leakhound, "console", "--listen",
                                "127.0.0.1:%d" % port, "--incidents", args.store,
                                *index],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: listening(port), "the console")
        s = Session(port)
        s.login("bench", "bench-password")
        print("store: %s incidents\n" % count)
        print("| list page (50 rows) | rows | 1 client: median / p95 / max | "
              "4 clients: median / p95 |\n|---|---:|---:|---:|")
        queries = QUERIES + (DOCUMENT_QUERIES if args.index else [])
        for name, path in queries:
            for _ in range(5):
                s.get(path)
            times = []
            rows = 0
            for _ in range(args.requests):
                t0 = time.perf_counter()
                status, page, _ = s.get(path)
                times.append((time.perf_counter() - t0) * 1000)
                assert status == 200, status
                rows = (page.count("class=\"incident-link\"") or
                        page.count("<tr><td>"))
            parallel = []
            lock = threading.Lock()

            def client():
                mine = Session(port)
                mine.cookie = s.cookie
                for _ in range(args.requests // 4):
                    t0 = time.perf_counter()
                    mine.get(path)
                    with lock:
                        parallel.append((time.perf_counter() - t0) * 1000)
            threads = [threading.Thread(target=client) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            print("| %s | %d | %.1f / %.1f / %.1f ms | %.1f / %.1f ms |" % (
                name, rows, statistics.median(times), q(times, 0.95), max(times),
                statistics.median(parallel), q(parallel, 0.95)))
    finally:
        stop_process(console)
    print("\n| command | median / p95 / max |\n|---|---:|")
    for flags in (["--since", "1d"], ["--since", "1d", "--json"],
                  ["--since", "1d", "--status", "open", "--limit", "200"]):
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            out = subprocess.run([args.leakhound, "incidents", "list", "--incidents",
                                  args.store, *flags], capture_output=True)
            times.append((time.perf_counter() - t0) * 1000)
            assert out.returncode == 0, out.stderr
        print("| leakhound incidents list %s | %.0f / %.0f / %.0f ms |" % (
            " ".join(flags), statistics.median(times), q(times, 0.95), max(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
