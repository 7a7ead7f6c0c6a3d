#!/usr/bin/python3
"""The console at scale (docs/fleet.md, "Measured"): N incidents (default
1,000,000) with a match and a rule each, spread over 30 days, 50 senders,
20 documents and 3 nodes, in a store on each engine: a private PostgreSQL
15 cluster (tests/postgres_cluster.py) and a SQLite file, the baseline,
measured in the same run. For each, `leakhound console` serves it and each
page is fetched --repeat times over HTTP (logged in, as a user would):
the incident list, its 100th page, a sender's incidents, the dashboard of
30 days and the Nodes page. Prints p50 and p95 per page and engine.

    console_scale.py LEAKHOUND SOURCE_DIR [--incidents N] [--repeat R]

Needs root (initdb as postgres) and postgresql-15. Stops what it starts.
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "milter"))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "console"))
from console_client import Client  # noqa: E402
import postgres_cluster  # noqa: E402
from private_postfix import free_port, stop_process, wait_for  # noqa: E402

PASSWORD = "scale-password-123"
DAY_MS = 86_400_000


def fill_sql(n, now_ms):
    """Statements both engines run: a recursive series, no extension."""
    series = ("WITH RECURSIVE g(x) AS (SELECT CAST(1 AS BIGINT) UNION ALL "
              "SELECT x + 1 FROM "
              "g WHERE x < %d) " % n)
    return [
        series + "INSERT INTO incidents (time_ms, source, kind, action, "
        "sender, recipients, subject, documents, severity, mail_state, node, "
        "uid, queue_id) SELECT %d - x * %d, 'milter', 'leak', 'quarantine', "
        "'s' || (x %% 50) || '@corp.test', 'x' || (x %% 97) || "
        "'@example.test', 'subject ' || x, 'doc-' || (x %% 20), CASE x %% 3 "
        "WHEN 0 THEN 'high' WHEN 1 THEN 'medium' ELSE 'low' END, 'held', "
        "'mx' || (x %% 3), 'u' || x, 'Q' || x FROM g"
        % (now_ms, 30 * DAY_MS // n),
        "INSERT INTO matches (incident_id, ordinal, document, source, labels,"
        " part, byte_begin, byte_end, words, coverage, snippet, snippet_begin,"
        " snippet_end) SELECT id, 0, 'doc-' || (id % 20), '/p/doc', "
        "'confidential', '', 0, 300, 40, 0.1, 'the outbound text', 4, 12 FROM "
        "incidents",
        "INSERT INTO incident_rules (incident_id, ordinal, rule, severity, "
        "action, monitor, documents) SELECT id, 0, 'confidential outside', "
        "severity, 'quarantine', 0, 'doc-' || (id % 20) FROM incidents",
    ] + [
        # The dashboard's counts, as the store keeps them on insert (and as
        # the migration to schema 6 counts a store's incidents): rows
        # written here by SQL are counted the same way.
        "INSERT INTO incident_counts (day, kind, name, count) SELECT "
        "time_ms / 86400000, '%s', %s, COUNT(*) FROM incidents WHERE %s "
        "GROUP BY time_ms / 86400000, %s" % (kind, expr, where, expr)
        for kind, expr, where in (
            ("action", "action", "1 = 1"),
            ("severity", "severity", "severity != ''"),
            ("sender", "lower(sender)", "sender != ''"),
            ("document", "documents", "1 = 1"))  # one document each here
    ] + ["INSERT INTO incident_counts (day, kind, name, count) SELECT "
         "time_ms / 86400000, 'rule', MIN('confidential outside'), COUNT(*) "
         "FROM incidents GROUP BY time_ms / 86400000"]


PAGES = [("list", "/incidents"), ("page 100", "/incidents?page=99"),
         ("sender", "/incidents?sender=s7%40corp.test"),
         ("dashboard 30 d", "/dashboard?days=30"), ("nodes", "/nodes")]


def measure(lh, store, repeat, workdir):
    port = free_port()
    log = open(os.path.join(workdir, "console.log"), "a")
    proc = subprocess.Popen([lh, "console", "--listen", "127.0.0.1:%d" % port,
                             "--incidents", store], stdout=subprocess.DEVNULL,
                            stderr=log)
    try:
        def up():
            try:
                return Client(port).request("GET", "/login")[0] == 200
            except OSError:
                return False
        wait_for(up, "the console", 60)
        c = Client(port, timeout=120)
        status, _, _ = c.login("ada", PASSWORD)
        assert status == 303, status
        out = {}
        # The dashboard shows the documents and senders counted.
        _, _, page = c.request("GET", "/dashboard?days=30")
        assert "doc-1" in page and "@corp.test" in page, "empty dashboard"
        for name, path in PAGES:
            c.request("GET", path)  # warm
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                status, _, _ = c.request("GET", path)
                times.append(time.perf_counter() - t)
                assert status == 200, (name, status)
            times.sort()
            out[name] = (times[len(times) // 2],
                         times[min(len(times) - 1, int(len(times) * 0.95))])
        return out
    finally:
        stop_process(proc)
        log.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("leakhound")
    p.add_argument("source")
    p.add_argument("--incidents", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=40)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="leakhound-scale-")
    os.chmod(work, 0o755)
    pg = os.path.join(work, "pg")
    now = int(time.time() * 1000)
    results = {}
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "..",
                        "postgres_cluster.py"), "start", pg], check=True,
                       capture_output=True)
        subprocess.run(["psql", "-q", postgres_cluster.uri(pg), "-c",
                        "CREATE DATABASE desk"], check=True)
        uri = postgres_cluster.uri(pg, "desk")
        sqlite_path = os.path.join(work, "baseline.incidents")
        for store in (uri, sqlite_path):  # the schema, as leakhound makes it
            subprocess.run([args.leakhound, "console", "user", "add", "ada",
                            "--role", "admin", "--incidents", store],
                           input=PASSWORD + "\n", text=True, check=True,
                           capture_output=True)
        t = time.perf_counter()
        for sql in fill_sql(args.incidents, now) + ["ANALYZE"]:
            subprocess.run(["psql", "-q", uri, "-c", sql], check=True)
        fill_pg = time.perf_counter() - t
        t = time.perf_counter()
        db = sqlite3.connect(sqlite_path)
        for sql in fill_sql(args.incidents, now) + ["ANALYZE"]:
            db.execute(sql)
            db.commit()
        db.close()
        fill_sqlite = time.perf_counter() - t
        print("filled %d incidents (+ a match and a rule each): PostgreSQL "
              "%.0f s, SQLite %.0f s" % (args.incidents, fill_pg, fill_sqlite))
        results["PostgreSQL"] = measure(args.leakhound, uri, args.repeat, work)
        results["SQLite"] = measure(args.leakhound, sqlite_path, args.repeat,
                                    work)
    finally:
        postgres_cluster.stop(pg)
        shutil.rmtree(work, ignore_errors=True)
    print("| page | PostgreSQL p50 | p95 | SQLite p50 | p95 |")
    print("|---|---:|---:|---:|---:|")
    for name, _ in PAGES:
        a, b = results["PostgreSQL"][name], results["SQLite"][name]
        print("| %s | %.0f ms | %.0f ms | %.0f ms | %.0f ms |" % (
            name, a[0] * 1e3, a[1] * 1e3, b[0] * 1e3, b[1] * 1e3))


if __name__ == "__main__":
    main()
