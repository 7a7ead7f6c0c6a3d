#!/usr/bin/env python3
"""A private PostgreSQL cluster for one test run, in a folder of its own.

  postgres_cluster.py start DIR   initdb DIR/data, start the server on a
                                  unix socket in DIR only (no TCP), print
                                  the libpq URI of its `postgres` database
  postgres_cluster.py stop DIR    stop it (fast, then SIGKILL by the pid in
                                  postmaster.pid), leave DIR to the caller

The server runs as the calling user, or as `postgres` when called by root
(initdb refuses root). Authentication is `trust` on the socket, which only
the cluster's user and root can reach (DIR is 0700). Debian's
postgresql-15 provides the binaries (cmake/install_deps.sh --test).
"""
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

PORT = 5432  # only names the socket file inside DIR


def bin_dir():
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/initdb'),
                   key=lambda p: int(p.split('/')[4]))
    if not found:
        sys.exit('postgres_cluster: no PostgreSQL server (apt-get install '
                 'postgresql-15, or bash cmake/install_deps.sh --test)')
    return os.path.dirname(found[-1])


def as_owner(argv):
    if os.geteuid() == 0:
        return ['runuser', '-u', 'postgres', '--'] + argv
    return argv


def run(argv, **kw):
    return subprocess.run(as_owner(argv), check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kw)


def uri(folder, database='postgres'):
    return 'postgresql:///%s?host=%s&port=%d&user=postgres' % (
        database, folder, PORT)


def start(folder):
    folder = os.path.abspath(folder)
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() == 0:
        pw = pwd.getpwnam('postgres')
        os.chown(folder, pw.pw_uid, pw.pw_gid)
    os.chmod(folder, 0o700)
    data = os.path.join(folder, 'data')
    tools = bin_dir()
    if os.path.exists(data):  # an earlier run's: stopped and wiped
        stop(folder)
        shutil.rmtree(data)
    try:
        run([os.path.join(tools, 'initdb'), '-D', data, '-A', 'trust', '-U',
             'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'])
        options = ("-k %s -p %d -c listen_addresses='' -c fsync=off "
                   "-c max_connections=200" % (folder, PORT))
        run([os.path.join(tools, 'pg_ctl'), '-D', data, '-l',
             os.path.join(folder, 'server.log'), '-o', options, '-w', '-t',
             '60', 'start'])
    except subprocess.CalledProcessError as e:
        sys.exit('postgres_cluster: %s failed: %s' % (e.cmd, e.stdout.strip()))
    print(uri(folder))


def postmaster_pid(data):
    try:
        with open(os.path.join(data, 'postmaster.pid')) as f:
            return int(f.readline())
    except (OSError, ValueError):
        return None


def stop(folder):
    data = os.path.join(os.path.abspath(folder), 'data')
    pid = postmaster_pid(data)
    if pid is None:
        return
    subprocess.run(as_owner([os.path.join(bin_dir(), 'pg_ctl'), '-D', data,
                             '-m', 'fast', '-w', '-t', '20', 'stop']),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):  # at most 10 s more
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('start', 'stop'):
        sys.exit('usage: postgres_cluster.py start|stop DIR')
    (start if sys.argv[1] == 'start' else stop)(sys.argv[2])


if __name__ == '__main__':
    main()
