"""A Dask cluster on loopback for the cluster tests (dask_scan_test.py,
dask_discover_test.py): a scheduler and workers as plain processes (no
nanny, so a worker's pid is the worker; each in its own session, so a test
can kill a worker with what it runs), logging into the test's folder.
"""
import os
import subprocess

from private_postfix import DEADLINE, free_port, listening, wait_for


def spawn(directory, procs, command, log_name):
    with open(os.path.join(directory, log_name), "w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=log,
                                cwd=directory, start_new_session=True)
    procs.append(proc)
    return proc


def wait_for_workers(port, n):
    probe = ("from distributed import Client\n"
             "with Client('tcp://127.0.0.1:%d', timeout=10) as c:\n"
             "    print(len(c.scheduler_info()['workers']))\n" % port)

    def ready():
        r = subprocess.run(["/usr/bin/python3", "-c", probe],
                           capture_output=True, text=True, timeout=30)
        return r.returncode == 0 and r.stdout.strip() == str(n)
    wait_for(ready, "%d Dask workers" % n, timeout=3 * DEADLINE)


def start_cluster(directory, procs, workers=2):
    """Starts the scheduler and `workers` one-thread workers; appends every
    process to `procs` (the caller stops them by pid); returns the
    scheduler's port and the workers' processes."""
    port = free_port()
    spawn(directory, procs, ["dask", "scheduler", "--host", "127.0.0.1",
                             "--port", str(port), "--no-dashboard"],
          "scheduler.log")
    wait_for(lambda: listening(port), "the Dask scheduler")
    started = [spawn(directory, procs,
                     ["dask", "worker", "tcp://127.0.0.1:%d" % port,
                      "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                      "--no-dashboard", "--name", "w%d" % n],
                     "worker%d.log" % n) for n in range(workers)]
    wait_for_workers(port, workers)
    return port, started
