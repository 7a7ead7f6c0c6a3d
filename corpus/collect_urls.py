#!/usr/bin/python3
"""Collects real URLs from the documentation Debian packages install, for
the URL filter experiments (corpus/url_experiment.sh, docs/seed-000-mlbf.md).

Usage: collect_urls.py OUT COUNT [DIR...]   (default DIRs: /usr/share/doc,
       /usr/share/common-licenses, /usr/share/man; COUNT 0: every real URL,
       none made up)

Every http(s) URL in every file under the DIRs (gzip-compressed ones
decompressed) is taken, trailing punctuation stripped, and the distinct ones
kept. If fewer than COUNT are distinct, the list is expanded to COUNT with
URLs made of a real host and a real path of two different real URLs
(host of URL a + path of URL b, for pairs drawn with a fixed seed), skipping
any URL already in the list. The result is shuffled with a fixed seed, so
that every prefix mixes real and expanded URLs; the first line of the
output file's sidecar OUT.info says how many are real.

With --stream (collect_urls.py --stream OUT LIMIT [DIR...]) it writes
instead every URL occurrence in the order the files are walked (sorted
paths), repeats included, up to LIMIT lines: a real stream with the
repetitions of real text (a project's home page in every changelog entry),
for the windowed duplicate filters of seed 004
(corpus/stream_experiment.sh).

Deterministic: the same installed documentation gives the same file.
"""
import gzip
import os
import random
import re
import sys

URL = re.compile(rb"https?://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+")
TRAILING = b".,;:!?)'\"*"


def urls_of(path):
    try:
        with open(path, "rb") as f:
            data = f.read(8 << 20)
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return
    for m in URL.finditer(data):
        url = m.group(0).rstrip(TRAILING)
        host_end = url.find(b"/", url.find(b"://") + 3)
        host = url[url.find(b"://") + 3:host_end if host_end >= 0 else None]
        if b"." not in host:  # "http://7", templates
            continue
        try:
            yield url.decode("ascii")
        except UnicodeDecodeError:
            continue


def split(url):
    rest = url.split("://", 1)[1]
    slash = rest.find("/")
    return (rest, "") if slash < 0 else (rest[:slash], rest[slash:])


def walk(dirs):
    for d in dirs:
        for root, _, names in sorted(os.walk(d)):
            for name in sorted(names):
                path = os.path.join(root, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                yield from urls_of(path)


def main():
    stream = sys.argv[1] == "--stream"
    args = sys.argv[2:] if stream else sys.argv[1:]
    out, count = args[0], int(args[1])
    dirs = args[2:] or ["/usr/share/doc", "/usr/share/common-licenses",
                        "/usr/share/man"]
    if stream:
        with open(out, "w") as f:
            for written, url in enumerate(walk(dirs)):
                if written == count:
                    break
                f.write(url + "\n")
        return
    seen = set(walk(dirs))
    real = sorted(seen)
    count = count or len(real)
    urls = list(real)
    rng = random.Random(1)
    hosts = sorted({split(u)[0] for u in real})
    paths = sorted({split(u)[1] for u in real if split(u)[1] not in ("", "/")})
    while len(urls) < count:
        url = "https://" + rng.choice(hosts) + rng.choice(paths)
        if url not in seen:
            seen.add(url)
            urls.append(url)
    urls = urls[:count] if len(real) >= count else urls
    rng.shuffle(urls)
    with open(out, "w") as f:
        f.write("\n".join(urls) + "\n")
    with open(out + ".info", "w") as f:
        f.write(f"{min(len(real), count)} real URLs of {len(real)} distinct "
                f"found ({len(hosts)} hosts, {len(paths)} paths); "
                f"{max(0, count - len(real))} made of a real host and a real "
                f"path; {count} in all\n")


if __name__ == "__main__":
    main()
