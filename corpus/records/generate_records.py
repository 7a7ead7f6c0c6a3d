#!/usr/bin/env python3
"""Seeded generator of protected tables and outbound texts for exact data
match (docs/records.md). Our own generator: the values are synthetic.

  generate_records.py table --rows N --seed S --out DIR
      DIR/customers.csv (name, email, phone, card, iban, birth_date) and
      DIR/customers.schema.toml (card and email primary).
  generate_records.py quotes --table DIR/customers.csv --seed S --out DIR
        [--sets N] [--no-office]
      Outbound files quoting 1, 5 or 50 rows of the table, reformatted
      (columns reordered, phones with other separators, names in other
      case, cards in groups), as prose mail (.eml), CSV attachments
      (.eml), .xlsx (openpyxl) and .pdf (LibreOffice from the .xlsx);
      DIR/manifest.json lists each file with how many rows it quotes.
  generate_records.py clean --count N --seed S --out DIR [--table CSV]
      N clean mails (.eml) holding random Luhn-valid card numbers, IBANs,
      phone numbers, names and order numbers that are not in the table.
  generate_records.py hits --table CSV [--rows-from N] [--mib M] --out FILE
      M MiB of order lines like dense's whose cards, phones, e-mail
      addresses and IBANs are rows among the table's first N: lookups that
      hit (docs/records.md, "Lookups and memory at 10 million rows").
  generate_records.py dense --files N --seed S --out DIR
      N files of 1 MiB of number-dense text (order lines: dates, invoice
      and reference numbers, amounts, card numbers, phones, IBANs), for
      throughput (docs/records.md, "Measured").
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys

FIRST = ("James Mary John Patricia Robert Jennifer Michael Linda William "
         "Elizabeth David Barbara Richard Susan Joseph Jessica Thomas Sarah "
         "Charles Karen Christopher Nancy Daniel Lisa Matthew Betty Anthony "
         "Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew "
         "Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa "
         "George Deborah Timothy Stephanie Ronald Rebecca Jason Sharon Edward "
         "Laura Jeffrey Cynthia Ryan Kathleen Jacob Amy Gary Angela Nicholas "
         "Shirley Eric Anna Jonathan Brenda Stephen Pamela Larry Emma Justin "
         "Nicole Scott Helen Brandon Samantha Benjamin Katherine Samuel "
         "Christine Gregory Debra Alexander Rachel Frank Carolyn Patrick "
         "Janet Raymond Catherine Jack Maria Dennis Heather Jerry Diane Lukas "
         "Sophie Jonas Lea Felix Hannah Maximilian Lena Elias Marie Noah "
         "Amelie Finn Johanna Leon Clara Paul Emilia Wei Fang Jing Li Yan "
         "Chen Min Ying Jie Hui").split()
LAST = ("Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez "
        "Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore "
        "Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez "
        "Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill "
        "Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter "
        "Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins "
        "Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz "
        "Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward "
        "Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz "
        "Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster "
        "Mueller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz "
        "Hoffmann Koch Richter Klein Wolf Schroeder Neumann Schwarz "
        "Zimmermann Braun Hofmann Wang Zhang Liu Yang Huang Zhao Wu Zhou Xu "
        "Sun Ma Zhu Hu Guo Lin").split()
DOMAINS = ["example.com", "example.org", "mail.example.net", "corp.example",
           "kunden.example.de", "post.example.co.uk"]
HEADERS = ["name", "email", "phone", "card", "iban", "birth_date"]


def luhn_digit(digits):
    total = 0
    for i, d in enumerate(reversed(digits)):
        v = int(d)
        if i % 2 == 0:
            v *= 2
            if v > 9:
                v -= 9
        total += v
    return str((10 - total % 10) % 10)


def card(rng):
    prefix = rng.choice(["4", "51", "52", "53", "54", "55", "2221", "6011"])
    body = prefix + "".join(rng.choice("0123456789")
                            for _ in range(15 - len(prefix)))
    return body + luhn_digit(body)


def iban(rng):
    country, length = rng.choice([("DE", 22), ("GB", 22), ("FR", 27),
                                  ("NL", 18), ("ES", 24)])
    if country == "GB":
        bban = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
                       for _ in range(4))
        bban += "".join(rng.choice("0123456789") for _ in range(14))
    elif country == "NL":
        bban = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
                       for _ in range(4))
        bban += "".join(rng.choice("0123456789") for _ in range(10))
    else:
        bban = "".join(rng.choice("0123456789") for _ in range(length - 4))
    moved = bban + country + "00"
    number = int("".join(str(int(c, 36)) for c in moved))
    check = 98 - number % 97
    return f"{country}{check:02d}{bban}"


def phone(rng):
    kind = rng.randrange(3)
    if kind == 0:
        return f"+49 {rng.randrange(30, 999)} {rng.randrange(1000000, 99999999)}"
    if kind == 1:
        return (f"+1 {rng.randrange(201, 989)} {rng.randrange(200, 999)} "
                f"{rng.randrange(0, 10000):04d}")
    return f"+44 20 {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)}"


def row(rng, serial):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    email = f"{first.lower()}.{last.lower()}{serial}@{rng.choice(DOMAINS)}"
    born = f"{rng.randrange(1940, 2005)}-{rng.randrange(1, 13):02d}-" \
           f"{rng.randrange(1, 29):02d}"
    return [f"{first} {last}", email, phone(rng), card(rng), iban(rng), born]


SCHEMA = """# The generated customer table (corpus/records/generate_records.py).
table = "customers"
min_matches = 2
proximity = 50
date_order = "ymd"

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

[[column]]
name = "card"
type = "card"
primary = true

[[column]]
name = "iban"
type = "iban"

[[column]]
name = "birth_date"
type = "date"
"""


def cmd_table(args):
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "customers.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(HEADERS)
        for i in range(args.rows):
            out.writerow(row(rng, i))
    with open(os.path.join(args.out, "customers.schema.toml"), "w") as f:
        f.write(SCHEMA)


# --- Reformatting -----------------------------------------------------------

def regroup_card(value, rng):
    style = rng.randrange(3)
    if style == 0:
        return " ".join(value[i:i + 4] for i in range(0, len(value), 4))
    if style == 1:
        return "-".join(value[i:i + 4] for i in range(0, len(value), 4))
    return value


def reseparate_phone(value, rng):
    parts = value.split(" ")
    sep = rng.choice(["-", ".", " ", "/"])
    if rng.randrange(2):
        return parts[0] + " " + sep.join(parts[1:])
    return sep.join(parts)


def recase_name(value, rng):
    return rng.choice([value.upper(), value.lower(), value])


def redate(value, rng):
    y, m, d = value.split("-")
    return rng.choice([value, f"{d}.{m}.{y}",
                       f"{int(d)} {['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][int(m) - 1]} {y}"])


def reformatted(r, rng):
    name, email, ph, cd, ib, born = r
    return {
        "name": recase_name(name, rng),
        "email": email if rng.randrange(2) else email.upper(),
        "phone": reseparate_phone(ph, rng),
        "card": regroup_card(cd, rng),
        "iban": " ".join(ib[i:i + 4] for i in range(0, len(ib), 4))
                if rng.randrange(2) else ib,
        "birth_date": redate(born, rng),
    }


def prose(rows, rng):
    lines = ["Hi,", "", "as discussed, here are the customers from the "
             "escalation list:", ""]
    for r in rows:
        f = reformatted(r, rng)
        kind = rng.randrange(3)
        if kind == 0:
            lines.append(f"- {f['name']} ({f['email']}), card {f['card']}, "
                         f"phone {f['phone']}, born {f['birth_date']}.")
        elif kind == 1:
            lines.append(f"Customer {f['name']} paid with {f['card']}; "
                         f"IBAN {f['iban']}, reachable at {f['phone']}.")
        else:
            lines.append(f"{f['email']} / {f['card']} / {f['name']} / "
                         f"{f['birth_date']}")
    lines += ["", "Please check them before Friday.", "Regards, Tom"]
    return "\n".join(lines) + "\n"


def reordered_table(rows, rng):
    order = HEADERS[:]
    rng.shuffle(order)
    out = [order]
    for r in rows:
        f = reformatted(r, rng)
        out.append([f[c] for c in order])
    return out


def mail(subject, body, attachment=None):
    head = ("From: tom@example.com\nTo: partner@external.example\n"
            f"Subject: {subject}\nMIME-Version: 1.0\n")
    if attachment is None:
        return head + "Content-Type: text/plain; charset=utf-8\n\n" + body
    name, data = attachment
    b = "=-=-boundary-=-="
    return (head + f'Content-Type: multipart/mixed; boundary="{b}"\n\n'
            f"--{b}\nContent-Type: text/plain; charset=utf-8\n\n{body}\n"
            f"--{b}\nContent-Type: text/csv; charset=utf-8\n"
            f'Content-Disposition: attachment; filename="{name}"\n\n'
            f"{data}\n--{b}--\n")


def cmd_quotes(args):
    rng = random.Random(args.seed)
    with open(args.table, newline="") as f:
        table = list(csv.reader(f))[1:]
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    used = set()

    def pick(n):
        chosen = []
        while len(chosen) < n:
            i = rng.randrange(len(table))
            if i not in used:
                used.add(i)
                chosen.append(table[i])
        return chosen

    formats = ["prose", "csv"] + ([] if args.no_office else ["xlsx", "pdf"])
    for s in range(args.sets):
        for n in (1, 5, 50):
            for fmt in formats:
                rows = pick(n)
                stem = f"set{s}-{n}-{fmt}"
                if fmt == "prose":
                    path = stem + ".eml"
                    with open(os.path.join(args.out, path), "w") as f:
                        f.write(mail("customers", prose(rows, rng)))
                elif fmt == "csv":
                    path = stem + ".eml"
                    table_rows = reordered_table(rows, rng)
                    delim = rng.choice([",", ";", "\t"])
                    text = "\n".join(delim.join(
                        '"' + c + '"' if delim in c else c for c in r)
                        for r in table_rows)
                    with open(os.path.join(args.out, path), "w") as f:
                        f.write(mail("export", "See the attached list.\n",
                                     ("customers.csv", text)))
                else:
                    import openpyxl
                    book = openpyxl.Workbook()
                    sheet = book.active
                    table_rows = reordered_table(rows, rng)
                    for r in table_rows:
                        sheet.append(r)
                    # Columns as wide as their values, the page landscape and
                    # one page wide: the PDF shows every value whole.
                    for i, _ in enumerate(table_rows[0]):
                        letter = openpyxl.utils.get_column_letter(i + 1)
                        sheet.column_dimensions[letter].width = 2 + max(
                            len(r[i]) for r in table_rows)
                    sheet.page_setup.orientation = "landscape"
                    sheet.page_setup.fitToWidth = 1
                    sheet.page_setup.fitToHeight = 0
                    sheet.sheet_properties.pageSetUpPr.fitToPage = True
                    xlsx = os.path.join(args.out, stem + ".xlsx")
                    book.save(xlsx)
                    path = stem + ".xlsx"
                    if fmt == "pdf":
                        subprocess.run(
                            ["libreoffice", "--headless", "--convert-to", "pdf",
                             "--outdir", args.out, xlsx],
                            check=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
                        os.remove(xlsx)
                        path = stem + ".pdf"
                manifest.append({"file": path, "rows": n, "format": fmt})
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def cmd_clean(args):
    rng = random.Random(args.seed)
    known = set()
    if args.table:
        with open(args.table, newline="") as f:
            for r in list(csv.reader(f))[1:]:
                known.add(r[3])
                known.add(r[1].lower())
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.count):
        lines = ["Hello,", ""]
        for _ in range(rng.randrange(1, 6)):
            c = card(rng)
            while c in known:
                c = card(rng)
            first, last = rng.choice(FIRST), rng.choice(LAST)
            kind = rng.randrange(4)
            if kind == 0:
                lines.append(f"Order {rng.randrange(10**9, 10**10)} for "
                             f"{first} {last} was charged to "
                             f"{regroup_card(c, rng)} on "
                             f"{rng.randrange(1, 29)}.{rng.randrange(1, 13)}."
                             f"2026.")
            elif kind == 1:
                lines.append(f"Please call {first} {last} at {phone(rng)} "
                             f"about invoice {rng.randrange(10**5, 10**6)}.")
            elif kind == 2:
                lines.append(f"Refund to IBAN {iban(rng)} for "
                             f"{first.lower()}.{last.lower()}@"
                             f"{rng.choice(DOMAINS)}, card {c}.")
            else:
                lines.append(f"Tracking {rng.randrange(10**11, 10**12)}, "
                             f"ref {rng.randrange(10**15, 10**16)}, "
                             f"{first} {last}, {phone(rng)}.")
        lines += ["", "Thanks"]
        with open(os.path.join(args.out, f"clean-{i:06d}.eml"), "w") as f:
            f.write(mail(f"order {i}", "\n".join(lines) + "\n"))


def cmd_dense(args):
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.files):
        lines, size = [], 0
        while size < 1 << 20:
            c = card(rng)
            line = (f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d};"
                    f"INV-{rng.randrange(10**5, 10**6)};{regroup_card(c, rng)};"
                    f"{phone(rng)};EUR {rng.randrange(1, 10**5)},"
                    f"{rng.randrange(100):02d};qty {rng.randrange(100)};"
                    f"ref {rng.randrange(10**10, 10**11)};{iban(rng)}")
            lines.append(line)
            size += len(line) + 1
        with open(os.path.join(args.out, f"dense-{i:04d}.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


def cmd_hits(args):
    """Number-dense text whose cards, phones, e-mail addresses and IBANs
    are rows of the table (the first --from rows): lookups that hit."""
    rng = random.Random(args.seed)
    rows = []
    with open(args.table, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        for i, r in enumerate(reader):
            if i >= args.rows_from:
                break
            rows.append(r)
    size = 0
    with open(args.out, "w") as out:
        while size < args.mib << 20:
            _, email, tel, number, account, _ = rng.choice(rows)
            line = (f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d};"
                    f"INV-{rng.randrange(10**5, 10**6)};{regroup_card(number, rng)};"
                    f"{tel};{email};EUR {rng.randrange(1, 10**5)},"
                    f"{rng.randrange(100):02d};qty {rng.randrange(100)};"
                    f"ref {rng.randrange(10**10, 10**11)};{account}\n")
            out.write(line)
            size += len(line)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table")
    t.add_argument("--rows", type=int, required=True)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--out", required=True)
    q = sub.add_parser("quotes")
    q.add_argument("--table", required=True)
    q.add_argument("--seed", type=int, default=2)
    q.add_argument("--sets", type=int, default=4)
    q.add_argument("--no-office", action="store_true")
    q.add_argument("--out", required=True)
    c = sub.add_parser("clean")
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--seed", type=int, default=3)
    c.add_argument("--table")
    c.add_argument("--out", required=True)
    d = sub.add_parser("dense")
    d.add_argument("--files", type=int, required=True)
    d.add_argument("--seed", type=int, default=4)
    d.add_argument("--out", required=True)
    h = sub.add_parser("hits")
    h.add_argument("--table", required=True)
    h.add_argument("--rows-from", type=int, default=1000000)
    h.add_argument("--mib", type=int, default=32)
    h.add_argument("--seed", type=int, default=5)
    h.add_argument("--out", required=True)
    args = parser.parse_args()
    {"table": cmd_table, "quotes": cmd_quotes, "clean": cmd_clean,
     "dense": cmd_dense, "hits": cmd_hits}[
        args.command](args)


if __name__ == "__main__":
    sys.exit(main())
