"""A private web proxy chain for tests and benchmarks, on loopback only:
c-icap with leakhound's service module (srv_leakhound.so), Squid with
ICAP REQMOD pointed at it, and an origin server that records every
request it receives with its SHA-256. Each has its own configuration,
logs and pid under one directory; no systemd. Needs the c-icap and
squid-openssl packages (cmake/install_deps.sh --test).

    origin = Origin(directory); origin.start()
    icap = PrivateCicap(directory, module, index, policy); icap.start()
    squid = PrivateSquid(directory, icap.port, hosts=[...]); squid.start()
    ...; squid.stop(); icap.stop(); origin.stop()
"""
import hashlib
import http.server
import json
import os
import pwd
import signal
import ssl
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "milter"))
from private_postfix import (DEADLINE, free_port, listening,  # noqa: E402,F401
                             stop_process, wait_for)


def read_files(directory, names):
    """The text of those of `names` in `directory` that exist, joined."""
    text = ""
    for name in names:
        try:
            with open(os.path.join(directory, name), errors="replace") as f:
                text += f.read()
        except OSError:
            pass
    return text


def stop_pid(pid, timeout=DEADLINE):
    """SIGTERM to `pid`, then SIGKILL if it is still there."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class _OriginHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _record(self):
        body = self._body()
        entry = {"method": self.command, "path": self.path,
                 "host": self.headers.get("Host", ""),
                 "content_type": self.headers.get("Content-Type", ""),
                 "content_encoding": self.headers.get("Content-Encoding", ""),
                 "sha256": hashlib.sha256(body).hexdigest(),
                 "bytes": len(body)}
        self.server.origin.add(entry, body)
        reply = json.dumps(entry).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_POST = do_PUT = do_GET = _record

    def log_message(self, *args):
        pass


class Origin:
    """An HTTP server on 127.0.0.1 that answers every request with what it
    received (method, path, Host, Content-Type, Content-Encoding, SHA-256
    and size of the body) and keeps the list, and the last body per path;
    in a thread of the test's own process."""

    def __init__(self, tls=None):
        """`tls`: (certificate, key) files for a second, HTTPS listener on
        `tls_port`."""
        self.port = free_port()
        self.tls = tls
        self.tls_port = free_port() if tls else None
        self._lock = threading.Lock()
        self._entries = []
        self._bodies = {}  # path -> the last body received there
        self._servers = []
        self._threads = []

    def add(self, entry, body):
        with self._lock:
            self._entries.append(entry)
            self._bodies[entry["path"]] = body

    def body(self, path):
        with self._lock:
            return self._bodies.get(path)

    def entries(self):
        with self._lock:
            return list(self._entries)

    def start(self):
        for port in (self.port, self.tls_port):
            if port is None:
                continue
            server = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                                     _OriginHandler)
            if port == self.tls_port:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(*self.tls)
                server.socket = context.wrap_socket(server.socket,
                                                    server_side=True)
            server.daemon_threads = True
            server.origin = self
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            self._servers.append(server)
            self._threads.append(thread)

    def stop(self):
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=DEADLINE)
        self._servers, self._threads = [], []


def make_tls_files(directory, hosts):
    """A test CA for Squid to sign bumped sites' certificates with
    (bump-ca.pem, bump-ca.key), and the origin's own certificate for
    `hosts` (origin.pem, origin.key; self-signed, Squid trusts it by
    tls_outgoing_options). Made with the openssl command. Returns a dict
    of the paths."""
    os.makedirs(directory, exist_ok=True)
    p = {name: os.path.join(directory, name) for name in
         ("bump-ca.pem", "bump-ca.key", "origin.pem", "origin.key")}
    run = lambda *a: subprocess.run(["openssl", *a], check=True,
                                    capture_output=True, timeout=60)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=leakhound test bump CA", "-keyout", p["bump-ca.key"],
        "-out", p["bump-ca.pem"], "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=" + hosts[0], "-keyout", p["origin.key"],
        "-out", p["origin.pem"], "-addext",
        "subjectAltName=" + ",".join("DNS:" + h for h in hosts))
    return p


CICAP_CONF = """PidFile {dir}/c-icap.pid
CommandsSocket {dir}/c-icap.ctl
Port 127.0.0.1:{port}
Timeout 10
MaxKeepAliveRequests 100
KeepAliveTimeout 600
StartServers 1
MaxServers 1
MinSpareThreads 1
MaxSpareThreads {threads}
ThreadsPerChild {threads}
MaxRequestsPerChild 0
TmpDir {dir}/tmp
ServerLog {dir}/server.log
AccessLog {dir}/access.log
DebugLevel 1
ModulesDir /usr/lib/x86_64-linux-gnu/c_icap
ServicesDir /usr/lib/x86_64-linux-gnu/c_icap
Service leakhound {module}
leakhound.Index {index}
leakhound.ReloadSeconds 1
{extra}
"""


def sanitizer_env(module):
    """The environment c-icap needs to load `module`: a module built with
    the sanitizers (LEAKHOUND_SANITIZE) needs their runtimes loaded first,
    and c-icap is not built with them, so they are preloaded (leaks are
    not reported: c-icap's own would be)."""
    env = dict(os.environ)
    needed = subprocess.run(["ldd", module], capture_output=True,
                            text=True).stdout
    runtimes = [line.split("=>")[1].split()[0] for line in needed.splitlines()
                if "=>" in line and ("libasan" in line or "libubsan" in line
                                     or "libclang_rt.asan" in line)]
    if runtimes:
        env["LD_PRELOAD"] = " ".join(runtimes)
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    return env


class PrivateCicap:
    """c-icap in the foreground (-N) with the leakhound service only."""

    def __init__(self, directory, module, index, extra="", threads=16):
        self.dir = os.path.join(directory, "c-icap")
        self.port = free_port()
        self.module = module
        self.index = index
        self.extra = extra
        self.threads = threads
        self.proc = None

    @property
    def log(self):
        return os.path.join(self.dir, "server.log")

    def start(self):
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        conf = os.path.join(self.dir, "c-icap.conf")
        with open(conf, "w") as f:
            f.write(CICAP_CONF.format(dir=self.dir, port=self.port,
                                      module=self.module, index=self.index,
                                      extra=self.extra, threads=self.threads))
        self.out = open(os.path.join(self.dir, "stdout.log"), "wb")
        self.proc = subprocess.Popen(
            ["c-icap", "-N", "-f", conf], stdout=self.out,
            stderr=subprocess.STDOUT, start_new_session=True,
            env=sanitizer_env(self.module))
        wait_for(lambda: listening(self.port) or self.proc.poll() is not None,
                 "c-icap to listen")
        if self.proc.poll() is not None:
            raise AssertionError("c-icap exited: " + self.read_log())
        # The child opens the index when it starts.
        wait_for(lambda: "serving index" in self.read_log() or
                 "cannot start" in self.read_log(), "the service to start")

    def read_log(self):
        return read_files(self.dir, ("server.log", "stdout.log"))

    def child_pids(self):
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)],
                             capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stop(self):
        if self.proc is None:
            return
        children = self.child_pids()
        stop_process(self.proc)
        for pid in children:
            stop_pid(pid)
        self.proc = None
        self.out.close()


SQUID_CONF = """http_port 127.0.0.1:{port} name=closed
http_port 127.0.0.1:{open_port} name=open
http_port 127.0.0.1:{plain_port} name=plain
pid_filename {dir}/squid.pid
cache deny all
access_log stdio:{dir}/access.log
cache_log {dir}/cache.log
cache_store_log none
coredump_dir {dir}
hosts_file {dir}/hosts
dns_nameservers 127.0.0.1
shutdown_lifetime 1 seconds
auth_param basic program /usr/lib/squid/basic_ncsa_auth {dir}/passwd
auth_param basic realm leakhound-test
acl users proxy_auth REQUIRED
acl loopback src 127.0.0.0/8
http_access allow loopback users
http_access deny all
request_body_max_size 0
icap_enable on
icap_preview_enable on
icap_send_client_ip on
icap_send_client_username on
icap_client_username_header X-Authenticated-User
icap_service_failure_limit -1
icap_service closed_svc reqmod_precache bypass=off icap://127.0.0.1:{icap_port}/leakhound
icap_service open_svc reqmod_precache bypass=on on-overload=wait icap://127.0.0.1:{icap_port}/leakhound
acl on_closed myportname closed
acl on_open myportname open
adaptation_access closed_svc allow on_closed
adaptation_access open_svc allow on_open
"""


BUMP_CONF = """http_port 127.0.0.1:{bump_port} name=bump ssl-bump tls-cert={cert} tls-key={key} generate-host-certificates=on dynamic_cert_mem_cache_size=4MB
sslcrtd_program /usr/lib/squid/security_file_certgen -s {dir}/ssl_db -M 4MB
sslcrtd_children 2 startup=1 idle=1
tls_outgoing_options cafile={origin_ca}
acl step1 at_step SslBump1
ssl_bump peek step1
ssl_bump bump all
acl on_bump myportname bump
adaptation_access closed_svc allow on_bump
"""


class PrivateSquid:
    """Squid in the foreground (-N) on loopback ports: `port` adapts
    through the ICAP service with bypass=off (fail closed), `open_port`
    with bypass=on (fail open), `plain_port` not at all (the baseline of
    the load benchmark), and with `tls` (make_tls_files) `bump_port`
    bumps HTTPS (ssl_bump with the test CA) and adapts with bypass=off.
    Every host in `hosts` resolves to 127.0.0.1; users log in with basic
    auth (`users`: name -> password)."""

    def __init__(self, directory, icap_port, hosts, users, tls=None):
        self.dir = os.path.join(directory, "squid")
        self.port = free_port()
        self.open_port = free_port()
        self.plain_port = free_port()
        self.bump_port = free_port() if tls else None
        self.tls = tls
        self.icap_port = icap_port
        self.hosts = hosts
        self.users = users
        self.proc = None

    def start(self):
        import crypt  # Python 3.11: deprecated, still the one MD5-crypt
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost %s\n" % " ".join(self.hosts))
        with open(os.path.join(self.dir, "passwd"), "w") as f:
            for name, password in self.users.items():
                f.write("%s:%s\n" % (name, crypt.crypt(
                    password, crypt.mksalt(crypt.METHOD_MD5))))
        conf = os.path.join(self.dir, "squid.conf")
        with open(conf, "w") as f:
            f.write(SQUID_CONF.format(dir=self.dir, port=self.port,
                                      open_port=self.open_port,
                                      plain_port=self.plain_port,
                                      icap_port=self.icap_port))
            if self.tls:
                f.write(BUMP_CONF.format(
                    dir=self.dir, bump_port=self.bump_port,
                    cert=self.tls["bump-ca.pem"], key=self.tls["bump-ca.key"],
                    origin_ca=self.tls["origin.pem"]))
        if self.tls:
            subprocess.run(["/usr/lib/squid/security_file_certgen", "-c",
                            "-s", os.path.join(self.dir, "ssl_db"), "-M",
                            "4MB"], check=True, capture_output=True,
                           timeout=DEADLINE)
        if os.geteuid() == 0:  # Squid drops root for its Debian user
            proxy = pwd.getpwnam("proxy")
            tls_dir = [os.path.dirname(self.tls["bump-ca.key"])] if self.tls else []
            for top in [self.dir] + tls_dir:
                for root, dirs, files in os.walk(top):
                    for name in [root] + [os.path.join(root, n) for n in files]:
                        os.chown(name, proxy.pw_uid, proxy.pw_gid)
        self.out = open(os.path.join(self.dir, "stdout.log"), "wb")
        self.proc = subprocess.Popen(
            ["squid", "-N", "-f", conf], stdout=self.out,
            stderr=subprocess.STDOUT, start_new_session=True)
        ports = [p for p in (self.port, self.open_port, self.plain_port,
                             self.bump_port) if p]
        wait_for(lambda: all(listening(p) for p in ports) or
                 self.proc.poll() is not None, "Squid to listen")
        if self.proc.poll() is not None:
            raise AssertionError("Squid exited: " + self.read_log())

    def read_log(self):
        return read_files(self.dir, ("cache.log", "stdout.log"))

    def stop(self):
        if self.proc is None:
            return
        stop_process(self.proc)
        self.proc = None
        self.out.close()
