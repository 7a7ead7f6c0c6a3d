#!/usr/bin/python3
"""Builds the inputs of corpus/throughput.sh from a prepared corpus directory.

Usage: throughput_sets.py CORPORA OUT

  OUT/protected/  the Linux documentation files of even rank (file name order)
  OUT/quoting/    the files of odd rank, each with one passage of 80 words
                  from a protected file pasted at a paragraph break near its
                  middle (the protected file: rank * 7 modulo the protected
                  count); files under 2,000 bytes are left out
  OUT/clean/      the Python documentation (no protected text)
  OUT/big-clean.txt, OUT/big-quoting.txt: each set concatenated

Deterministic: the same corpus gives the same bytes.
"""
import os
import shutil
import sys

PASSAGE_WORDS = 80


def passage(text):
    words = text.split()
    start = max(0, len(words) // 2 - PASSAGE_WORDS // 2)
    return " ".join(words[start:start + PASSAGE_WORDS])


def main():
    corpora, out = sys.argv[1], sys.argv[2]
    kernel = os.path.join(corpora, "kernel")
    names = sorted(n for n in os.listdir(kernel) if n.endswith(".txt"))
    protected, hosts = names[0::2], names[1::2]
    for sub in ("protected", "quoting"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    texts = {}
    for name in names:
        with open(os.path.join(kernel, name), "rb") as f:
            texts[name] = f.read().decode("utf-8", "replace")
    for name in protected:
        shutil.copyfile(os.path.join(kernel, name),
                        os.path.join(out, "protected", name))
    with open(os.path.join(out, "big-quoting.txt"), "w") as big:
        for rank, name in enumerate(hosts):
            host = texts[name]
            if len(host.encode()) < 2000:
                continue
            source = protected[(rank * 7) % len(protected)]
            quote = passage(texts[source])
            cut = host.find("\n\n", len(host) // 2)
            cut = len(host) // 2 if cut < 0 else cut
            mixed = host[:cut] + "\n\n" + quote + "\n\n" + host[cut:]
            with open(os.path.join(out, "quoting", name), "w") as f:
                f.write(mixed)
            big.write(mixed)
    shutil.copytree(os.path.join(corpora, "python"),
                    os.path.join(out, "clean"))
    with open(os.path.join(out, "big-clean.txt"), "wb") as big:
        for name in sorted(os.listdir(os.path.join(out, "clean"))):
            with open(os.path.join(out, "clean", name), "rb") as f:
                big.write(f.read())


if __name__ == "__main__":
    main()
