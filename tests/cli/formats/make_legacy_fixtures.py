#!/usr/bin/python3
"""Builds the legacy-format files the reader tests need, in DIR.

Real producers where Debian has one:
  - LibreOffice headless (through corpus/make_formats.py): passage.doc,
    passage.rtf, passage.xls, passage.ppt, and header.doc (saved from
    make_fixtures.py's header.docx: a header, a footer and the body);
  - pandoc: passage.epub;
  - libgsf's `gsf createole`: embedded.doc (passage.doc's streams and an
    ObjectPool storage holding a .docx) and the OLE2 container of
    message.msg, whose
    property streams (MS-OXMSG) are written here: Outlook itself is not a
    Debian package;
  - poppler's pdftoppm: passage.png and passage-zh.png (150 dpi pages) and
    scan.pdf (pages as images, no text layer).
Written here from the published specifications (no Debian program writes
them): winmail.dat (MS-OXTNEF, with a compressed RTF body, MS-OXRTFCP,
and a Word 97 attachment), and the hostile files:
  - fat-cycle.doc: long.doc whose WordDocument sector chain loops;
  - nested-pools.doc: embedded.doc with ObjectPool storages 21 deep;
  - encrypted.doc: long.doc with the FIB's fEncrypted flag set;
  - encrypted-package.docx: an OLE2 file with EncryptionInfo and
    EncryptedPackage streams, as Office writes a password-protected .docx;
  - deep.rtf: groups nested 100,000 deep;
  - bomb-50000.png: a PNG whose header says 50,000 x 50,000 pixels;
  - many-attachments.dat: TNEF with 100,000 attachments;
  - gbk.rtf: Chinese as \\'hh bytes of code page 936, no \\uN;
  - unknown-mimetype.zip: a zip whose mimetype entry names no format.
And make_label_fixtures.py's labelled files, in DIR/labels.

  make_legacy_fixtures.py DIR
"""
import io
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "corpus"))
import make_formats  # noqa: E402

PASSAGE = ("Valuation. Our advisers value Calloway between 212 and 236 million "
           "dollars on a debt-free basis, which is 11.5 to 12.8 times its "
           "trailing earnings before interest, taxes, depreciation and "
           "amortization.")
PASSAGE_ZH = ("本合同项下供应商应当在每个季度结束后十五个工作日内向采购方提交质量报告，"
              "报告应当包括不合格品数量、返工成本以及纠正措施的执行情况。")


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def utf16(text):
    return (text + "\0").encode("utf-16-le")


# --- OLE2: Outlook .msg through gsf createole --------------------------------

def write_message(root, subject, body, attachments=(), embedded=None):
    """A message's property streams under directory `root`."""
    os.makedirs(root, exist_ok=True)
    write(root, "__properties_version1.0", b"\0" * 32)
    write(root, "__substg1.0_0037001F", utf16(subject))
    write(root, "__substg1.0_1000001F", utf16(body))
    n = 0
    for name, data in attachments:
        a = os.path.join(root, "__attach_version1.0_#%08X" % n)
        os.makedirs(a)
        write(a, "__properties_version1.0", b"\0" * 8)
        write(a, "__substg1.0_3707001F", utf16(name))
        write(a, "__substg1.0_37010102", data)
        n += 1
    if embedded is not None:
        a = os.path.join(root, "__attach_version1.0_#%08X" % n)
        os.makedirs(a)
        write(a, "__properties_version1.0", b"\0" * 8)
        write(a, "__substg1.0_3707001F", utf16("forwarded.msg"))
        embedded(os.path.join(a, "__substg1.0_3701000D"))


def create_ole(out_path, directory):
    entries = [os.path.join(directory, e) for e in sorted(os.listdir(directory))]
    subprocess.run(["gsf", "createole", out_path] + entries, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# --- TNEF (MS-OXTNEF) and compressed RTF (MS-OXRTFCP) ------------------------

def lzfu(raw):
    """Compressed RTF with literal runs only (valid LZFu: a reader must
    follow the control bits) and the end marker."""
    preload = len(make_formats_preload())
    out = bytearray()
    pos = 0
    write_at = preload
    while True:
        chunk = raw[pos:pos + 8]
        if len(chunk) == 8:
            out.append(0x00)
            out += chunk
            pos += 8
            write_at = (write_at + 8) % 4096
            continue
        # The last run: the remaining literals, then the end reference.
        out.append(1 << len(chunk))
        out += chunk
        write_at = (write_at + len(chunk)) % 4096
        out += struct.pack(">H", write_at << 4)
        break
    body = bytes(out)
    return struct.pack("<IIII", len(body) + 12, len(raw), 0x75465A4C, 0) + body


def make_formats_preload():
    return (b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman "
            b"\\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New "
            b"RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
            b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx")


def tnef_record(level, attribute, data):
    return (struct.pack("<BII", level, attribute, len(data)) + data +
            struct.pack("<H", sum(data) & 0xFFFF))


def mapi_props(props):
    """props: (type, id, bytes) of variable-size values."""
    out = struct.pack("<I", len(props))
    for ptype, pid, value in props:
        out += struct.pack("<HHI", ptype, pid, 1) + struct.pack("<I", len(value))
        out += value + b"\0" * (-len(value) % 4)
    return out


def tnef(subject, rtf_body, attachments):
    out = [struct.pack("<IH", 0x223E9F78, 0x0001),
           tnef_record(1, 0x00089006, struct.pack("<I", 0x00010000)),
           tnef_record(1, 0x00069007, struct.pack("<II", 1252, 0)),
           tnef_record(1, 0x00078008, b"IPM.Microsoft Mail.Note\0"),
           tnef_record(1, 0x00018004, subject.encode("cp1252") + b"\0"),
           tnef_record(1, 0x00069003,
                       mapi_props([(0x0102, 0x1009, lzfu(rtf_body))]))]
    for name, data in attachments:
        out.append(tnef_record(2, 0x00069002, struct.pack("<HIHHI", 1, 0, 0, 0, 0)))
        out.append(tnef_record(2, 0x00018010, name.encode("cp1252") + b"\0"))
        out.append(tnef_record(2, 0x0006800F, data))
        out.append(tnef_record(2, 0x00069005,
                               mapi_props([(0x001F, 0x3707, utf16(name))])))
    return b"".join(out)


# --- Damaged and hostile OLE2 ------------------------------------------------

class Ole2:
    """Just enough of an OLE2 file's layout to damage it on purpose."""

    def __init__(self, data):
        self.data = bytearray(data)
        self.size = 1 << struct.unpack_from("<H", self.data, 0x1E)[0]
        self.fat_sectors = [s for s in struct.unpack_from("<109I", self.data, 0x4C)
                            if s < 0xFFFFFFFA]

    def offset(self, sector):
        return 512 + sector * self.size

    def fat_offset(self, n):
        per = self.size // 4
        return self.offset(self.fat_sectors[n // per]) + (n % per) * 4

    def fat(self, n):
        return struct.unpack_from("<I", self.data, self.fat_offset(n))[0]

    def start_of(self, name):
        """First sector of the stream `name`, from the directory chain."""
        d = struct.unpack_from("<I", self.data, 0x30)[0]
        while d < 0xFFFFFFFA:
            for k in range(self.size // 128):
                entry = self.offset(d) + k * 128
                length = struct.unpack_from("<H", self.data, entry + 64)[0]
                raw = self.data[entry:entry + max(0, length - 2)]
                if raw.decode("utf-16-le") == name:
                    return struct.unpack_from("<I", self.data, entry + 0x74)[0]
            d = self.fat(d)
        raise ValueError("no stream " + name)


def fat_cycle(doc):
    """`doc` with the second sector of its WordDocument stream pointing
    back to the first: a loop in the file allocation table.
    REQUIRES: the stream is in the regular FAT (4096 bytes or more)."""
    ole = Ole2(doc)
    start = ole.start_of("WordDocument")
    struct.pack_into("<I", ole.data, ole.fat_offset(ole.fat(start)), start)
    return bytes(ole.data)


def encrypted_doc(doc):
    """`doc` with the FIB's fEncrypted flag set."""
    ole = Ole2(doc)
    at = ole.offset(ole.start_of("WordDocument")) + 0x0A
    flags = struct.unpack_from("<H", ole.data, at)[0] | 0x0100
    struct.pack_into("<H", ole.data, at, flags)
    return bytes(ole.data)


# --- Images ------------------------------------------------------------------

def png_chunk(kind, data):
    import zlib
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def bomb_png(width, height):
    """A valid PNG signature and header announcing width x height, with a
    small compressed stream: a reader that trusts it allocates gigabytes."""
    import zlib
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\0" * 65536, 9)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) +
            png_chunk(b"IDAT", rows) + png_chunk(b"IEND", b""))


def text_file(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main(directory):
    os.makedirs(directory, exist_ok=True)
    passage = text_file(directory, "passage.txt",
                        "Minutes of the meeting.\n\n" + PASSAGE + "\n")
    zh = text_file(directory, "passage-zh.txt", PASSAGE_ZH + "\n")
    jobs = []
    for fmt in ("doc", "rtf", "xls", "ppt", "epub"):
        jobs.append("%s\t%s\t%s\n" % (fmt, passage,
                                      os.path.join(directory, "passage." + fmt)))
    jobs.append("doc\t%s\t%s\n" % (zh, os.path.join(directory, "passage-zh.doc")))
    # Long enough that the WordDocument stream is in the regular FAT.
    long_text = text_file(directory, "long.txt",
                          "\n\n".join("Section %d. %s" % (i, PASSAGE)
                                        for i in range(60)) + "\n")
    jobs.append("doc\t%s\t%s\n" % (long_text, os.path.join(directory, "long.doc")))
    jobs.append("png\t%s\t%s\n" % (passage, os.path.join(directory, "passage.png")))
    jobs.append("png\t%s\t%s\n" % (zh, os.path.join(directory, "passage-zh.png")))
    jobs.append("pdf-scan\t%s\t%s\n" % (passage, os.path.join(directory, "scan.pdf")))
    jobs.append("pdf\t%s\t%s\n" % (passage, os.path.join(directory, "passage.pdf")))
    # Five pages of a scan, the passage on the last: read in parallel.
    pages = text_file(directory, "pages.txt", "Appendix opening.\n" + "".join(
        "Line %d of the appendix.\n" % i for i in range(1, 180)) + PASSAGE + "\n")
    jobs.append("pdf-scan\t%s\t%s\n" % (pages, os.path.join(directory, "pages.pdf")))
    manifest = os.path.join(directory, "manifest.tsv")
    with open(manifest, "w", encoding="utf-8") as f:
        f.writelines(jobs)
    subprocess.run(["/usr/bin/python3",
                    os.path.join(HERE, "..", "..", "..", "corpus", "make_formats.py"),
                    "--batch", manifest], check=True)

    # header.doc: LibreOffice saves a .docx with a header and a footer.
    sys.path.insert(0, HERE)
    import make_fixtures  # noqa: E402
    header_docx = os.path.join(directory, "header-source.docx")
    write(directory, "header-source.docx", make_fixtures.header_docx())
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["soffice", "-env:UserInstallation=file://" + tmp + "/p",
                        "--headless", "--convert-to", "doc:MS Word 97",
                        "--outdir", tmp, header_docx], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=300)
        os.replace(os.path.join(tmp, "header-source.doc"),
                   os.path.join(directory, "header.doc"))

    with open(os.path.join(directory, "passage.doc"), "rb") as f:
        doc = f.read()
    with open(os.path.join(directory, "long.doc"), "rb") as f:
        long_doc = f.read()
    write(directory, "fat-cycle.doc", fat_cycle(long_doc))
    write(directory, "encrypted.doc", encrypted_doc(long_doc))

    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "EncryptionInfo", b"\x04\x00\x04\x00\x40\x00\x00\x00" + b"\0" * 64)
        write(tmp, "EncryptedPackage", os.urandom(4096))
        create_ole(os.path.join(directory, "encrypted-package.docx"), tmp)

    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "msg")

        def forwarded(path):
            write_message(path, "Fwd: numbers", "Forwarded text.\n" + PASSAGE_ZH)

        write_message(root, "Board pack", "Please see the attachment.\r\n",
                      attachments=[("valuation.doc", doc)], embedded=forwarded)
        create_ole(os.path.join(directory, "message.msg"), root)
        body_only = os.path.join(tmp, "body")
        write_message(body_only, "Notes", "Our notes.\r\n" + PASSAGE)
        create_ole(os.path.join(directory, "body.msg"), body_only)

    # A Word document with an embedded .docx (an OLE object's "Package"
    # stream under ObjectPool), in an OLE2 file gsf writes from the
    # LibreOffice .doc's own streams.
    with tempfile.TemporaryDirectory() as tmp:
        for stream in ("WordDocument", "1Table"):
            out = subprocess.run(["gsf", "cat", os.path.join(directory, "passage.doc"),
                                  stream], check=True, stdout=subprocess.PIPE).stdout
            write(tmp, stream, out)
        pool = os.path.join(tmp, "ObjectPool", "_1234567890")
        os.makedirs(pool)
        write(pool, "Package", make_formats.docx_bytes(
            "Embedded sheet: " + PASSAGE_ZH + "\n"))
        create_ole(os.path.join(directory, "embedded.doc"), tmp)
        # The same with ObjectPool storages nested 20 deep.
        deep = os.path.join(tmp, "ObjectPool")
        for _ in range(20):
            deep = os.path.join(deep, "ObjectPool")
        os.makedirs(deep)
        write(deep, "CONTENTS", b"x")
        create_ole(os.path.join(directory, "nested-pools.doc"), tmp)

    rtf_body = ("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Arial;}}"
                "\\f0 Dear board,\\par " + PASSAGE + "\\par}").encode("ascii")
    write(directory, "winmail.dat",
          tnef("Board pack", rtf_body, [("valuation.doc", doc)]))
    write(directory, "many-attachments.dat",
          tnef("Many", b"{\\rtf1 x}", [("a%d.txt" % i, b"x") for i in range(100000)]))

    write(directory, "deep.rtf",
          b"{\\rtf1 " + b"{" * 100000 + b"x" + b"}" * 100000 + b"}")
    gbk = "".join("\\'%02x" % b for b in PASSAGE_ZH.encode("gbk"))
    write(directory, "gbk.rtf",
          ("{\\rtf1\\ansi\\ansicpg936\\deff0{\\fonttbl{\\f0\\fcharset134 SimSun;}}"
           "{\\*\\generator leakhound-test;}\\f0 " + gbk + "\\par}").encode("ascii"))
    write(directory, "bomb-50000.png", bomb_png(50000, 50000))

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/x-leakhound-unknown")
        z.writestr("notes/passage.txt", PASSAGE)
    write(directory, "unknown-mimetype.zip", out.getvalue())

    # Files carrying sensitivity labels, in DIR/labels.
    sys.path.insert(0, HERE)
    import make_label_fixtures  # noqa: E402
    make_label_fixtures.build(directory)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1])
