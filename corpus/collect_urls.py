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


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    dirs = sys.argv[3:] or ["/usr/share/doc", "/usr/share/common-licenses",
                            "/usr/share/man"]
    seen = set()
    for d in dirs:
        for root, _, names in sorted(os.walk(d)):
            for name in sorted(names):
                path = os.path.join(root, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                seen.update(urls_of(path))
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
