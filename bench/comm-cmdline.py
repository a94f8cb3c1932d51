#!/usr/bin/python3
# comm-cmdline.py N PROGRAM [ARG...]: what tuned's scheduler plugin sees.
#
# tuned learns of a new process from perf's COMM record (a dummy software
# event with comm=1, opened exactly as plugin_scheduler.py opens it) and then
# reads /proc/PID/cmdline once to match its rules. The kernel emits that
# record from begin_new_exec() (__set_task_comm), before the ELF loader has
# set the new mm's argument area, so a reader that runs before execve()
# returns reads an empty cmdline: the rule does not match and tuned never
# looks at that process again. This starts PROGRAM N times, one after the
# other, reads the cmdline of each at its COMM record, as tuned does, and
# counts how often it was still empty. Needs root (perf, all CPUs) and
# Debian's python3 perf module (package linux-perf): bench/watch-peers.sh.
import os
import select
import subprocess
import sys

import perf


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: comm-cmdline.py N PROGRAM [ARG...]\n")
        return 2
    n = int(sys.argv[1])
    cpus = perf.cpu_map()
    threads = perf.thread_map()
    ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY,
                    task=1, comm=1, mmap=0, freq=0, wakeup_events=1, watermark=1,
                    sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU)
    ev.open(cpus=cpus, threads=threads)
    evl = perf.evlist(cpus, threads)
    evl.add(ev)
    evl.mmap()
    poll = select.poll()
    fds = evl.get_pollfd()  # kept: the descriptors must outlive the poll
    for fd in fds:
        poll.register(fd)
    empty = seen = 0
    for _ in range(n):
        child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
        got = False
        while not got:
            if not poll.poll(5000):
                break
            for cpu in cpus:
                while True:
                    e = evl.read_on_cpu(cpu)
                    if not e:
                        break
                    if e.type != perf.RECORD_COMM or e.tid != child.pid:
                        continue
                    try:
                        with open("/proc/%d/cmdline" % e.tid, "rb") as f:
                            cl = f.read()
                    except OSError:
                        cl = b""
                    seen += 1
                    empty += not cl
                    got = True
        child.wait()
    print("comm records %d of %d execs, cmdline empty at the record: %d" % (seen, n, empty))
    return 0


if __name__ == "__main__":
    sys.exit(main())
