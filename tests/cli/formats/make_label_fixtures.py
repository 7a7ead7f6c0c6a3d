#!/usr/bin/python3
"""Builds files carrying Microsoft Purview (MSIP) sensitivity labels, the
way Office writes them, in DIR/labels (docs/labels.md):

  - LibreOffice headless saves flat OpenDocument files whose user-defined
    properties are MSIP_Label_<GUID>_Enabled/_Name/_SiteId/_Method as
    label-custom.docx, .xlsx, .pptx (docProps/custom.xml), label.doc and
    label.xls (the user-defined section of DocumentSummaryInformation)
    and label.odt (meta:user-defined), as Office would write them;
  - the 2022 storage, docMetadata/LabelInfo.xml ([MS-OFFCRYPTO] 2.6.4)
    with its relationship and content type, is added here to those
    LibreOffice packages with the custom properties taken out
    (label-info.docx, .xlsx, .pptx): no Debian program writes it;
  - label.pdf: LibreOffice's PDF of the text, with an XMP packet holding
    pdfx:MSIP_Label_... (as Word's "Save as PDF" of a labelled document)
    and the same keys in its information dictionary, put in with qpdf's
    JSON update;
  - public-copy.docx / confidential-copy.docx: PROTECTED_TEXT labelled
    Public and Confidential (the downgrade test); unlabelled.docx.

  make_label_fixtures.py DIR
"""
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from xml.sax.saxutils import escape

CONFIDENTIAL = "f42aa342-8706-4288-bd11-ebb85995028c"
PUBLIC = "87867195-f2b8-4ac2-b0b6-6bb73cb33afc"
HIGHLY = "3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162"
SITE = "72f988bf-86f1-41af-91ab-2d7cd011db47"

TEXT = ("Quarterly pricing review. The distributor discount for the northern "
        "region rises to eighteen percent from the first of April, and the "
        "floor price of the premium line stays at four hundred and twelve "
        "euros per unit until the board decides otherwise.")
# The text the downgrade tests protect.
PROTECTED_TEXT = (
    "Acquisition terms. The buyer pays one hundred and forty million euros "
    "in cash at closing, retains the management team for three years, and "
    "keeps the Rotterdam plant open until the end of the decade, subject to "
    "the works council's approval and the regulator's clearance.")

OFFICE_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
             'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
             'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
             'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
             'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
             'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
             'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"')


def label_meta(label_id, name):
    if label_id is None:
        return ""
    fields = [("Enabled", "true"), ("Name", name), ("SiteId", SITE),
              ("Method", "Standard")]
    return "".join(
        '<meta:user-defined meta:name="MSIP_Label_%s_%s" '
        'meta:value-type="string">%s</meta:user-defined>' % (label_id, f, v)
        for f, v in fields)


def flat(kind, body, label_id, name):
    mimetype = {"text": "text", "spreadsheet": "spreadsheet",
                "presentation": "presentation"}[kind]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<office:document %s '
            'office:version="1.3" office:mimetype="application/'
            'vnd.oasis.opendocument.%s"><office:meta>%s</office:meta>'
            '<office:body><office:%s>%s</office:%s></office:body>'
            '</office:document>\n' % (OFFICE_NS, mimetype,
                                      label_meta(label_id, name), kind, body,
                                      kind))


def text_body(text):
    return "<text:p>%s</text:p>" % escape(text)


def sheet_body(text):
    cells = "".join('<table:table-row><table:table-cell office:value-type='
                    '"string"><text:p>%s</text:p></table:table-cell>'
                    '</table:table-row>' % escape(s) for s in text.split(". "))
    return '<table:table table:name="Prices">%s</table:table>' % cells


def slide_body(text):
    return ('<draw:page draw:name="p1"><draw:frame svg:x="1cm" svg:y="1cm" '
            'svg:width="20cm" svg:height="10cm"><draw:text-box><text:p>%s'
            '</text:p></draw:text-box></draw:frame></draw:page>' % escape(text))


def convert(sources, target, outdir, profile):
    """LibreOffice saves each of `sources` as `target` in `outdir`."""
    subprocess.run(["soffice", "-env:UserInstallation=file://" + profile,
                    "--headless", "--convert-to", target, "--outdir", outdir]
                   + sources, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)


LABEL_INFO_REL = ("http://schemas.microsoft.com/office/2020/02/relationships/"
                  "classificationlabels")
LABEL_INFO_TYPE = "application/vnd.ms-office.classificationlabels+xml"


def label_info_xml(label_id):
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            '<clbl:labelList xmlns:clbl="http://schemas.microsoft.com/office/'
            '2020/mipLabelMetadata"><clbl:label id="{%s}" enabled="1" '
            'method="Standard" siteId="{%s}" contentBits="0" removed="0" />'
            '</clbl:labelList>' % (label_id, SITE))


def to_label_info(source, target, label_id):
    """`source` (an OOXML package) with its MSIP custom properties taken
    out and the label in docMetadata/LabelInfo.xml instead."""
    with zipfile.ZipFile(source) as zin, \
            zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "docProps/custom.xml":
                continue
            if item.filename == "_rels/.rels":
                text = data.decode("utf-8")
                text = re.sub(r'<Relationship [^>]*custom-properties"[^>]*/>',
                              "", text)
                text = text.replace(
                    "</Relationships>",
                    '<Relationship Id="rIdLabel" Type="%s" '
                    'Target="docMetadata/LabelInfo.xml"/></Relationships>'
                    % LABEL_INFO_REL)
                data = text.encode("utf-8")
            if item.filename == "[Content_Types].xml":
                text = data.decode("utf-8")
                text = re.sub(r'<Override PartName="/docProps/custom.xml"'
                              r'[^>]*/>', "", text)
                text = text.replace(
                    "</Types>", '<Override PartName="/docMetadata/'
                    'LabelInfo.xml" ContentType="%s"/></Types>'
                    % LABEL_INFO_TYPE)
                data = text.encode("utf-8")
            zout.writestr(item, data)
        zout.writestr("docMetadata/LabelInfo.xml", label_info_xml(label_id))


def xmp_packet(label_id, name):
    props = "".join("<pdfx:MSIP_Label_%s_%s>%s</pdfx:MSIP_Label_%s_%s>"
                    % (label_id, f, v, label_id, f)
                    for f, v in [("Enabled", "true"), ("Name", name),
                                 ("SiteId", SITE), ("Method", "Standard")])
    return ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
            '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://'
            'www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
            'rdf:about="" xmlns:pdfx="http://ns.adobe.com/pdfx/1.3/">%s'
            '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
            % props)


def label_pdf(source, target, label_id, name, tmp):
    """`source` with the label in its XMP and information dictionary,
    written with qpdf's JSON update (qpdf --update-from-json)."""
    def objects(*keys):
        args = ["qpdf", "--json-output", "--json-key=qpdf"]
        args += ["--json-object=" + k for k in keys]
        out = subprocess.run(args + [source], check=True,
                             stdout=subprocess.PIPE).stdout
        return json.loads(out)["qpdf"]
    header, found = objects("trailer")
    trailer = found["trailer"]["value"]
    root, info = trailer["/Root"], trailer["/Info"]
    header2, dicts = objects(root, info)
    catalog = dicts["obj:" + root]["value"]
    information = dicts["obj:" + info]["value"]
    metadata = "%d 0 R" % (header["maxobjectid"] + 1)
    catalog["/Metadata"] = metadata
    for field, value in [("Enabled", "true"), ("Name", name),
                         ("SiteId", SITE), ("Method", "Standard")]:
        information["/MSIP_Label_%s_%s" % (label_id, field)] = "u:" + value
    xmp = xmp_packet(label_id, name).encode("utf-8")
    update = {"qpdf": [header, {
        "obj:" + root: {"value": catalog},
        "obj:" + info: {"value": information},
        "obj:" + metadata: {"stream": {
            "dict": {"/Type": "/Metadata", "/Subtype": "/XML"},
            "data": base64.b64encode(xmp).decode("ascii")}}}]}
    path = os.path.join(tmp, "update.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(update, f)
    subprocess.run(["qpdf", "--update-from-json=" + path, source, target],
                   check=True)


def build(directory):
    out = os.path.join(directory, "labels")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "profile")
        src = os.path.join(tmp, "src")
        os.makedirs(src)

        def source(name, kind, body, label_id, label_name):
            path = os.path.join(src, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(flat(kind, body, label_id, label_name))
            return path

        text = source("label.fodt", "text", text_body(TEXT), CONFIDENTIAL,
                      "Confidential")
        sheet = source("label.fods", "spreadsheet", sheet_body(TEXT),
                       HIGHLY, "Highly Confidential")
        slides = source("label.fodp", "presentation", slide_body(TEXT),
                        CONFIDENTIAL, "Confidential")
        copies = [source("public-copy.fodt", "text", text_body(PROTECTED_TEXT),
                         PUBLIC, "Public"),
                  source("confidential-copy.fodt", "text",
                         text_body(PROTECTED_TEXT), CONFIDENTIAL,
                         "Confidential"),
                  source("unlabelled.fodt", "text", text_body(TEXT), None,
                         None),
                  source("protected.fodt", "text", text_body(PROTECTED_TEXT),
                         CONFIDENTIAL, "Confidential")]
        convert([text] + copies, "docx", src, profile)
        convert([sheet], "xlsx", src, profile)
        convert([slides], "pptx", src, profile)
        convert([text], "doc:MS Word 97", src, profile)
        convert([sheet], "xls:MS Excel 97", src, profile)
        convert([text], "odt", src, profile)
        convert([text], "pdf", src, profile)
        for ext, label_id in (("docx", CONFIDENTIAL), ("xlsx", HIGHLY),
                              ("pptx", CONFIDENTIAL)):
            os.replace(os.path.join(src, "label." + ext),
                       os.path.join(out, "label-custom." + ext))
            to_label_info(os.path.join(out, "label-custom." + ext),
                          os.path.join(out, "label-info." + ext), label_id)
        for name in ("label.doc", "label.xls", "label.odt", "public-copy.docx",
                     "confidential-copy.docx", "unlabelled.docx",
                     "protected.docx"):
            os.replace(os.path.join(src, name), os.path.join(out, name))
        label_pdf(os.path.join(src, "label.pdf"),
                  os.path.join(out, "label.pdf"), CONFIDENTIAL, "Confidential",
                  tmp)


if __name__ == "__main__":
    build(sys.argv[1])
