"""A private Postfix instance for tests and benchmarks: its own
configuration, queue and mailbox directories under one directory, smtpd
listeners on loopback ports only (each with its own milter), delivery of
every recipient of its test domains (example.test, corp.test,
legal.corp.test, counsel.test) to one maildir, no systemd. Needs root
and the postfix package (cmake/install_deps.sh --test installs it).

    pf = PrivatePostfix(directory, {"reject": milter_port, "down": unused})
    pf.start(); port = pf.smtp["reject"]; ...; pf.stop()
"""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import time

DEADLINE = 20  # seconds any single wait may take


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, what, timeout=DEADLINE):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


SERVICES = """pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
virtual unix - n n - - virtual
smtp unix - - n - - smtp
relay unix - - n - - smtp
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""


class PrivatePostfix:
    def __init__(self, directory, milters, extra_main_cf=""):
        """`milters`: listener name -> milter port (one smtpd each);
        `extra_main_cf`: lines appended to main.cf."""
        self.dir = directory
        self.extra_main_cf = extra_main_cf
        self.config = os.path.join(directory, "postfix")
        self.milters = milters
        self.smtp = {name: free_port() for name in milters}
        self.master_pid = None

    def start(self):
        d = self.dir
        for sub in ("postfix", "queue", "mail", "data"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        shutil.chown(os.path.join(d, "data"), "postfix")
        shutil.chown(os.path.join(d, "mail"), 65534, 65534)
        os.chmod(d, 0o755)
        with open(os.path.join(self.config, "main.cf"), "w") as f:
            f.write("""compatibility_level = 3.6
queue_directory = {d}/queue
data_directory = {d}/data
mail_owner = postfix
setgid_group = postdrop
myhostname = gateway.leakhound.test
mydomain = leakhound.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
virtual_mailbox_domains = example.test corp.test legal.corp.test counsel.test
virtual_mailbox_base = {d}/mail
virtual_mailbox_maps = static:inbox/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
maillog_file = {d}/maillog
maillog_file_prefixes = {d}
milter_default_action = tempfail
milter_protocol = 6
alias_maps =
alias_database =
biff = no
smtputf8_enable = no
smtpd_soft_error_limit = 1000
smtpd_hard_error_limit = 1000
smtpd_error_sleep_time = 0
smtpd_client_connection_count_limit = 0
smtpd_client_connection_rate_limit = 0
smtpd_client_message_rate_limit = 0
""".format(d=d) + self.extra_main_cf)
        with open(os.path.join(self.config, "master.cf"), "w") as f:
            for name, port in self.smtp.items():
                f.write("127.0.0.1:%d inet n - n - - smtpd "
                        "-o smtpd_milters=inet:127.0.0.1:%d\n"
                        % (port, self.milters[name]))
            f.write(SERVICES)
        subprocess.run(["postfix", "-c", self.config, "check"], check=True,
                       timeout=60)
        subprocess.run(["postfix", "-c", self.config, "start"], check=True,
                       timeout=60, capture_output=True)
        pidfile = os.path.join(d, "queue/pid/master.pid")
        wait_for(lambda: os.path.exists(pidfile), "Postfix master")
        self.master_pid = int(read(pidfile).strip())
        for port in self.smtp.values():
            wait_for(lambda: listening(port), "smtpd on %d" % port)

    def stop(self):
        if self.master_pid is None:
            return
        subprocess.run(["postfix", "-c", self.config, "stop"],
                       capture_output=True, timeout=60)
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            try:
                os.kill(self.master_pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(self.master_pid, signal.SIGKILL)
        self.master_pid = None

    def delivered(self):
        """Paths of the delivered messages."""
        return glob.glob(os.path.join(self.dir, "mail/inbox/new/*"))

    def queue(self):
        out = subprocess.run(["postqueue", "-c", self.config, "-j"],
                             capture_output=True, check=True, timeout=60)
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]

    def settled(self):
        """True when no message is on its way to a mailbox: none in the
        maildrop, incoming or active queue (held and deferred ones stay
        where they are). A message Postfix accepted is in one of them until
        every copy of it was delivered."""
        return not any(q.get("queue_name") in ("maildrop", "incoming", "active")
                       for q in self.queue())


def start_listener(argv, port, log_path, what):
    """Starts `argv` (a daemon that listens on loopback `port`), standard
    error to `log_path`; returns its Popen once it listens. Raises if it
    exits first."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
    wait_for(lambda: listening(port) or proc.poll() is not None,
             "%s on %d" % (what, port))
    if proc.poll() is not None:
        raise AssertionError("%s exited: %s" % (what, read(log_path)))
    return proc


def start_milter(leakhound, index, port, log_path, *flags):
    """Starts `leakhound milter` on loopback `port`; returns its Popen once
    it listens. Raises if it exits first."""
    return start_listener([leakhound, "milter", "--index", index, "--socket",
                           "inet:%d@127.0.0.1" % port, *flags],
                          port, log_path, "milter")


def stop_process(proc):
    """SIGTERM, then SIGKILL after DEADLINE; returns the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait()
