#!/usr/bin/python3
"""Writes a UTF-8 text as a file of another format, with independent
producers from Debian: python3-docx (Word), python3-openpyxl (Excel),
python3-odf (OpenDocument), Pango and Cairo through python3-gi (PDF), the
standard library's zipfile (PowerPoint, zip) and email (e-mail); LibreOffice
headless saves the legacy formats (Word 97 .doc and RTF from the .docx,
Excel 97 .xls from the .xlsx, PowerPoint 97 .ppt from a flat OpenDocument
presentation with 12 lines per slide) and pandoc the EPUB (from HTML, one
paragraph per line).

The evaluation (leakhound-eval) and the tests use it to build real files of
every format leakhound reads from the same text.

  make_formats.py FORMAT TEXT_FILE OUT_FILE
  make_formats.py --batch MANIFEST      # lines: FORMAT <tab> TEXT <tab> OUT

FORMATs: txt docx xlsx pptx odt pdf eml-qp eml-base64 eml-alternative
eml-docx eml-attachment eml-forward zip doc rtf xls ppt epub png
pdf-scan. png and pdf-scan are the PDF's pages rendered by poppler's
pdftoppm at 150 dpi in gray: one tall PNG of every page, and a PDF of
the page images without a text layer (a scan). Deterministic
but for the legacy formats and EPUB, whose producers stamp dates and ids:
the same text gives the same content (dates and boundaries are fixed).
In --batch mode, LibreOffice converts all files of a format in one run.
"""
import html
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from email.message import EmailMessage
from email.policy import SMTP

FORMATS = ["txt", "docx", "xlsx", "pptx", "odt", "pdf", "eml-qp",
           "eml-base64", "eml-alternative", "eml-docx", "eml-attachment",
           "eml-forward", "zip", "doc", "rtf", "xls", "ppt", "epub", "png",
           "pdf-scan"]
# Resolution of the scanned formats' page images.
SCAN_DPI = 150
# LibreOffice's export filters, and the format each is saved from.
OFFICE = {"doc": ("docx", "MS Word 97"), "rtf": ("docx", "Rich Text Format"),
          "xls": ("xlsx", "MS Excel 97"), "ppt": ("fodp", "MS PowerPoint 97")}
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


def fodp_bytes(text):
    """A flat OpenDocument presentation: 12 lines per slide, each line a
    paragraph of one text box (LibreOffice's own input for .ppt)."""
    lines = paragraphs(text)
    slides = [lines[i:i + 12] for i in range(0, len(lines), 12)] or [[]]
    pages = "".join(
        '<draw:page draw:name="s%d" draw:master-page-name="Default">'
        '<draw:frame svg:x="1cm" svg:y="1cm" svg:width="26cm" '
        'svg:height="17cm"><draw:text-box>%s</draw:text-box></draw:frame>'
        '</draw:page>' % (i + 1, "".join("<text:p>%s</text:p>" % xml_escape(l)
                                          for l in s))
        for i, s in enumerate(slides))
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"')
    return ('<?xml version="1.0" encoding="UTF-8"?><office:document %s '
            'office:version="1.2" office:mimetype="application/'
            'vnd.oasis.opendocument.presentation"><office:master-styles>'
            '<style:master-page style:name="Default"/></office:master-styles>'
            '<office:body><office:presentation>%s</office:presentation>'
            '</office:body></office:document>' % (ns, pages)).encode("utf-8")


def source_bytes(source_fmt, text):
    return fodp_bytes(text) if source_fmt == "fodp" else convert(source_fmt, text)


def libreoffice(fmt, jobs):
    """Saves each (text, out_path) of `jobs` as `fmt` with LibreOffice, in a
    private profile so that runs in parallel do not collide; 40 files a run
    (a run of a few hundred left its last files unwritten), and a file a
    run did not write is tried once more on its own."""
    source_fmt, export_filter = OFFICE[fmt]
    with tempfile.TemporaryDirectory(prefix="make_formats-") as tmp:
        sources = []
        for i, (text, _) in enumerate(jobs):
            path = os.path.join(tmp, "%d.%s" % (i, source_fmt))
            with open(path, "wb") as f:
                f.write(source_bytes(source_fmt, clean_text(text)))
            sources.append(path)
        out_dir = os.path.join(tmp, "out")

        def run(paths):
            subprocess.run(
                ["soffice", "-env:UserInstallation=file://" + tmp + "/profile",
                 "--headless", "--norestore", "--convert-to",
                 "%s:%s" % (fmt, export_filter), "--outdir", out_dir] + paths,
                check=True, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, timeout=600)

        for start in range(0, len(sources), 40):
            run(sources[start:start + 40])
        for i, (_, out_path) in enumerate(jobs):
            produced = os.path.join(out_dir, "%d.%s" % (i, fmt))
            if not os.path.exists(produced):
                run([sources[i]])
            if not os.path.exists(produced):
                raise RuntimeError("LibreOffice did not write " + out_path)
            shutil.move(produced, out_path)


def epub_bytes(text):
    """pandoc's EPUB 3 from HTML, one paragraph per line."""
    body = "".join("<p>%s</p>\n" % xml_escape(l) for l in paragraphs(text))
    page = ('<!DOCTYPE html><html><head><meta charset="utf-8"/>'
            '<title>Document</title></head><body>%s</body></html>' % body)
    return subprocess.run(
        ["pandoc", "-f", "html", "-t", "epub3", "-o", "-",
         "--metadata", "title=Document"],
        input=page.encode("utf-8"), check=True, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, timeout=120).stdout


def page_images(text):
    """The pages of pdf_bytes(text) as PNG files rendered by pdftoppm."""
    with tempfile.TemporaryDirectory(prefix="make_formats-") as tmp:
        pdf = os.path.join(tmp, "text.pdf")
        with open(pdf, "wb") as f:
            f.write(pdf_bytes(text))
        subprocess.run(["pdftoppm", "-r", str(SCAN_DPI), "-gray", "-png", pdf,
                        os.path.join(tmp, "page")], check=True, timeout=300)
        names = sorted((n for n in os.listdir(tmp) if n.endswith(".png")),
                       key=lambda n: int(n[len("page-"):-len(".png")]))
        pages = []
        for n in names:
            with open(os.path.join(tmp, n), "rb") as f:
                pages.append(f.read())
        return pages


def png_bytes(text):
    """Every page stacked into one tall gray PNG (a long screenshot)."""
    import cairo
    images = [cairo.ImageSurface.create_from_png(io.BytesIO(p))
              for p in page_images(text)]
    width = max(i.get_width() for i in images)
    height = sum(i.get_height() for i in images)
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, width, height)
    ctx = cairo.Context(surface)
    y = 0
    for image in images:
        ctx.set_source_surface(image, 0, y)
        ctx.paint()
        y += image.get_height()
    out = io.BytesIO()
    surface.write_to_png(out)
    return out.getvalue()


def pdf_scan_bytes(text):
    """A PDF whose pages are the page images only: no text layer."""
    import cairo
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 595, 842)
    ctx = cairo.Context(surface)
    for page in page_images(text):
        image = cairo.ImageSurface.create_from_png(io.BytesIO(page))
        ctx.save()
        ctx.scale(72 / SCAN_DPI, 72 / SCAN_DPI)
        ctx.set_source_surface(image, 0, 0)
        ctx.paint()
        ctx.restore()
        ctx.show_page()
    surface.finish()
    return out.getvalue()


def clean_text(text):
    # XML 1.0 (every format below but mail and zip) forbids most control
    # characters; none carries a word.
    return "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)


def convert(fmt, text):
    if fmt == "txt":
        return text.encode("utf-8")
    text = clean_text(text)
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
    if fmt == "epub":
        return epub_bytes(text)
    if fmt == "png":
        return png_bytes(text)
    if fmt == "pdf-scan":
        return pdf_scan_bytes(text)
    raise ValueError("unknown format " + fmt)


def read_text(text_path):
    with open(text_path, encoding="utf-8", errors="replace") as f:
        return f.read()


def write(fmt, text_path, out_path):
    if fmt in OFFICE:
        libreoffice(fmt, [(read_text(text_path), out_path)])
        return
    with open(out_path, "wb") as f:
        f.write(convert(fmt, read_text(text_path)))


def main(argv):
    if len(argv) == 3 and argv[1] == "--batch":
        office = {}
        with open(argv[2], encoding="utf-8") as manifest:
            for line in manifest:
                fmt, text_path, out_path = line.rstrip("\n").split("\t")
                if fmt in OFFICE:
                    office.setdefault(fmt, []).append(
                        (read_text(text_path), out_path))
                else:
                    write(fmt, text_path, out_path)
        for fmt, jobs in office.items():
            libreoffice(fmt, jobs)
        return 0
    if len(argv) == 4 and argv[1] in FORMATS:
        write(argv[1], argv[2], argv[3])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
