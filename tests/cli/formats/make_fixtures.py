#!/usr/bin/python3
"""Builds the hostile and special files the extraction tests need, in DIR:
zip bombs (one highly compressed member; a 42.zip-style nest), a zip with
many members, zips nested deeper than a limit, a PowerPoint with speaker
notes, a Word file with a header, footer and footnote-like text, an
image-only PDF, a password-protected PDF (qpdf), an mbox of two messages,
a zip holding a PNG and a text file.

  make_fixtures.py DIR
"""
import io
import os
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "corpus"))
import make_formats  # noqa: E402

PASSAGE = ("Valuation. Our advisers value Calloway between 212 and 236 million "
           "dollars on a debt-free basis, which is 11.5 to 12.8 times its "
           "trailing earnings before interest, taxes, depreciation and "
           "amortization.")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049"
                    "454e44ae426082")


def zip_of(members, level=9):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, make_formats.FIXED_TIME), data,
                       zipfile.ZIP_DEFLATED)
    return out.getvalue()


def repeated_member_zip(name, byte, mib):
    """A zip of one member holding `mib` MiB of `byte`, streamed so memory
    stays small."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open(name, "w", force_zip64=True) as member:
            chunk = byte * (1 << 20)
            for _ in range(mib):
                member.write(chunk)
    return out.getvalue()


def single_member_bomb():
    return repeated_member_zip("zeros.txt", b"\0", 256)


def nested_bomb():
    # 42.zip's shape: 16 copies per level, 4 levels above 64 MiB of "0".
    level = repeated_member_zip("0.txt", b"0", 64)
    for depth in range(4):
        level = zip_of([("%d-%d.zip" % (depth, i), level) for i in range(16)])
    return level


def header_docx():
    """A Word file whose passage is in its header (python3-docx)."""
    import docx
    document = docx.Document()
    document.add_paragraph("Body text of the memo.")
    section = document.sections[0]
    section.header.paragraphs[0].text = "Header: " + PASSAGE
    section.footer.paragraphs[0].text = "Footer: company confidential"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main(directory):
    os.makedirs(directory, exist_ok=True)
    write(directory, "bomb.zip", single_member_bomb())
    write(directory, "nested-bomb.zip", nested_bomb())
    write(directory, "many.zip",
          zip_of([("m%d.txt" % i, "member %d\n" % i) for i in range(300)]))
    nested = zip_of([("leak.txt", PASSAGE)])
    for i in range(4):
        nested = zip_of([("level%d.zip" % i, nested)])
    write(directory, "deep.zip", nested)
    write(directory, "image-and-text.zip",
          zip_of([("logo.png", PNG), ("notes.txt", PASSAGE)]))
    write(directory, "logo.png", PNG)
    write(directory, "notes.pptx",
          make_formats.pptx_bytes("Quarterly update", notes=PASSAGE))
    write(directory, "header.docx", header_docx())
    write(directory, "mailbox.mbox",
          b"From alex@example.com Thu Jan  1 00:00:00 2026\n" +
          make_formats.message("First", "Nothing to see.\n").as_bytes() +
          b"\nFrom alex@example.com Thu Jan  1 00:00:00 2026\n" +
          make_formats.message("Second", PASSAGE + "\n").as_bytes())
    # An image-only PDF: a page with a drawn rectangle and no text.
    import cairo
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 200, 200)
    ctx = cairo.Context(surface)
    ctx.rectangle(20, 20, 100, 100)
    ctx.fill()
    surface.finish()
    write(directory, "image-only.pdf", out.getvalue())
    plain = os.path.join(directory, "plain.pdf")
    write(directory, "plain.pdf", make_formats.pdf_bytes(PASSAGE))
    subprocess.run(["qpdf", "--encrypt", "secret", "owner", "256", "--",
                    plain, os.path.join(directory, "locked.pdf")], check=True)
    write(directory, "memo.rtf", b"{\\rtf1\\ansi " + PASSAGE.encode() + b"}")
    with open(os.path.join(directory, "passage.txt"), "w") as f:
        f.write("Some words before the quote.\n" + PASSAGE +
                "\nAnd after it, some more words.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
