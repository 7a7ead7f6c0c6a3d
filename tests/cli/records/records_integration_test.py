#!/usr/bin/python3
"""Protected tables and data identifiers end to end (docs/records.md):

  - a 20,000-row customer table from our seeded generator
    (corpus/records/generate_records.py) is added with `leakhound records
    add`; `list` and `stats` describe it without a single value;
  - outbound files quote 1, 5 or 50 of its rows, reformatted (columns
    reordered, phones with other separators, names in other case, cards in
    groups, dates written otherwise), as prose mail, CSV attachments, .xlsx
    (openpyxl) and PDF (LibreOffice from the .xlsx): `leakhound scan
    --json` must find at least 99 % of the quoted rows in every format,
    each with its primary cell and two more;
  - generated clean mails with valid card numbers, IBANs, phone numbers
    and names that are not in the table, and the sample corpus, give no
    record match;
  - a policy with `identifiers = { card = 10 }` fires on a pasted card
    export and not on a clean mail with sixteen-digit order numbers;
  - `records replace` swaps the table: the old rows stop matching;
  - `records add` killed with SIGKILL leaves an index that verifies and
    opens without the table, and the next add succeeds;
  - a real Postfix hands mail to `leakhound milter --policy`: mail quoting
    five rows is rejected by the records rule, clean mail is delivered.

    records_integration_test.py LEAKHOUND SOURCE_DIR [--rows N] [--clean N]

Needs root (Postfix) and LibreOffice. Stops every process it started.
"""
import argparse
import json
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "milter"))
from private_postfix import (PrivatePostfix, free_port, read, start_milter,  # noqa: E402
                             stop_process, wait_for)


def run(cmd, ok=(0,), **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if p.returncode not in ok:
        raise AssertionError("%s exited %d: %s%s" % (" ".join(cmd), p.returncode,
                                                     p.stdout, p.stderr))
    return p


def scan_json(leakhound, index, paths, *flags):
    p = run([leakhound, "scan", "--index", index, "--json", *flags, *paths],
            ok=(0, 1))
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def record_rows(outcome):
    return {m["row_key"] for m in outcome["matches"]
            if m["kind"] == "record" and len(m["columns"]) >= 3}


def check_recall(leakhound, index, quotes):
    manifest = json.load(open(os.path.join(quotes, "manifest.json")))
    want = {e["file"]: e for e in manifest}
    found = {}
    for o in scan_json(leakhound, index,
                       [os.path.join(quotes, e["file"]) for e in manifest]):
        name = os.path.basename(o["path"])
        assert o.get("verdict") != "error", o
        found[name] = record_rows(o)
    per_format = {}
    for name, e in want.items():
        quoted, hit = per_format.get(e["format"], (0, 0))
        # No more rows than quoted: a row found that was not quoted would be
        # a false match.
        assert len(found.get(name, ())) <= e["rows"], (name, found.get(name))
        per_format[e["format"]] = (quoted + e["rows"],
                                   hit + len(found.get(name, ())))
    for fmt, (quoted, hit) in sorted(per_format.items()):
        print("recall %-5s %d of %d rows (%.2f %%)" % (fmt, hit, quoted,
                                                      100.0 * hit / quoted))
        assert hit >= 0.99 * quoted, (fmt, hit, quoted)
    assert set(per_format) == {"prose", "csv", "xlsx", "pdf"}, per_format


def check_clean(leakhound, index, clean_dir, source):
    files = sorted(os.path.join(clean_dir, f) for f in os.listdir(clean_dir))
    hits = 0
    cards = 0
    for o in scan_json(leakhound, index, files, "--threads", "2"):
        hits += len(record_rows(o))
        cards += o["identifiers"].get("card", {}).get("distinct", 0)
    print("clean mails: %d files, %d record matches, %d valid cards counted"
          % (len(files), hits, cards))
    assert hits == 0
    assert cards > len(files)  # they do hold valid cards, just not ours
    sample = [os.path.join(source, "corpus/sample", d)
              for d in ("outbound", "protected")]
    for o in scan_json(leakhound, index, sample):
        assert not record_rows(o), o["path"]


def check_card_policy(leakhound, index, work):
    policy = os.path.join(work, "cards.toml")
    with open(policy, "w") as f:
        f.write('[[rule]]\nname = "card export"\nseverity = "high"\n'
                'action = "reject"\n[rule.when]\nidentifiers = { card = 10 }\n')
    export = os.path.join(work, "export.txt")
    cards = ["4111111111111111", "5500005555555559", "378282246310005",
             "6011111111111117", "4012888888881881", "5105105105105100",
             "4222222222222", "371449635398431", "6011000990139424",
             "5555555555554444", "4000056655665556", "3566002020360505"]
    with open(export, "w") as f:
        f.write("card_number\n" + "\n".join(cards) + "\n")
    orders = os.path.join(work, "orders.txt")
    with open(orders, "w") as f:
        f.write("Shipped orders: " + ", ".join(c[:-1] + str((int(c[-1]) + 1) % 10)
                                               for c in cards) + ".\n")
    out = scan_json(leakhound, index, [export, orders], "--policy", policy)
    by_name = {os.path.basename(o["path"]): o for o in out}
    assert by_name["export.txt"]["severity"] == "high", by_name["export.txt"]
    assert by_name["export.txt"]["identifiers"]["card"]["distinct"] == 12
    assert by_name["orders.txt"]["severity"] == "", by_name["orders.txt"]
    assert "card" not in by_name["orders.txt"]["identifiers"]


def check_kill_during_add(leakhound, work, table, schema):
    index = os.path.join(work, "killed")
    run([leakhound, "init", "--index", index])
    proc = subprocess.Popen([leakhound, "records", "add", "--index", index,
                             "--schema", schema, table],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.4)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    run([leakhound, "verify", "--index", index])
    listed = run([leakhound, "records", "list", "--index", index, "--json"])
    # Either the add finished before the kill or nothing of it is named.
    tables = [json.loads(line) for line in listed.stdout.splitlines()]
    assert tables == [] or tables[0]["rows"] > 0, tables
    if not tables:
        run([leakhound, "records", "add", "--index", index, "--schema",
             schema, table])
    listed = run([leakhound, "records", "list", "--index", index, "--json"])
    assert len(listed.stdout.splitlines()) == 1


def check_errors(leakhound, work, index, table, schema):
    bad = os.path.join(work, "bad.toml")
    with open(bad, "w") as f:
        f.write('[[column]]\nname = "x"\ntype = "name"\nprimary = true\n')
    p = run([leakhound, "records", "add", "--index", index, "--schema", bad,
             table], ok=(2,))
    assert p.stderr.count("\n") == 1 and "bad.toml:1:" in p.stderr, p.stderr
    headless = os.path.join(work, "headless.csv")
    with open(headless, "w") as f:
        f.write("a,b\n1,2\n")
    p = run([leakhound, "records", "add", "--index", index, "--schema", schema,
             "--name", "other", headless], ok=(2,))
    assert "headless.csv:1: the header has no column" in p.stderr, p.stderr
    p = run([leakhound, "records", "add", "--index", os.path.join(work, "none"),
             "--schema", schema, table], ok=(2,))
    assert p.stderr.count("\n") == 1, p.stderr
    p = run([leakhound, "records", "add", "--index", index, "--schema", schema,
             table], ok=(2,))
    assert "is protected already" in p.stderr, p.stderr


def check_milter(leakhound, work, index, quotes):
    policy = os.path.join(work, "mail.toml")
    with open(policy, "w") as f:
        f.write('internal_domains = ["corp.test"]\n'
                '[[rule]]\nname = "customer rows"\nseverity = "high"\n'
                'action = "reject"\nreject_text = "Customer records may not '
                'leave."\n[rule.when]\ntables = ["customers"]\nrecords = 1\n')
    postfix = PrivatePostfix(os.path.join(work, "pf"),
                             {"gw": free_port()})
    milter_port = postfix.milters["gw"]
    log = os.path.join(work, "milter.log")
    milter = start_milter(leakhound, index, milter_port, log,
                          "--policy", policy)
    try:
        postfix.start()
        smtp_port = postfix.smtp["gw"]
        leaking = read(os.path.join(quotes, "set0-5-prose.eml"))
        clean = ("From: tom@corp.test\nTo: a@example.test\nSubject: hi\n\n"
                 "Order 4111111111111112 ships Friday.\n")
        refused = None
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as s:
            try:
                s.sendmail("tom@corp.test", ["a@example.test"], leaking)
            except smtplib.SMTPDataError as e:
                refused = e
            s.sendmail("tom@corp.test", ["a@example.test"], clean)
        assert refused is not None and refused.smtp_code == 550, refused
        assert b"Customer records may not leave" in refused.smtp_error
        wait_for(lambda: len(postfix.delivered()) == 1, "clean mail delivered")
        print("milter: 5-row mail refused (%s), clean mail delivered"
              % refused.smtp_code)
    finally:
        postfix.stop()
        stop_process(milter)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("leakhound")
    parser.add_argument("source")
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--clean", type=int, default=3000)
    parser.add_argument("--sets", type=int, default=2)
    parser.add_argument("--skip-milter", action="store_true")
    args = parser.parse_args()
    leakhound = os.path.abspath(args.leakhound)
    generator = os.path.join(args.source, "corpus/records/generate_records.py")
    work = tempfile.mkdtemp(prefix="leakhound-records-")
    os.chmod(work, 0o755)  # Postfix's own users go through it
    try:
        tables = os.path.join(work, "t")
        run(["/usr/bin/python3", generator, "table", "--rows", str(args.rows),
             "--seed", "21", "--out", tables])
        table = os.path.join(tables, "customers.csv")
        schema = os.path.join(tables, "customers.schema.toml")
        index = os.path.join(work, "idx")
        run([leakhound, "init", "--index", index])
        added = run([leakhound, "records", "add", "--index", index, "--schema",
                     schema, table])
        assert "added customers: %d rows" % args.rows in added.stdout, added.stdout
        listed = [json.loads(line) for line in run(
            [leakhound, "records", "list", "--index", index, "--json"]
        ).stdout.splitlines()]
        assert listed[0]["table"] == "customers" and listed[0]["rows"] == args.rows
        stats = run([leakhound, "records", "stats", "--index", index]).stdout
        # Nothing of the table is readable in what leakhound shows or keeps.
        first_row = read(table).splitlines()[1].split(",")
        for cell in first_row:
            assert cell not in stats and cell not in added.stdout, cell
        db = os.path.join(index, "db")
        for name in os.listdir(db):
            with open(os.path.join(db, name), "rb") as f:
                blob = f.read()
            for cell in first_row:
                assert cell.encode() not in blob, (cell, name)

        quotes = os.path.join(work, "quotes")
        run(["/usr/bin/python3", generator, "quotes", "--table", table,
             "--sets", str(args.sets), "--seed", "22", "--out", quotes])
        check_recall(leakhound, index, quotes)
        clean = os.path.join(work, "clean")
        run(["/usr/bin/python3", generator, "clean", "--count", str(args.clean),
             "--seed", "23", "--table", table, "--out", clean])
        check_clean(leakhound, index, clean, args.source)
        check_card_policy(leakhound, index, work)
        check_errors(leakhound, work, index, table, schema)

        # replace: a table of other rows; the quoted rows stop matching.
        other = os.path.join(work, "other")
        run(["/usr/bin/python3", generator, "table", "--rows", "1000",
             "--seed", "99", "--out", other])
        run([leakhound, "records", "replace", "--index", index, "--schema",
             schema, os.path.join(other, "customers.csv")])
        after = scan_json(leakhound, index,
                          [os.path.join(quotes, "set0-50-csv.eml")])
        assert not record_rows(after[0]), after
        run([leakhound, "records", "replace", "--index", index, "--schema",
             schema, table])

        check_kill_during_add(leakhound, work, table, schema)
        if not args.skip_milter:
            check_milter(leakhound, work, index, quotes)
        print("records integration: ok")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
