#!/usr/bin/python3
"""The web channel under load (docs/web-gateway.md, "Measured: load"):
uploads through a real Squid, with the leakhound ICAP service (c-icap with
srv_leakhound.so) and without it (a Squid port that adapts nothing), to
an origin that checks every body's SHA-256. Both in one run, on one
machine:

1. saturation: --connections clients send uploads back to back for
   --saturate-seconds, through the plain port, then through the service;
   the uploads completed per second are each path's throughput;
2. latency at a fixed rate (--rate, default half the service's
   saturation), open loop: a request is due every 1/rate seconds whatever
   the answers, and its latency counts from when it was due; the plain
   port and the service for --latency-seconds each, alternating in
   --rounds rounds; p50, p99 and max of each, the added latency the
   difference of the two;
3. with --soak-seconds, the service at the same rate that long, the
   c-icap child's resident memory read every 10 s, and the slope of a
   least-squares line through the samples after the first fifth (MB/h).

Every upload is a multipart form of one text file of --size bytes of
clean prose (the sample corpus' clean mail repeated, a counter in front),
so the service reads and scans all of it and lets it pass. The origin (a
process of its own, asyncio) records each upload's id and the SHA-256 of
what it received; an upload lost (answered 200 but never received),
altered (another SHA-256 than the one sent) or failed fails the run.

  web_load.py LEAKHOUND MODULE SOURCE_DIR WORK_DIR [--size 102400]
      [--connections 16] [--saturate-seconds 20] [--rate R]
      [--latency-seconds 30] [--rounds 2] [--soak-seconds 0]
      [--threads 8] [--json OUT]

Needs c-icap and squid-openssl. Stops every process it started, by its
pid.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli", "icap"))
from milter_load import slope_per_hour  # noqa: E402
from private_proxy import (PrivateCicap, PrivateSquid, free_port,  # noqa: E402
                           listening, stop_process, wait_for)

HOST = "upload.example.test"
BOUNDARY = "leakhoundload"
AUTH = "Basic " + base64.b64encode(b"alice:wonderland").decode()


def form_body(filler, size, n):
    """A multipart form of one text file of `size` bytes, unique by `n`
    (`filler`: at least `size` bytes of prose)."""
    text = ("upload %d\n" % n).encode()
    text = text + filler[:size - len(text)]
    return (("--%s\r\nContent-Disposition: form-data; name=\"file\"; "
             "filename=\"notes-%d.txt\"\r\nContent-Type: text/plain\r\n\r\n"
             % (BOUNDARY, n)).encode() + text +
            ("\r\n--%s--\r\n" % BOUNDARY).encode())


# --- the origin (its own process) ------------------------------------------

async def origin_main(port):
    received = {}  # id -> the SHA-256 of the body received

    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(
                    int(headers.get("content-length", "0")))
                if path == "/stats":
                    reply = json.dumps(received).encode()
                else:
                    received[int(path.rsplit("/", 1)[1])] = \
                        hashlib.sha256(body).hexdigest()
                    reply = b"ok"
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(reply) + reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port,
                                        limit=1 << 20)
    async with server:
        await server.serve_forever()


# --- the client ------------------------------------------------------------

class Client:
    def __init__(self, proxy_port, origin_port, bodies):
        self.proxy_port = proxy_port
        self.origin_port = origin_port
        self.bodies = bodies  # n -> bytes

    async def connect(self):
        return await asyncio.open_connection("127.0.0.1", self.proxy_port,
                                             limit=1 << 20)

    async def send(self, conn, n):
        """Sends upload n on `conn`; returns the status (0 on a broken
        connection, which is then closed)."""
        reader, writer = conn
        body = self.bodies(n)
        writer.write(
            ("POST http://%s:%d/u/%d HTTP/1.1\r\nHost: %s:%d\r\n"
             "Proxy-Authorization: %s\r\n"
             "Content-Type: multipart/form-data; boundary=%s\r\n"
             "Content-Length: %d\r\n\r\n"
             % (HOST, self.origin_port, n, HOST, self.origin_port, AUTH,
                BOUNDARY, len(body))).encode() + body)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        await reader.readexactly(length)
        return status


async def saturate(client, connections, seconds, first_id):
    """Closed loop: `connections` clients back to back. Returns (done,
    failed, ids sent and answered 200)."""
    end = time.monotonic() + seconds
    next_id = [first_id]
    ok_ids, failed = [], [0]

    async def one():
        conn = await client.connect()
        while time.monotonic() < end:
            n = next_id[0]
            next_id[0] += 1
            try:
                status = await client.send(conn, n)
            except (asyncio.IncompleteReadError, ConnectionError):
                status = 0
                conn = await client.connect()
            if status == 200:
                ok_ids.append(n)
            else:
                failed[0] += 1
        conn[1].close()

    start = time.monotonic()
    await asyncio.gather(*(one() for _ in range(connections)))
    elapsed = time.monotonic() - start
    return len(ok_ids) / elapsed, failed[0], ok_ids, next_id[0]


async def fixed_rate(client, rate, seconds, first_id, pool=64,
                     on_tick=None):
    """Open loop: one upload due every 1/rate s on a pool of keep-alive
    connections. Returns (latencies in ms, failed, ids answered 200)."""
    due = []
    queue = asyncio.Queue()
    latencies, ok_ids, failed = [], [], [0]
    start = time.monotonic()
    count = int(rate * seconds)

    async def worker():
        conn = await client.connect()
        while True:
            item = await queue.get()
            if item is None:
                break
            n, when = item
            try:
                status = await client.send(conn, n)
            except (asyncio.IncompleteReadError, ConnectionError):
                status = 0
                conn = await client.connect()
            latencies.append((time.monotonic() - when) * 1000)
            if status == 200:
                ok_ids.append(n)
            else:
                failed[0] += 1
        conn[1].close()

    workers = [asyncio.create_task(worker()) for _ in range(pool)]
    last_tick = start
    for i in range(count):
        when = start + i / rate
        delay = when - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait((first_id + i, when))
        if on_tick is not None and time.monotonic() - last_tick >= 10:
            last_tick = time.monotonic()
            on_tick()
    for _ in workers:
        queue.put_nowait(None)
    await asyncio.gather(*workers)
    due.clear()
    return latencies, failed[0], ok_ids, first_id + count


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("module")
    ap.add_argument("source")
    ap.add_argument("work")
    ap.add_argument("--size", type=int, default=102400)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--saturate-seconds", type=float, default=20)
    ap.add_argument("--rate", type=float)
    ap.add_argument("--latency-seconds", type=float, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--soak-seconds", type=float, default=0)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--json")
    ap.add_argument("--origin", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.origin:
        asyncio.run(origin_main(a.origin))
        return 0

    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    os.chmod(a.work, 0o755)
    index = os.path.join(a.work, "index")
    subprocess.run([a.leakhound, "init", "--index", index], check=True,
                   capture_output=True)
    subprocess.run([a.leakhound, "add", "--index", index,
                    os.path.join(a.source, "corpus/sample/protected")],
                   check=True, capture_output=True)
    with open(os.path.join(a.source,
                           "corpus/sample/outbound/support-reply-clean.txt"),
              "rb") as f:
        prose = f.read()
    filler = prose * (a.size // len(prose) + 1)
    expected = {}  # id -> the SHA-256 of the body sent

    def bodies(n):
        body = form_body(filler, a.size, n)
        expected[n] = hashlib.sha256(body).hexdigest()
        return body

    origin_port = free_port()
    origin = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                               "x", "x", "x", "x", "--origin",
                               str(origin_port)])
    icap = squid = None
    result = {"size": a.size, "connections": a.connections}
    try:
        wait_for(lambda: listening(origin_port), "the origin")
        icap = PrivateCicap(a.work, os.path.abspath(a.module), index,
                            "leakhound.Incidents off", threads=a.threads)
        icap.start()
        squid = PrivateSquid(a.work, icap.port, [HOST],
                             {"alice": "wonderland"})
        squid.start()
        child = icap.child_pids()[0]
        plain = Client(squid.plain_port, origin_port, bodies)
        service = Client(squid.port, origin_port, bodies)
        ok_ids, failed = [], 0
        next_id = 0

        async def run():
            nonlocal next_id, failed
            # Warm-up: the first connections, the auth helper, the index.
            _, f, ids, next_id = await saturate(service, 4, 2, next_id)
            for name, c in (("plain", plain), ("service", service)):
                rate, f, ids, next_id = await saturate(
                    c, a.connections, a.saturate_seconds, next_id)
                result["saturation_" + name] = round(rate, 1)
                failed += f
                ok_ids.extend(ids)
                print("saturation %s: %.1f uploads/s (%d failed)"
                      % (name, rate, f), flush=True)
            rate = a.rate or result["saturation_service"] / 2
            result["rate"] = round(rate, 1)
            lat = {"plain": [], "service": []}
            for _ in range(a.rounds):
                for name, c in (("plain", plain), ("service", service)):
                    ms, f, ids, next_id = await fixed_rate(
                        c, rate, a.latency_seconds, next_id)
                    lat[name] += ms
                    failed += f
                    ok_ids.extend(ids)
            for name, ms in lat.items():
                result["latency_" + name] = {
                    "p50": round(percentile(ms, 50), 2),
                    "p99": round(percentile(ms, 99), 2),
                    "max": round(max(ms), 2), "n": len(ms)}
            result["added_p99_ms"] = round(
                result["latency_service"]["p99"] -
                result["latency_plain"]["p99"], 2)
            print("at %.1f/s: plain p50 %.2f p99 %.2f ms; service p50 %.2f "
                  "p99 %.2f ms; added p99 %.2f ms" % (
                      rate, result["latency_plain"]["p50"],
                      result["latency_plain"]["p99"],
                      result["latency_service"]["p50"],
                      result["latency_service"]["p99"],
                      result["added_p99_ms"]), flush=True)
            if a.soak_seconds > 0:
                samples = []
                t0 = time.monotonic()
                tick = lambda: samples.append(
                    (time.monotonic() - t0, rss_mb(child)))
                tick()
                ms, f, ids, next_id = await fixed_rate(
                    service, rate, a.soak_seconds, next_id, on_tick=tick)
                tick()
                failed += f
                ok_ids.extend(ids)
                result["soak"] = {
                    "seconds": a.soak_seconds,
                    "rss_first_mb": round(samples[0][1], 1),
                    "rss_last_mb": round(samples[-1][1], 1),
                    # After the first fifth (warm-up).
                    "slope_mb_per_hour": round(slope_per_hour(
                        samples[len(samples) // 5:]), 2),
                    "p99_ms": round(percentile(ms, 99), 2),
                    "samples": [(round(t), round(m, 1)) for t, m in samples]}
                print("soak: RSS %.1f -> %.1f MB, slope %.2f MB/h after "
                      "warm-up, p99 %.2f ms" % (
                          samples[0][1], samples[-1][1],
                          result["soak"]["slope_mb_per_hour"],
                          result["soak"]["p99_ms"]), flush=True)

        asyncio.run(run())
        import urllib.request
        stats = json.load(urllib.request.urlopen(
            "http://127.0.0.1:%d/stats" % origin_port, timeout=60))
        received = {int(n): d for n, d in stats.items()}
        lost = [n for n in ok_ids if n not in received]
        altered = [n for n, d in received.items() if expected.get(n) != d]
        result.update({"answered_200": len(ok_ids), "failed": failed,
                       "lost": len(lost), "altered": len(altered),
                       "child_rss_mb": round(rss_mb(child), 1)})
        print("uploads answered 200: %d, failed %d, lost %d, altered %d"
              % (len(ok_ids), failed, len(lost), len(altered)))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(result, f, indent=1)
        return 0 if not lost and not altered and not failed else 1
    finally:
        for part in (squid, icap):
            if part is not None:
                part.stop()
        stop_process(origin)


if __name__ == "__main__":
    sys.exit(main())
