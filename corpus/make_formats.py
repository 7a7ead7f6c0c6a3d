#!/usr/bin/python3
"""Writes a UTF-8 text as a file of another format, with independent
producers from Debian: python3-docx (Word), python3-openpyxl (Excel),
python3-odf (OpenDocument), Pango and Cairo through python3-gi (PDF), and
the standard library's zipfile (PowerPoint, zip) and email (e-mail).

The evaluation (leakhound-eval) and the tests use it to build real files of
every format leakhound reads from the same text.

  make_formats.py FORMAT TEXT_FILE OUT_FILE
  make_formats.py --batch MANIFEST      # lines: FORMAT <tab> TEXT <tab> OUT

FORMATs: txt docx xlsx pptx odt pdf eml-qp eml-base64 eml-alternative
eml-docx eml-attachment eml-forward zip. Deterministic: the same text
gives the same content (dates and boundaries are fixed).
"""
import html
import io
import sys
import zipfile
from email.message import EmailMessage
from email.policy import SMTP

FORMATS = ["txt", "docx", "xlsx", "pptx", "odt", "pdf", "eml-qp",
           "eml-base64", "eml-alternative", "eml-docx", "eml-attachment",
           "eml-forward", "zip"]
FIXED_TIME = (2026, 1, 1, 0, 0, 0)


def paragraphs(text):
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def docx_bytes(text):
    """Each line a paragraph, split into runs every 7 characters, so most
    words are split across runs as Word itself does after edits."""
    import docx
    document = docx.Document()
    for line in paragraphs(text):
        p = document.add_paragraph()
        for i in range(0, len(line), 7):
            run = p.add_run(line[i:i + 7])
            run.bold = (i // 7) % 5 == 4
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def xlsx_bytes(text):
    """Each line a row, its words in cells of up to 8 words."""
    import openpyxl
    book = openpyxl.Workbook()
    sheet = book.active
    for r, line in enumerate(paragraphs(text), start=1):
        words = line.split(" ")
        for c, i in enumerate(range(0, len(words), 8), start=1):
            cell = " ".join(words[i:i + 8])
            if cell.strip():
                # Text that looks like a formula is stored as text.
                sheet.cell(row=r, column=c).value = cell
                sheet.cell(row=r, column=c).data_type = "s"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def xml_escape(s):
    # XML 1.0 forbids most control characters.
    s = "".join(ch for ch in s if ch in "\t\n" or ord(ch) >= 0x20)
    return html.escape(s, quote=True)


PPTX_NS = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
           'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
           'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"')


def pptx_slide(lines, root="sld"):
    paras = "".join("<a:p><a:r><a:t>%s</a:t></a:r></a:p>" % xml_escape(l)
                    for l in lines)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<p:%s %s><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/>%s'
            '</p:txBody></p:sp></p:spTree></p:cSld></p:%s>'
            % (root, PPTX_NS, paras, root))


def pptx_bytes(text, notes=None):
    """A minimal PresentationML package: 12 lines per slide; `notes`, if
    given, as the first slide's speaker notes."""
    lines = paragraphs(text)
    slides = [lines[i:i + 12] for i in range(0, len(lines), 12)] or [[]]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        overrides = "".join(
            '<Override PartName="/ppt/slides/slide%d.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.presentationml.slide+xml"/>' % (i + 1)
            for i in range(len(slides)))
        z.writestr(zipfile.ZipInfo("[Content_Types].xml", FIXED_TIME),
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://'
                   'schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/ppt/presentation.xml" ContentType="application/'
                   'vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>'
                   + overrides + '</Types>')
        z.writestr(zipfile.ZipInfo("ppt/presentation.xml", FIXED_TIME),
                   '<?xml version="1.0" encoding="UTF-8"?><p:presentation %s>'
                   '<p:sldIdLst>%s</p:sldIdLst></p:presentation>' % (
                       PPTX_NS, "".join('<p:sldId id="%d" r:id="rId%d"/>'
                                        % (256 + i, i + 1)
                                        for i in range(len(slides)))))
        for i, s in enumerate(slides):
            z.writestr(zipfile.ZipInfo("ppt/slides/slide%d.xml" % (i + 1),
                                       FIXED_TIME), pptx_slide(s))
        if notes is not None:
            z.writestr(zipfile.ZipInfo("ppt/notesSlides/notesSlide1.xml",
                                       FIXED_TIME),
                       pptx_slide(paragraphs(notes), root="notes"))
    return out.getvalue()


def odt_bytes(text):
    from odf.opendocument import OpenDocumentText
    from odf.text import P
    document = OpenDocumentText()
    for line in paragraphs(text):
        document.text.addElement(P(text=line))
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def pdf_bytes(text):
    """A4 pages laid out by Pango (fonts by fontconfig fallback, so Latin,
    Cyrillic, Greek, fullwidth and CJK text all get glyphs) and written by
    Cairo, which embeds ToUnicode maps so the text can be extracted."""
    import gi
    gi.require_version("Pango", "1.0")
    gi.require_version("PangoCairo", "1.0")
    import cairo
    from gi.repository import Pango, PangoCairo
    width, height, margin = 595, 842, 56
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, width, height)
    ctx = cairo.Context(surface)
    layout = PangoCairo.create_layout(ctx)
    layout.set_font_description(Pango.FontDescription("DejaVu Sans 10"))
    layout.set_width((width - 2 * margin) * Pango.SCALE)
    layout.set_wrap(Pango.WrapMode.WORD_CHAR)
    layout.set_text(text, -1)
    y = margin
    it = layout.get_iter()
    lines = []
    while True:
        ink, logical = it.get_line_extents()
        lines.append((it.get_line_readonly(), logical, it.get_baseline()))
        if not it.next_line():
            break
    offset = 0
    for line, logical, baseline in lines:
        top = logical.y / Pango.SCALE - offset
        if top + logical.height / Pango.SCALE > height - 2 * margin:
            ctx.show_page()
            offset = logical.y / Pango.SCALE
            top = 0
        ctx.move_to(margin, margin + baseline / Pango.SCALE - offset)
        PangoCairo.show_layout_line(ctx, line)
    surface.finish()
    return out.getvalue()


def message(subject, body=None, cte=None):
    m = EmailMessage(policy=SMTP)
    m["From"] = "Alex Doe <alex@example.com>"
    m["To"] = "partner@example.org"
    m["Subject"] = subject
    m["Date"] = "Thu, 01 Jan 2026 00:00:00 +0000"
    m["Message-ID"] = "<leakhound-eval@example.com>"
    if body is not None:
        m.set_content(body, cte=cte)
    return m


def eml_bytes(fmt, text):
    if fmt == "eml-qp":
        m = message("Notes", text, cte="quoted-printable")
    elif fmt == "eml-base64":
        m = message("Notes", text, cte="base64")
    elif fmt == "eml-alternative":
        m = message("Notes", text, cte="quoted-printable")
        body = "".join("<p>%s</p>\n" % html.escape(l) for l in paragraphs(text))
        m.add_alternative("<html><body>%s</body></html>" % body, subtype="html",
                          cte="quoted-printable")
    elif fmt == "eml-docx":
        m = message("Report", "Please find the report attached.\n")
        m.add_attachment(docx_bytes(text), maintype="application",
                         subtype="vnd.openxmlformats-officedocument."
                         "wordprocessingml.document", filename="report.docx")
    elif fmt == "eml-attachment":
        m = message("Notes", "The notes are attached.\n")
        m.add_attachment(text.encode("utf-8"), maintype="text", subtype="plain",
                         filename="notes.txt")
    elif fmt == "eml-forward":
        inner = message("Original", text, cte="quoted-printable")
        m = message("Fwd: Original", "See the message below.\n")
        m.add_attachment(inner)
    else:
        raise ValueError(fmt)
    # Fixed boundaries keep the output deterministic.
    for i, part in enumerate(m.walk()):
        if part.is_multipart():
            part.set_boundary("=_leakhound_boundary_%d" % i)
    return m.as_bytes()


def zip_bytes(text):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("docs/readme.txt", FIXED_TIME),
                   "Files for the meeting.\n", zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo("docs/notes.txt", FIXED_TIME),
                   text.encode("utf-8"), zipfile.ZIP_DEFLATED)
    return out.getvalue()


def convert(fmt, text):
    if fmt == "txt":
        return text.encode("utf-8")
    # XML 1.0 (every format below but mail and zip) forbids most control
    # characters; none carries a word.
    text = "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)
    if fmt == "docx":
        return docx_bytes(text)
    if fmt == "xlsx":
        return xlsx_bytes(text)
    if fmt == "pptx":
        return pptx_bytes(text)
    if fmt == "odt":
        return odt_bytes(text)
    if fmt == "pdf":
        return pdf_bytes(text)
    if fmt.startswith("eml-"):
        return eml_bytes(fmt, text)
    if fmt == "zip":
        return zip_bytes(text)
    raise ValueError("unknown format " + fmt)


def write(fmt, text_path, out_path):
    with open(text_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    with open(out_path, "wb") as f:
        f.write(convert(fmt, text))


def main(argv):
    if len(argv) == 3 and argv[1] == "--batch":
        with open(argv[2], encoding="utf-8") as manifest:
            for line in manifest:
                fmt, text_path, out_path = line.rstrip("\n").split("\t")
                write(fmt, text_path, out_path)
        return 0
    if len(argv) == 4 and argv[1] in FORMATS:
        write(argv[1], argv[2], argv[3])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
