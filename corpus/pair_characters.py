#!/usr/bin/env python3
"""Pairs the characters of a text (the files named as arguments, read in
order) with those of its transformed copy (standard input, the same number
of code points): prints "character TAB transformed" once for each character
that the transform changed, on its first change.

Usage: cat FILES | uconv -x TRANSFORM | pair_characters.py FILES > OUT.tsv
"""
import sys


def main():
    original = "".join(open(f, encoding="utf-8").read() for f in sys.argv[1:])
    changed = sys.stdin.read()
    if len(original) != len(changed):
        sys.exit("pair_characters: the transform changed the text's length")
    pairs = {}
    for a, b in zip(original, changed):
        if a != b and a not in pairs:
            pairs[a] = b
    for a in sorted(pairs):
        print(f"{a}\t{pairs[a]}")


if __name__ == "__main__":
    main()
