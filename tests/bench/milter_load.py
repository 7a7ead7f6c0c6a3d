#!/usr/bin/python3
"""Load benchmark of the mail gateway (docs/mail-gateway.md, "Measured"):
concurrent SMTP sessions send messages of mixed sizes, some quoting
protected documents, through a private Postfix instance (loopback only) to
`leakhound milter`, against an index of many protected documents.

  milter_load.py LEAKHOUND EVAL_CORPUS WORK_DIR [--documents 10000]
                 [--messages 5000] [--sessions 100] [--leak-share 0.1]
                 [--image-share 0.05] [--baseline] [--compare NAME=LEAKHOUND]
                 [--rounds 3] [--perf]

EVAL_CORPUS is what corpus/prepare_corpora.sh prepared. Protected
documents: the Python documentation and Chinese manual pages cut into
--documents pieces of about equal size (at paragraph ends). Clean message
bodies: nodes of the GNU manuals (never protected), repeated to sizes of
2, 10, 50 and 100 KB; a leaking message has a 60-word passage of a random
protected document inserted; with --image-share, that share of the
messages also carries a PNG attachment (one of 8 pages of GNU manual
text rendered at 150 dpi by corpus/make_formats.py png), read by OCR.
Checks: no message lost (each one delivered
or refused), no leak delivered, no clean message refused. Reports the
throughput, the milter's added latency (its `ms`, from the end of the
message to the verdict) per size, and the daemon's resident memory over
the run. Messages judged wrongly are kept as WORK_DIR/wrong-N.eml.

Against a ceiling (docs/mail-gateway.md, "Measured: against Postfix's own
pace"): --baseline also runs the messages with tests/bench/accept_milter.c
(compiled here with cc), an accept-all libmilter filter, and --compare
NAME=LEAKHOUND with other builds (each with its own index of the same
documents); --rounds N alternates them N times and prints each one's
throughput as a share of the first, with the CPU per message of the
filter (/proc/PID/stat) and of the whole machine (/proc/stat), and per
size from the milter's cpu_ms. --perf records `perf record` of the
daemon (DWARF stacks) and of the whole machine during each leakhound
round: perf-filter.data and perf-machine.data in the round's folder.

Soak mode: with --minutes M the sessions keep sending the messages over
and over for M minutes, at --rate messages per second in all (paced; 0:
as fast as Postfix takes them); delivered messages are counted and
deleted as they arrive, so the disk does not fill. Every 5 s the daemon's
anonymous and file-backed resident memory and its open file descriptors
are sampled; --series FILE writes them as CSV and --svg FILE plots the
anonymous memory. The slope of anonymous memory after --warmup-minutes is
reported in MB per hour (least squares).
Needs root (Postfix). Stops every process it started.
"""
import argparse
import glob
import json
import os
import random
import shutil
import signal
import smtplib
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli", "milter"))
from private_postfix import (PrivatePostfix, free_port, read,  # noqa: E402
                             start_listener, start_milter, stop_process,
                             wait_for)

SIZES = [2_000, 10_000, 50_000, 100_000]


def pieces(texts, count):
    """Cuts the texts into at least `count` distinct pieces of about equal
    size, at blank lines where possible."""
    total = sum(len(t) for t in texts)
    target = max(200, total * 3 // (count * 4))
    out = []
    for t in texts:
        paragraphs = t.split("\n\n")
        current = ""
        for p in paragraphs:
            current += p + "\n\n"
            if len(current) >= target:
                out.append(current)
                current = ""
        if len(current) > target // 4:
            out.append(current)
    distinct = list(dict.fromkeys(out))  # the same text twice is one document
    return distinct[:count]


def open_fds(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return 0


def slope_per_hour(points):
    """Least-squares slope of (seconds, value) points, per hour."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    cov = sum((t - mx) * (v - my) for t, v in points)
    return cov / var * 3600 if var else 0.0


def write_svg(path, series, title):
    """A line plot of (minutes, MB) points, plain SVG."""
    w, h, pad = 720, 360, 50
    xs = [m for m, _ in series] or [0]
    ys = [v for _, v in series] or [0]
    x1, y1 = max(xs) or 1, max(ys) * 1.1 or 1
    pts = " ".join("%.1f,%.1f" % (pad + m / x1 * (w - 2 * pad),
                                   h - pad - v / y1 * (h - 2 * pad))
                   for m, v in series)
    ticks = []
    for k in range(6):
        v = y1 * k / 5
        y = h - pad - v / y1 * (h - 2 * pad)
        ticks.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                     '<text x="%d" y="%.1f" font-size="11" text-anchor="end">%.0f'
                     '</text>' % (pad, y, w - pad, y, pad - 4, y + 4, v))
        m = x1 * k / 5
        x = pad + m / x1 * (w - 2 * pad)
        ticks.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">'
                     '%.0f</text>' % (x, h - pad + 16, m))
    with open(path, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">'
                '<rect width="100%%" height="100%%" fill="white"/>%s'
                '<polyline fill="none" stroke="#c03" stroke-width="1.5" '
                'points="%s"/><text x="%d" y="20" font-size="13">%s</text>'
                '<text x="%d" y="%d" font-size="11" text-anchor="middle">'
                'minutes</text><text x="12" y="%d" font-size="11" '
                'transform="rotate(-90 12 %d)">MB</text></svg>\n'
                % (w, h, "".join(ticks), pts, pad, title, w // 2, h - 8,
                   h // 2, h // 2))


def rss_kb(pid):
    """(anonymous, file-backed) resident KB: the index's table files are
    read through mmap, so their pages count as file-backed residents."""
    anon = mapped = 0
    try:
        for line in read("/proc/%d/status" % pid).splitlines():
            if line.startswith("RssAnon:"):
                anon = int(line.split()[1])
            elif line.startswith("RssFile:"):
                mapped = int(line.split()[1])
    except OSError:
        pass
    return anon, mapped


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    """User + system clock ticks the process has used (all its threads)."""
    fields = read("/proc/%d/stat" % pid).rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def machine_ticks():
    """(busy, total) clock ticks of all cores since boot (/proc/stat)."""
    cpu = [int(v) for v in read("/proc/stat").splitlines()[0].split()[1:]]
    idle = cpu[3] + cpu[4]  # idle, iowait
    return sum(cpu[:8]) - idle, sum(cpu[:8])


def start_perf(args, filt, pid, work):
    """With --perf, `perf record -g` of the filter and of the whole machine
    while the messages are sent (the gateway's rounds only)."""
    if not args.perf or not filt.judges:
        return []
    out = []
    # The filter's stacks unwound from DWARF data: Debian's libraries and a
    # release build keep no frame pointers.
    for what, target in (("filter", ["--call-graph", "dwarf", "-p", str(pid)]),
                         ("machine", ["-g", "-a"])):
        log = open(os.path.join(work, "perf-%s.log" % what), "w")
        out.append(subprocess.Popen(
            ["perf", "record", "-F", "499", "-o",
             os.path.join(work, "perf-%s.data" % what), *target],
            stdout=log, stderr=log))
        log.close()
    time.sleep(1)  # attached before the first message
    return out


class Gateway:
    """`leakhound milter` of one build, on the run's index."""
    judges, metrics = True, True

    def __init__(self, name, leakhound, index, args):
        self.name, self.leakhound, self.index, self.args = name, leakhound, index, args
        usage = subprocess.run([leakhound, "milter", "--help"], text=True,
                               capture_output=True)
        self.metrics = "--metrics" in usage.stdout + usage.stderr  # old builds

    def start(self, port, log, metrics_port):
        metrics = ["--metrics", "127.0.0.1:%d" % metrics_port] if self.metrics else []
        return start_milter(self.leakhound, self.index, port, log,
                            "--reload-seconds", "3600", *metrics,
                            *self.args.milter_flags.split())


class Baseline:
    """tests/bench/accept_milter.c: receives each message and accepts it."""
    name, judges, metrics = "accept-all", False, False

    def __init__(self, work):
        self.program = os.path.join(work, "accept_milter")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "accept_milter.c")
        subprocess.run(["cc", "-O2", "-o", self.program, source, "-lmilter"],
                       check=True)

    def start(self, port, log, metrics_port):
        return start_listener([self.program, "inet:%d@127.0.0.1" % port],
                              port, log, "accept_milter")


def print_comparison(filters, summaries):
    """Throughput of each filter over the rounds, as a share of the first
    (the accept-all baseline with --baseline), and CPU per message."""
    base = statistics.median(s["throughput"] for s in summaries
                             if s["name"] == filters[0].name)
    print("\n| filter | messages/s, each round | median | share of %s | "
          "CPU-ms per message: filter / machine (medians) |\n"
          "|---|---|---:|---:|---:|" % filters[0].name)
    for f in filters:
        mine = [s for s in summaries if s["name"] == f.name]
        median = statistics.median(s["throughput"] for s in mine)
        print("| %s | %s | %.0f | %.1f %% | %.2f / %.2f |" % (
            f.name, ", ".join("%.0f" % s["throughput"] for s in mine), median,
            100 * median / base,
            statistics.median(s["filter_cpu_ms"] for s in mine),
            statistics.median(s["machine_cpu_ms"] for s in mine)))
    for f in filters:
        mine = [s for s in summaries if s["name"] == f.name and s["cpu"]]
        if mine:
            print("| %s: CPU of the verdict per message by size, mean | %s |" % (
                f.name, "; ".join("%d KB %.2f ms" % (size // 1000, statistics.median(
                    s["cpu"][size] for s in mine)) for size in SIZES
                    if all(size in s["cpu"] for s in mine))))


def report_soak(args, memory, start, seconds, sent, wrong, accepted, delivered):
    samples = [(t - start, kb, fds) for t, kb, fds in memory if kb[0] > 0]
    if args.series:
        with open(args.series, "w") as f:
            f.write("seconds,anon_kb,file_kb,fds\n")
            for t, kb, fds in samples:
                f.write("%.1f,%d,%d,%d\n" % (t, kb[0], kb[1], fds))
    if args.svg:
        write_svg(args.svg, [(t / 60, kb[0] / 1024) for t, kb, _ in samples],
                  "leakhound milter: anonymous resident memory (MB) over %.0f "
                  "minutes at %g messages/s" % (seconds / 60, args.rate))
    warm = [(t, kb[0] / 1024) for t, kb, _ in samples
            if t >= args.warmup_minutes * 60]
    fds = [f for t, _, f in samples if t >= args.warmup_minutes * 60]
    print("\n| measure (soak) | value |\n|---|---:|")
    print("| duration, messages sent, rate | %.1f min, %d, %.1f messages/s |"
          % (seconds / 60, sent, sent / seconds))
    print("| replies other than `leakhound scan`'s verdict (or not 250/550) "
          "| %d |" % wrong)
    print("| accepted (250) / delivered / lost | %d / %d / %d |"
          % (accepted, delivered, accepted - delivered))
    print("| anonymous memory after %g min warm-up: first / last / max "
          "| %.1f / %.1f / %.1f MB |" % (
              args.warmup_minutes, warm[0][1] if warm else 0,
              warm[-1][1] if warm else 0, max(v for _, v in warm) if warm else 0))
    print("| anonymous memory slope after warm-up (least squares) "
          "| %.2f MB per hour |" % slope_per_hour(warm))
    print("| open file descriptors after warm-up: min / max | %d / %d |"
          % (min(fds or [0]), max(fds or [0])))
    return wrong == 0 and accepted == delivered


def print_latency(all_ms, all_wait, leak_ms, leak_rest, by_size, scan_by_size,
                  cpu_by_size, log, q):
    """The milter's own timing per message (from its log) as table rows."""
    print("| added latency, all messages: median / p99 | %.2f / %.2f ms |"
          % (statistics.median(all_ms), q(all_ms, 0.99)))
    print("| of which waiting for a scanning slot: median / p99 | %.2f / %.2f ms |"
          % (statistics.median(all_wait), q(all_wait, 0.99)))
    for line in read(log).splitlines():
        if "incidents: " in line and " recorded, " in line:
            print("| %s |" % line.split("milter: ", 1)[-1].replace("incidents: ",
                                                                   "incidents | "))
    if leak_ms:
        print("| leaking messages: added latency median / p99 | %.2f / %.2f ms |"
              % (statistics.median(leak_ms), q(leak_ms, 0.99)))
        print("| leaking messages: added latency less scan and wait, median / "
              "p99 / max | %.3f / %.3f / %.3f ms |"
              % (statistics.median(leak_rest), q(leak_rest, 0.99), max(leak_rest)))
    for s in SIZES:
        print("| %d KB messages: added latency median / p99; extraction + scan "
              "alone median / p99; CPU of the verdict, mean | %.2f / %.2f ms; "
              "%.2f / %.2f ms; %.2f ms |"
              % (s // 1000, statistics.median(by_size[s]), q(by_size[s], 0.99),
                 statistics.median(scan_by_size[s]), q(scan_by_size[s], 0.99),
                 statistics.mean(cpu_by_size[s] or [0])))


def run_round(args, filt, index, messages, work):
    """One run of the messages through a private Postfix in `work` with the
    filter `filt`; prints its table and returns (ok, summary)."""
    os.makedirs(work, exist_ok=True)
    milter_port = free_port()
    metrics_port = free_port()
    log = os.path.join(work, "milter.log")
    milter = filt.start(milter_port, log, metrics_port)
    scrapes = []  # (monotonic time, {(verdict, action): count})

    def scrape():
        """The daemon's /metrics, parsed with prometheus_client."""
        from prometheus_client.parser import text_string_to_metric_families
        import urllib.request
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % metrics_port,
                                    timeout=30) as r:
            text = r.read().decode()
        counts = {}
        for family in text_string_to_metric_families(text):
            if family.name == "leakhound_milter_messages":
                for s in family.samples:
                    counts[(s.labels["verdict"], s.labels["action"])] = s.value
        scrapes.append((time.monotonic(), counts))
    postfix = PrivatePostfix(work, {"gateway": milter_port})
    results = [None] * len(messages)
    memory = []
    try:
        postfix.start()
        stop_sampling = threading.Event()

        soak = args.minutes > 0
        soak_ok = False
        deleted = [0]

        def sample():
            while not stop_sampling.is_set():
                memory.append((time.monotonic(), rss_kb(milter.pid),
                               open_fds(milter.pid)))
                try:
                    if filt.metrics:
                        scrape()  # Prometheus's view of the run, every sample
                except OSError:
                    pass
                if soak:  # count and delete what was delivered
                    for path in postfix.delivered():
                        try:
                            os.remove(path)
                            deleted[0] += 1
                        except OSError:
                            pass
                stop_sampling.wait(5 if soak else 0.5)
        sampler = threading.Thread(target=sample)
        sampler.start()
        sent_count = [0]
        accepted = [0]
        wrong = [0]  # soak: replies other than the reference verdict
        count_lock = threading.Lock()
        end_at = time.monotonic() + args.minutes * 60

        tempfailed = []  # crash mode: indexes to send again (an MTA's queue)

        def send(conn, i):
            """(code, connection): 250 accepted, 550 refused, 4xx deferred
            (crash mode: the connection is made again after a drop)."""
            try:
                if conn is None:
                    conn = smtplib.SMTP("127.0.0.1", postfix.smtp["gateway"],
                                        timeout=120)
                conn.sendmail("load@leakhound.test", ["inbox@example.test"],
                              messages[i][0])
                return 250, conn
            except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as e:
                conn.rset()
                return e.smtp_code, conn
            except smtplib.SMTPRecipientsRefused as e:
                conn.rset()
                return list(e.recipients.values())[0][0], conn
            except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError,
                    ConnectionError) as e:
                if not args.kills:
                    raise
                return 421, None

        def session(k):
            conn = None
            n = 0
            while True:
                i = (k + n * args.sessions) % len(messages) if soak else \
                    k + n * args.sessions
                if soak and time.monotonic() >= end_at:
                    break
                if not soak and i >= len(messages):
                    break
                if args.rate > 0:  # this session's turn in the pacing
                    due = start + (n * args.sessions + k) / args.rate
                    delay = due - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                n += 1
                try:
                    code, conn = send(conn, i)
                except smtplib.SMTPException as e:
                    results[i] = "error: %s" % e
                    break
                if args.kills and 400 <= code < 500:
                    with count_lock:
                        tempfailed.append(i)
                    if conn is not None:  # a sending MTA tries later, anew
                        try:
                            conn.quit()
                        except (smtplib.SMTPException, OSError):
                            pass
                        conn = None
                    continue
                if soak:
                    with count_lock:
                        sent_count[0] += 1
                        accepted[0] += 1 if code == 250 else 0
                        if (code == 550) != messages[i][1] or code not in (250, 550):
                            wrong[0] += 1
                            results[i] = code
                        elif results[i] is None:
                            results[i] = code
                else:
                    results[i] = code
            if conn is not None:
                try:
                    conn.quit()
                except smtplib.SMTPException:
                    pass

        kill_log = []  # (seconds to serve again) per kill
        stop_killing = threading.Event()

        def killer():
            """SIGKILLs the daemon --kills times, evenly over the expected
            run, and starts it again at once (systemd's Restart=always)."""
            nonlocal milter
            period = len(messages) / args.rate / (args.kills + 1) if args.rate \
                else 4.0
            for _ in range(args.kills):
                if stop_killing.wait(period):
                    return
                milter.kill()
                milter.wait()
                t0 = time.monotonic()
                milter = start_milter(args.leakhound, index, milter_port, log + ".%d"
                                      % len(kill_log), "--reload-seconds", "3600",
                                      *args.milter_flags.split())
                kill_log.append(time.monotonic() - t0)
        killer_thread = threading.Thread(target=killer) if args.kills else None
        start = time.monotonic()
        cpu_start = cpu_ticks(milter.pid), machine_ticks()
        profilers = start_perf(args, filt, milter.pid, work)
        threads = [threading.Thread(target=session, args=(k,))
                   for k in range(args.sessions)]
        for t in threads:
            t.start()
        if killer_thread is not None:
            killer_thread.start()
        for t in threads:
            t.join()
        seconds = time.monotonic() - start
        for p in profilers:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=120)
        if killer_thread is not None:
            stop_killing.set()
            killer_thread.join()
            # The sending MTA's queue flush: every deferred message again,
            # until each has a final reply (the daemon is up now).
            deferred_total = len(tempfailed)
            pending = list(dict.fromkeys(tempfailed))
            for _ in range(5):
                conn, again = None, []
                for i in pending:
                    code, conn = send(conn, i)
                    if 400 <= code < 500:
                        again.append(i)
                    else:
                        results[i] = code
                pending = again
                if not pending:
                    break
                time.sleep(2)
        if not soak:  # every accepted message delivered (another build may
            # judge some messages otherwise: that is reported, not waited for)
            accepted_n = sum(1 for r in results if r == 250)
            wait_for(lambda: len(postfix.delivered()) >= accepted_n, "deliveries",
                     timeout=300)
            cpu_end = cpu_ticks(milter.pid), machine_ticks()
        else:  # every accepted message delivered: the queue drains
            wait_for(lambda: not postfix.queue(), "the queue to drain",
                     timeout=300)
            time.sleep(6)
        stop_sampling.set()
        sampler.join()
        if filt.metrics:
            scrape()  # the last, after the queue drained
        if soak:
            soak_ok = report_soak(args, memory, start, seconds, sent_count[0], wrong[0],
                                  accepted[0], deleted[0] + len(postfix.delivered()))
    finally:
        postfix.stop()
        code = stop_process(milter)
    if args.minutes > 0:
        print("| milter exit code | %d |" % code)
        return code == 0 and soak_ok, None
    delivered = len(postfix.delivered())
    for i, (m, r) in enumerate(zip(messages, results)):
        if (m[1] and r == 250) or (not m[1] and r != 250):
            with open(os.path.join(work, "wrong-%d.eml" % i), "wb") as f:
                f.write(m[0])  # kept for inspection
    leaks_passed = sum(1 for (m, r) in zip(messages, results) if m[1] and r == 250)
    clean_blocked = sum(1 for (m, r) in zip(messages, results) if not m[1] and r != 250)
    lost = sum(1 for r in results if r not in (250, 550))
    # The milter's own timing per message, by size class (bytes= in its log).
    lines = [l for l in read(log).splitlines() if " ms=" in l and "queue_id=" in l]
    by_size = {s: [] for s in SIZES}
    scan_by_size = {s: [] for s in SIZES}
    cpu_by_size = {s: [] for s in SIZES}
    all_ms, all_scan, all_wait = [], [], []
    leak_ms, leak_rest = [], []  # leaks: added latency; less scan and wait
    for line in lines:
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        ms, size = float(fields["ms"]), int(fields["bytes"])
        if fields.get("verdict") == "leak":
            leak_ms.append(ms)
            # What the milter spends on a leak besides waiting and scanning:
            # the action and, with incidents on, building and handing over
            # the record (milter_server.cc takes `ms` after both).
            leak_rest.append(ms - float(fields["scan_ms"]) - float(fields["wait_ms"]))
        all_ms.append(ms)
        all_scan.append(float(fields["scan_ms"]))
        all_wait.append(float(fields["wait_ms"]))
        nearest = min(SIZES, key=lambda s: abs(s - size))
        by_size[nearest].append(ms)
        scan_by_size[nearest].append(float(fields["scan_ms"]))
        if "cpu_ms" in fields:
            cpu_by_size[nearest].append(float(fields["cpu_ms"]))

    def q(values, p):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * p))] if values else 0

    print("\n| measure | value |\n|---|---:|")
    print("| messages sent / sessions | %d / %d |" % (len(messages), args.sessions))
    print("| with a leak | %d |" % sum(1 for m in messages if m[1]))
    print("| wall time, throughput | %.1f s, %.0f messages/s |"
          % (seconds, len(messages) / seconds))
    print("| delivered / refused 550 / other | %d / %d / %d |"
          % (delivered, sum(1 for r in results if r == 550), lost))
    print("| lost messages | %d |" % (len(messages) - delivered -
                                      sum(1 for r in results if r == 550)))
    print("| leaks passed | %d |" % leaks_passed)
    print("| clean messages refused | %d |" % clean_blocked)
    print("| milter verdicts logged | %d |" % len(all_ms))
    if scrapes and not args.kills:
        final = scrapes[-1][1]
        accepted_m = sum(v for (verdict, action), v in final.items() if action == "accept")
        rejected_m = sum(v for (verdict, action), v in final.items() if action == "reject")
        print("| /metrics scraped during the run | %d times |" % len(scrapes))
        print("| /metrics accept / reject against the run's delivered / refused "
              "550 | %d / %d against %d / %d |" % (
                  accepted_m, rejected_m, delivered,
                  sum(1 for r in results if r == 550)))
    filter_cpu = (cpu_end[0] - cpu_start[0]) * 1000 / TICKS / len(messages)
    busy = [b - a for a, b in zip(cpu_start[1], cpu_end[1])]
    machine_cpu = busy[0] * 1000 / TICKS / len(messages)
    print("| CPU per message: the filter (%s) / the whole machine (busy %.0f %% "
          "of %d cores) | %.2f / %.2f ms |" % (
              filt.name, 100 * busy[0] / max(1, busy[1]), os.cpu_count(),
              filter_cpu, machine_cpu))
    summary = {"name": filt.name, "throughput": len(messages) / seconds,
               "filter_cpu_ms": filter_cpu, "machine_cpu_ms": machine_cpu,
               "p99": {s: q(by_size[s], 0.99) for s in SIZES if by_size[s]},
               "cpu": {s: statistics.mean(cpu_by_size[s]) for s in SIZES
                       if cpu_by_size[s]}}
    if all_ms:
        print_latency(all_ms, all_wait, leak_ms, leak_rest, by_size,
                      scan_by_size, cpu_by_size, log, q)
    for name, k in (("anonymous", 0), ("file-backed (mmap of the index)", 1)):
        rss = [kb[k] for _, kb, _ in memory if kb[0] > 0]
        third = max(1, len(rss) // 3)
        print("| milter resident memory, %s: median of the first / last third "
              "of the run, max | %.0f / %.0f MB, %.0f MB |"
              % (name, statistics.median(rss[:third]) / 1024,
                 statistics.median(rss[-third:]) / 1024, max(rss) / 1024))
    if args.kills:
        unjudged = sum(1 for path in glob.glob(os.path.join(
            postfix.dir, "mail/inbox/new/*")) if b"X-Leakhound-Status:" not in
            read(path, "rb").split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0])
        print("| daemon SIGKILLed and restarted | %d times |" % len(kill_log))
        print("| time to serve again after a restart: median / max | %.2f / %.2f s |"
              % (statistics.median(kill_log or [0]), max(kill_log or [0])))
        print("| deferrals (4xx) / distinct messages deferred | %d / %d |"
              % (deferred_total, len(set(tempfailed))))
        print("| deferred messages with the right final reply after the flush "
              "| %d of %d |" % (sum(1 for i in set(tempfailed)
                                 if results[i] == (550 if messages[i][1] else 250)),
                               len(set(tempfailed))))
        print("| delivered without a verdict (no X-Leakhound-Status header) | %d |"
              % unjudged)
        print("| messages still deferred after the flush | %d |" % len(pending))
    print("| milter exit code | %d |" % code)
    ok = lost == 0 and leaks_passed == 0 and clean_blocked == 0 and \
        delivered == sum(1 for m in messages if not m[1])
    if args.kills:
        ok = ok and unjudged == 0 and not pending
    return ok, summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leakhound")
    ap.add_argument("corpus")
    ap.add_argument("work")
    ap.add_argument("--documents", type=int, default=10000)
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--leak-share", type=float, default=0.1)
    ap.add_argument("--image-share", type=float, default=0.0)
    ap.add_argument("--minutes", type=float, default=0,
                    help="soak: keep sending for this long")
    ap.add_argument("--rate", type=float, default=0,
                    help="messages per second in all (0: unpaced)")
    ap.add_argument("--warmup-minutes", type=float, default=10)
    ap.add_argument("--series", help="soak: CSV of memory and descriptors")
    ap.add_argument("--svg", help="soak: plot of anonymous memory")
    ap.add_argument("--milter-flags", default="",
                    help="extra flags for leakhound milter")
    ap.add_argument("--kills", type=int, default=0,
                    help="SIGKILL the daemon this many times during the run "
                         "and restart it; deferred messages are sent again")
    ap.add_argument("--baseline", action="store_true",
                    help="alternate with an accept-all libmilter filter "
                         "(tests/bench/accept_milter.c) and report the share")
    ap.add_argument("--compare", action="append", default=[],
                    metavar="NAME=LEAKHOUND",
                    help="alternate with another build's leakhound too")
    ap.add_argument("--perf", action="store_true",
                    help="perf record -g the gateway's rounds: WORK_DIR/.../"
                         "perf-filter.data and perf-machine.data")
    ap.add_argument("--rounds", type=int, default=3,
                    help="with --baseline or --compare: runs of each filter")
    ap.add_argument("--reuse-index", action="store_true",
                    help="keep WORK_DIR's protected documents and index from "
                         "an earlier run with the same --documents")
    args = ap.parse_args()
    rng = random.Random(1)
    work = os.path.abspath(args.work)
    index = os.path.join(work, "index")
    reuse = args.reuse_index and os.path.isdir(index)
    if reuse:
        for entry in os.listdir(work):
            if entry not in ("index", "protected") and \
                    not entry.startswith("index-"):
                path = os.path.join(work, entry)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    else:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)

    def texts(sub):
        d = os.path.join(args.corpus, sub)
        return [read(os.path.join(d, f)) for f in sorted(os.listdir(d))]

    protected = pieces(texts("python") + texts("zh"), args.documents)
    docs = os.path.join(work, "protected")
    if not reuse:
        os.makedirs(docs)
        for i, p in enumerate(protected):
            with open(os.path.join(docs, "doc%05d.txt" % i), "w") as f:
                f.write(p)
        subprocess.run([args.leakhound, "init", "--index", index], check=True,
                       capture_output=True)
        t0 = time.monotonic()
        add = subprocess.run([args.leakhound, "add", "--index", index, docs],
                             capture_output=True, text=True)
        print("index: %d pieces added in %.0f s (%s)"
              % (len(protected), time.monotonic() - t0,
                 add.stdout.splitlines()[-1]), flush=True)
    stats = subprocess.run([args.leakhound, "stats", "--index", index, "--json"],
                           capture_output=True, text=True, check=True)
    print("index: " + stats.stdout.strip()[:300], flush=True)

    # Clean bodies: GNU manual nodes (Info markup removed) in which
    # `leakhound scan` finds no protected passage. (Some nodes do hold one:
    # the GNU Free Documentation License, for one, is also quoted by a
    # protected manual page.)
    nodes = []
    for t in texts("gnu"):
        for node in t.split("\x1f"):
            node = node.replace("\x00", " ").replace("\x08", " ")
            if len(node) > 500:
                nodes.append(node)
    host_dir = os.path.join(work, "hosts")
    os.makedirs(host_dir, exist_ok=True)
    for i, node in enumerate(nodes):
        with open(os.path.join(host_dir, "h%05d.txt" % i), "w") as f:
            f.write(node)
    verdicts = subprocess.run(
        [args.leakhound, "scan", "--index", index, "--json", host_dir],
        capture_output=True, text=True)
    clean_hosts = set()
    for line in verdicts.stdout.splitlines():
        record = json.loads(line)
        if record["verdict"] == "clean":
            clean_hosts.add(os.path.basename(record["path"]))
    hosts = [n for i, n in enumerate(nodes) if "h%05d.txt" % i in clean_hosts]
    print("hosts: %d of %d GNU manual nodes scan clean" % (len(hosts), len(nodes)),
          flush=True)
    images = []
    if args.image_share > 0:
        image_dir = os.path.join(work, "images")
        os.makedirs(image_dir, exist_ok=True)
        with open(os.path.join(image_dir, "manifest.tsv"), "w") as manifest:
            for k in range(8):
                text = os.path.join(image_dir, "page%d.txt" % k)
                with open(text, "w") as f:
                    f.write(" ".join(hosts[k * 7 % len(hosts)].split()[:350]))
                manifest.write("png\t%s\t%s\n" % (
                    text, os.path.join(image_dir, "page%d.png" % k)))
        subprocess.run(["/usr/bin/python3", os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..", "corpus",
            "make_formats.py"), "--batch", manifest.name], check=True)
        images = [read(os.path.join(image_dir, "page%d.png" % k), "rb")
                  for k in range(8)]
    messages = []  # (bytes, is_leak, size class)
    for i in range(args.messages):
        size = SIZES[i % len(SIZES)]
        body = ""
        while len(body) < size:
            body += rng.choice(hosts) + "\n"
        body = body[:size]
        leak = rng.random() < args.leak_share
        if leak:
            while True:
                words = rng.choice(protected).split()
                if len(words) >= 80:
                    break
            start = rng.randrange(0, len(words) - 60)
            passage = " ".join(words[start:start + 60])
            at = body.find("\n", len(body) // 2)
            body = body[:at + 1] + passage + "\n" + body[at + 1:]
        subject = "load %d" % i
        text = body.replace("\r", "").replace("\n", "\r\n")
        if images and rng.random() < args.image_share:
            import base64
            encoded = base64.encodebytes(rng.choice(images)).decode().replace(
                "\n", "\r\n")
            data = ("From: load@leakhound.test\r\nTo: inbox@example.test\r\n"
                    "Subject: %s\r\nMIME-Version: 1.0\r\n"
                    "Content-Type: multipart/mixed; boundary=lhb\r\n\r\n"
                    "--lhb\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    "Content-Transfer-Encoding: 8bit\r\n\r\n%s\r\n"
                    "--lhb\r\nContent-Type: image/png\r\n"
                    "Content-Disposition: attachment; filename=page.png\r\n"
                    "Content-Transfer-Encoding: base64\r\n\r\n%s"
                    "--lhb--\r\n" % (subject, text, encoded)).encode("utf-8")
        else:
            data = ("From: load@leakhound.test\r\nTo: inbox@example.test\r\n"
                    "Subject: %s\r\nMIME-Version: 1.0\r\n"
                    "Content-Type: text/plain; charset=utf-8\r\n"
                    "Content-Transfer-Encoding: 8bit\r\n\r\n" % subject
                    + text).encode("utf-8")
        messages.append((data, leak, size))

    # The reference: what `leakhound scan` says of each message on its own.
    # The gateway under load must decide the same.
    message_dir = os.path.join(work, "messages")
    os.makedirs(message_dir, exist_ok=True)
    for i, (data, _, _) in enumerate(messages):
        with open(os.path.join(message_dir, "m%05d.eml" % i), "wb") as f:
            f.write(data)
    reference = subprocess.run(
        [args.leakhound, "scan", "--index", index, "--json", message_dir],
        capture_output=True, text=True)
    expected_leak = {}
    for line in reference.stdout.splitlines():
        record = json.loads(line)
        i = int(os.path.basename(record["path"])[1:6])
        expected_leak[i] = record["verdict"] == "leak"
    designed = sum(1 for m in messages if m[1])
    found = sum(1 for i, m in enumerate(messages) if m[1] and expected_leak[i])
    print("reference scan: %d of %d messages with an inserted passage flagged, "
          "%d others flagged" % (found, designed, sum(
              1 for i, m in enumerate(messages) if not m[1] and expected_leak[i])),
          flush=True)
    messages = [(data, expected_leak[i], size)
                for i, (data, _, size) in enumerate(messages)]

    filters = [Gateway("leakhound", args.leakhound, index, args)]
    for spec in args.compare:
        # Another build may not read this build's index: each its own, of
        # the same documents.
        name, _, path = spec.partition("=")
        other = os.path.join(work, "index-" + name)
        if not (args.reuse_index and os.path.isdir(other)):
            shutil.rmtree(other, ignore_errors=True)
            subprocess.run([path, "init", "--index", other], check=True,
                           capture_output=True)
            subprocess.run([path, "add", "--index", other, docs], check=True,
                           capture_output=True)
        filters.append(Gateway(name, path, other, args))
    if args.baseline:
        filters.insert(0, Baseline(work))
    rounds = args.rounds if len(filters) > 1 else 1
    ok, summaries = True, []
    for r in range(rounds):
        # Alternated, and the order reversed every other round, so that a
        # machine drifting over minutes favours none of them.
        for filt in filters if r % 2 == 0 else filters[::-1]:
            where = work if len(filters) == 1 else os.path.join(
                work, "round%d-%s" % (r + 1, filt.name))
            if len(filters) > 1:
                print("\n## round %d: %s" % (r + 1, filt.name), flush=True)
            # The baseline accepts everything: every message is delivered.
            judged = messages if filt.judges else [(d, False, s)
                                                   for d, _, s in messages]
            round_ok, summary = run_round(args, filt, index, judged, where)
            ok = ok and round_ok
            if summary is not None:
                summaries.append(summary)
    if len(filters) > 1:
        print_comparison(filters, summaries)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
