#!/usr/bin/env python3
"""Recall of exact data match on the reformattings people really write
(issue 67, docs/records.md "Measured: reformattings"), and its false
alarms on texts full of valid national phones and dates not in the table.

  reformat_recall.py LEAKHOUND WORKDIR [--rows N] [--per-kind K]
                     [--negatives N] [--no-office]

Builds a seeded customer table of 8 columns with 4 primaries (email,
phone, card, iban; name, birth_date, city, customer_no), with accented
and Chinese names, 15-digit cards and phones of five regions written
internationally; adds it with `leakhound records add` (from CSV, or with
--table-xlsx from an .xlsx with date cells); writes K files per
reformatting, each quoting one row (a primary and two more of its cells)
written that way; scans them with `leakhound scan --json` and counts the
rows found. Prints one line per kind and exits 1 if a kind's recall is
below 99 % or a negative text matches a row. Our own generator: the
values are synthetic; the .xlsx date cells come from openpyxl and the PDF
from LibreOffice (a .docx whose lines wrap inside card numbers).
"""
import argparse
import csv
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import unicodedata

from generate_records import luhn_digit  # the table generator's, beside it

FIRST = ("James Mary John Patricia Robert Jennifer Michael Linda William "
         "Elizabeth David Barbara Richard Susan Lukas Sophie Jonas Hannah "
         "Felix Clara").split()
ACCENTED_FIRST = "José Zoë Renée André Jürgen Søren Łukasz François Inês Ángel".split()
LAST = ("Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson "
        "Taylor Moore Jackson Martin Thompson White Harris Clark Lewis "
        "Schmidt Schneider Fischer Weber Wagner Becker").split()
ACCENTED_LAST = ("Müller Lefèvre García Gonçalves Dvořák Nuñez Böhm Sánchez "
                 "Ødegaard Jääskeläinen").split()
CJK_LAST = "王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗".split()
CJK_FIRST = "伟 芳 娜 秀英 敏 静 丽 强 磊 军 洋 勇 艳 杰 娟 涛 明 超 秀兰 霞".split()
CITIES = "Berlin Paris London Boston Rome Madrid Munich Lyon Leeds Denver".split()
HEADERS = ["customer_no", "name", "email", "phone", "card", "iban",
           "birth_date", "city"]
SCHEMA = """table = "customers"
min_matches = 2
proximity = 50
date_order = "ymd"
[[column]]
name = "customer_no"
type = "text"
[[column]]
name = "name"
type = "name"
[[column]]
name = "email"
type = "email"
primary = true
[[column]]
name = "phone"
type = "phone"
primary = true
[[column]]
name = "card"
type = "card"
primary = true
[[column]]
name = "iban"
type = "iban"
primary = true
[[column]]
name = "birth_date"
type = "date"
[[column]]
name = "city"
type = "text"
"""
MONTHS = {
    "de": "Januar Februar März April Mai Juni Juli August September Oktober "
          "November Dezember".split(),
    "fr": "janvier février mars avril mai juin juillet août septembre "
          "octobre novembre décembre".split(),
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre "
          "octubre noviembre diciembre".split(),
}


def card(rng, amex):
    prefix = rng.choice(["34", "37"]) if amex else rng.choice(
        ["4", "51", "55", "2221", "6011"])
    length = 15 if amex else 16
    body = prefix + "".join(rng.choice("0123456789")
                            for _ in range(length - 1 - len(prefix)))
    return body + luhn_digit(body)


def iban(rng):
    bban = "".join(rng.choice("0123456789") for _ in range(18))
    number = int("".join(str(int(c, 36)) for c in bban + "DE00"))
    return "DE%02d%s" % (98 - number % 97, bban)


def digits(rng, n):
    return "".join(rng.choice("0123456789") for _ in range(n))


# (region, international, national) forms of one valid number.
def phone(rng, region):
    if region == "DE":
        d = rng.choice("2345678") + digits(rng, 6)
        return "+49 30 " + d, "030 " + d
    if region == "FR":
        # Paris, 01 4x: every such number is valid (libphonenumber).
        d = ["1", "4" + digits(rng, 1)] + [digits(rng, 2) for _ in range(3)]
        return "+33 " + " ".join(d), "0" + " ".join(d)
    if region == "GB":
        a, b = "7" + digits(rng, 3), digits(rng, 4)
        return "+44 20 %s %s" % (a, b), "020 %s %s" % (a, b)
    if region == "US":
        area = rng.choice(["212", "415", "617", "312", "206"])
        ex = rng.choice("23456789") + digits(rng, 2)
        line = digits(rng, 4)
        return "+1 %s %s %s" % (area, ex, line), "(%s) %s-%s" % (area, ex, line)
    d = digits(rng, 8)  # IT: Rome, the leading 0 kept in E.164
    return "+39 06 " + d, "06 " + d[:4] + " " + d[4:]


REGIONS = ["DE", "FR", "GB", "US", "IT"]


def make_table(rng, rows):
    out = []
    for i in range(rows):
        kind = i % 4  # plain, accented, CJK, amex-card plain
        if kind == 1:
            name = "%s %s" % (rng.choice(ACCENTED_FIRST), rng.choice(ACCENTED_LAST))
        elif kind == 2:
            name = rng.choice(CJK_LAST) + rng.choice(CJK_FIRST)
        else:
            name = "%s %s" % (rng.choice(FIRST), rng.choice(LAST))
        born = datetime.date(rng.randrange(1950, 2004), rng.randrange(1, 13),
                             rng.randrange(1, 29))
        region = REGIONS[i % 5]
        international, national = phone(rng, region)
        out.append({
            "customer_no": "C%07d" % (i + 1), "name": name,
            "email": "c%d.%s@example.com" % (i, digits(rng, 4)),
            "phone": international, "national": national, "region": region,
            "card": card(rng, amex=(kind == 3)), "iban": iban(rng),
            "birth_date": born, "city": rng.choice(CITIES), "kind": kind})
    return out


def groups(number, sizes):
    out, at = [], 0
    for n in sizes:
        out.append(number[at:at + n])
        at += n
    return out


def card_groups(number):
    return groups(number, [4, 4, 4, 3] if len(number) == 15 else [4, 4, 4, 4])


def ascii_name(name):
    folded = unicodedata.normalize("NFD", name)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Mn")
    for a, b in (("ø", "o"), ("Ø", "O"), ("ł", "l"), ("Ł", "L")):
        folded = folded.replace(a, b)
    return folded


def iso(d):
    return d.isoformat()


# Each kind: (which rows it applies to, text of one row).
def wrapped(sep):
    def text(r):
        g = card_groups(r["card"])
        return ("Customer %s, born %s, pays with %s %s%s%s %s.\n"
                % (r["name"], iso(r["birth_date"]), g[0], g[1], sep, g[2], g[3]))
    return text


KINDS = {
    "wrap-lf": (lambda r: r["kind"] != 3, wrapped("\n")),
    "wrap-crlf": (lambda r: r["kind"] != 3, wrapped("\r\n")),
    "wrap-tab": (lambda r: r["kind"] != 3, wrapped("\t")),
    "wrap-2space": (lambda r: r["kind"] != 3, wrapped("  ")),
    "wrap-nbsp": (lambda r: r["kind"] != 3, wrapped("\u00a0")),
    "iban-wrapped": (lambda r: True, lambda r: "IBAN %s\n%s for %s, born %s.\n" % (
        " ".join(groups(r["iban"], [4, 4, 4])), " ".join(groups(r["iban"][12:], [4, 4, 2])),
        r["name"], iso(r["birth_date"]))),
    "amex-4443": (lambda r: r["kind"] == 3, lambda r: "Card %s of %s, born %s.\n" % (
        " ".join(card_groups(r["card"])), r["name"], iso(r["birth_date"]))),
    "last-first": (lambda r: r["kind"] == 0, lambda r: "%s, %s (card %s), born %s.\n" % (
        r["name"].split()[1], r["name"].split()[0], r["card"], iso(r["birth_date"]))),
    "accents-stripped": (lambda r: r["kind"] == 1, lambda r: "Card %s of %s, born %s.\n" % (
        r["card"], ascii_name(r["name"]), iso(r["birth_date"]))),
    "cjk-prose": (lambda r: r["kind"] == 2, lambda r: "客户%s的卡号是%s，出生于%d年%d月%d日，谢谢。\n" % (
        r["name"], r["card"], r["birth_date"].year, r["birth_date"].month,
        r["birth_date"].day)),
    "year-2-digit": (lambda r: r["kind"] != 2, lambda r: "Card %s, %s, born %s.\n" % (
        r["card"], r["name"], r["birth_date"].strftime("%d.%m.%y"))),
}
for lang in ("de", "fr", "es"):
    def month_text(r, lang=lang):
        d = r["birth_date"]
        month = MONTHS[lang][d.month - 1]
        written = {"de": "%d. %s %d", "fr": "%d %s %d",
                   "es": "%d de %s de %d"}[lang] % (d.day, month, d.year)
        return "Karte/carte/tarjeta %s, %s, %s.\n" % (r["card"], r["name"], written)
    KINDS["month-" + lang] = (lambda r: r["kind"] != 2, month_text)
KINDS["month-zh"] = (lambda r: True, lambda r: "卡号%s，%s，生日%d年%d月%d日。\n" % (
    r["card"], r["name"], r["birth_date"].year, r["birth_date"].month,
    r["birth_date"].day))
for region in REGIONS:
    KINDS["phone-national-" + region] = (
        lambda r, region=region: r["region"] == region,
        lambda r: "Call %s on %s, born %s, city %s.\n" % (
            r["name"], r["national"], iso(r["birth_date"]), r["city"]))
KINDS["phone-national-(0)"] = (lambda r: r["region"] == "DE", lambda r: (
    "Call %s on +49 (0)30 %s, born %s.\n" % (r["name"], r["national"][4:],
                                             iso(r["birth_date"]))))


def write_kinds(rng, table, out, per_kind):
    files = []
    for kind, (applies, text) in KINDS.items():
        rows = [r for r in table if applies(r)]
        for n, r in enumerate(rng.sample(rows, min(per_kind, len(rows)))):
            name = "%s-%03d.txt" % (kind, n)
            with open(os.path.join(out, name), "w", encoding="utf-8", newline="") as f:
                f.write("Hello,\n\n" + text(r) + "\nRegards\n")
            files.append((name, kind))
    return files


def write_office(rng, table, out, per_kind):
    files = []
    import openpyxl
    from docx import Document
    rows = rng.sample(table, min(per_kind, len(table)))
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Name", "Card", "Born"])
    for r in rows:
        ws.append([r["name"], " ".join(card_groups(r["card"])), r["birth_date"]])
        ws.cell(row=ws.max_row, column=3).number_format = "DD.MM.YYYY"
    wb.save(os.path.join(out, "xlsx-date-cells.xlsx"))
    files.append(("xlsx-date-cells.xlsx", "xlsx-date-cells", len(rows)))
    doc = Document()
    para = []
    filler = "as agreed on the phone with our office in town last week".split()
    for r in rows:
        # Long lines: Writer wraps them at spaces; a filler of random
        # length puts the wrap inside a card's groups in about half of them.
        para.append("The customer %s, born %s, paid %s with the card %s and "
                    "asked us to keep it on file." % (
                        r["name"], iso(r["birth_date"]),
                        " ".join(filler[:rng.randrange(len(filler) + 1)]),
                        " ".join(card_groups(r["card"]))))
    for p in para:
        doc.add_paragraph(p)
    docx = os.path.join(out, "wrapped.docx")
    doc.save(docx)
    # A profile of its own: another LibreOffice of a parallel test would
    # hold the user's.
    profile = "file://" + os.path.abspath(os.path.join(out, "..", "lo-profile"))
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless",
                    "--convert-to", "pdf", "--outdir", out, docx],
                   check=True, capture_output=True, timeout=300)
    os.remove(docx)
    # LibreOffice reads ISO dates of a CSV as date cells (yyyy-mm-dd) and
    # writes them typed into .xlsx, .xls and .ods.
    sheet = os.path.join(out, "lo-date-cells.csv")
    with open(sheet, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Name", "Card", "Born"])
        for r in rows:
            w.writerow([r["name"], " ".join(card_groups(r["card"])),
                        iso(r["birth_date"])])
    for ext, filt in (("xlsx", "xlsx"), ("xls", "xls:MS Excel 97"),
                      ("ods", "ods")):
        subprocess.run(["soffice", "-env:UserInstallation=" + profile,
                        "--headless", "--infilter=CSV:44,34,76,1",
                        "--convert-to", filt, "--outdir", out, sheet],
                       check=True, capture_output=True, timeout=300)
        files.append(("lo-date-cells." + ext, "libreoffice-" + ext + "-dates",
                      len(rows)))
    os.remove(sheet)
    text = subprocess.run(["pdftotext", os.path.join(out, "wrapped.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    inside = sum(1 for r in rows
                 if " ".join(card_groups(r["card"])) not in text.replace("\n", " ")
                 or " ".join(card_groups(r["card"])) not in text)
    print("pdf-from-docx: %d of %d card numbers wrapped across a line end"
          % (inside, len(rows)))
    files.append(("wrapped.pdf", "pdf-from-docx", len(rows)))
    return files


def negatives(rng, out, count):
    """Texts with valid national phones and dates, none in the table."""
    names = []
    for i in range(count):
        region = REGIONS[i % 5]
        lines = []
        for _ in range(5):
            _, national = phone(rng, region)
            d = datetime.date(rng.randrange(1950, 2004), rng.randrange(1, 13),
                              rng.randrange(1, 29))
            lines.append("%s %s, tel. %s, geboren %s / born %s, card %s." % (
                rng.choice(FIRST), rng.choice(LAST), national,
                d.strftime("%d.%m.%y"), iso(d), card(rng, amex=False)))
        name = "neg-%05d.txt" % i
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(lines) + "\n")
        names.append(name)
    return names


def scan(leakhound, index, paths):
    found = {}
    for start in range(0, len(paths), 500):
        p = subprocess.run([leakhound, "scan", "--index", index, "--json",
                            "--threads", "2", *paths[start:start + 500]],
                           capture_output=True, text=True, timeout=1800)
        if p.returncode not in (0, 1):
            sys.exit("scan failed: " + p.stderr)
        for line in p.stdout.splitlines():
            o = json.loads(line)
            found[os.path.basename(o["path"])] = {
                m["row_key"] for m in o["matches"]
                if m["kind"] == "record" and len(m["columns"]) >= 3}
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("leakhound")
    ap.add_argument("work")
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--per-kind", type=int, default=100)
    ap.add_argument("--negatives", type=int, default=1000)
    ap.add_argument("--no-office", action="store_true")
    ap.add_argument("--table-xlsx", action="store_true",
                    help="add the table from an .xlsx (openpyxl) instead of CSV")
    ap.add_argument("--seed", type=int, default=67)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)  # a fresh index each run
    os.makedirs(args.work)
    table = make_table(rng, args.rows)
    csv_path = os.path.join(args.work, "customers.csv")
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(HEADERS)
        for r in table:
            w.writerow([r[h] if h != "birth_date" else iso(r[h]) for h in HEADERS])
    table_file = csv_path
    if args.table_xlsx:
        # The table as an admin exports it from Excel: text cells, the
        # birth dates as date cells, and one empty cell left out per row
        # of the first 100 (openpyxl writes no element for None).
        import openpyxl
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(HEADERS)
        for n, r in enumerate(table):
            ws.append([r[h] if h != "city" or n >= 100 else None
                       for h in HEADERS])
            ws.cell(row=ws.max_row, column=HEADERS.index("birth_date") + 1
                    ).number_format = "DD.MM.YYYY"
        table_file = os.path.join(args.work, "customers.xlsx")
        wb.save(table_file)
    schema = os.path.join(args.work, "customers.schema.toml")
    with open(schema, "w") as f:
        f.write(SCHEMA)
    index = os.path.join(args.work, "idx")
    subprocess.run([args.leakhound, "init", "--index", index], check=True,
                   capture_output=True)
    added = subprocess.run([args.leakhound, "records", "add", "--index", index,
                            "--schema", schema, table_file], check=True,
                           capture_output=True, text=True)
    print(added.stdout.strip())
    if ("%d rows (0 without" % len(table)) not in added.stdout:
        sys.exit("records add did not store every row: " + added.stdout)
    quotes = os.path.join(args.work, "quotes")
    os.makedirs(quotes, exist_ok=True)
    files = [(n, k, 1) for n, k in write_kinds(rng, table, quotes, args.per_kind)]
    if not args.no_office:
        files += write_office(rng, table, quotes, args.per_kind)
    neg_dir = os.path.join(args.work, "negatives")
    os.makedirs(neg_dir, exist_ok=True)
    negs = negatives(rng, neg_dir, args.negatives)
    found = scan(args.leakhound, index, [os.path.join(quotes, n) for n, _, _ in files])
    per_kind = {}
    failed = False
    for name, kind, rows in files:
        want, hit = per_kind.get(kind, (0, 0))
        per_kind[kind] = (want + rows, hit + min(rows, len(found.get(name, ()))))
    print("%-22s %6s %6s %8s" % ("reformatting", "rows", "found", "recall"))
    for kind, (want, hit) in per_kind.items():
        recall = 100.0 * hit / want
        failed |= recall < 99.0
        print("%-22s %6d %6d %7.1f%%%s" % (kind, want, hit, recall,
                                           "" if recall >= 99.0 else "  < 99 %"))
    neg_found = scan(args.leakhound, index, [os.path.join(neg_dir, n) for n in negs])
    false_alarms = sum(len(v) for v in neg_found.values())
    print("negatives: %d texts (%d national phones and dates), %d record matches"
          % (len(negs), 5 * len(negs), false_alarms))
    failed |= false_alarms > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
