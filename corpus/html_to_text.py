#!/usr/bin/env python3
"""Renders DocBook HTML pages (the PostgreSQL manual) as plain text for the
evaluation's corpus: the page's text with one line per block element, the
navigation header and footer and any script or style left out. Uses the
standard library's html.parser.

Usage: html_to_text.py OUT_DIR IN.html... (writes OUT_DIR/IN.txt for each)
"""
import html.parser
import os
import re
import sys

BLOCKS = {"p", "div", "br", "tr", "li", "dt", "dd", "pre", "h1", "h2", "h3",
          "h4", "h5", "h6", "table", "blockquote", "hr", "title"}
SKIPPED_TAGS = {"script", "style", "head"}
SKIPPED_CLASSES = {"navheader", "navfooter"}
VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base"}


class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.stack = []  # (tag, skipped) of the open non-void elements
        self.pre = 0

    def skipping(self):
        return any(skipped for _, skipped in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in BLOCKS:
            self.parts.append("\n")
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skipped = tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)
        self.stack.append((tag, skipped))
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == "pre":
                self.pre -= 1
            if open_tag == tag:
                break
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.skipping():
            return
        self.parts.append(data if self.pre else re.sub(r"\s+", " ", data))


def render(source, target):
    with open(source, encoding="utf-8", errors="replace") as f:
        parser = Text()
        parser.feed(f.read())
        parser.close()
    lines = (line.rstrip() for line in "".join(parser.parts).split("\n"))
    text = "\n".join(line for line in lines if line.strip())
    with open(target, "w", encoding="utf-8") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    for page in sys.argv[2:]:
        name = os.path.splitext(os.path.basename(page))[0]
        render(page, os.path.join(sys.argv[1], name + ".txt"))
