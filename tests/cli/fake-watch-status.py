#!/usr/bin/env python3
"""A stand-in for the watch daemon's status socket: serves canned counters in
the daemon's wire format ("key value" lines, src/lib/watch_stats.c) to N
clients, then exits. Lets 'uclampctl watch status' be tested (table, -J,
prometheus) without a daemon, a proc connector or root.

usage: fake-watch-status.py SOCKET [CLIENTS [HOLD]]

With HOLD (a path), each client waits for HOLD to exist before it gets its
answer (then HOLD is removed): a test can act while the client waits.
"""
import contextlib
import os
import socket
import sys
import time

STATS = """pid 4242
started 1700000000
generation 3
rules 2
tracked 17
tracked_cap 65536
overruns 1
seq_gaps 2
queue_drops 0
applied 11
unchanged 5
would_apply 0
gone 1
identity_mismatch 1
skipped_rt 0
given_up 0
untracked 0
refused 0
reloads 2
reload_failures 1
errors_total 4
queue_len 0
queue_hiwater 9
queue_cap 4096
lat_count 3
lat_sum_ns 4500000
events.fork 20
events.exec 12
events.comm 3
rescans.start 1
rescans.overrun 1
rescans.seq_gap 2
errno.1 4
lat_bucket.0 1
lat_bucket.3 2
"""


def listen(path):
    """A stream socket listening at path (a stale one from an earlier run replaced)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    return s


def main():
    path = sys.argv[1]
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    hold = sys.argv[3] if len(sys.argv) > 3 else None
    s = listen(path)
    s.settimeout(30)
    print("ready", flush=True)
    for _ in range(clients):
        c, _ = s.accept()
        for _ in range(300):
            if not hold or os.path.exists(hold):
                break
            time.sleep(0.1)
        if hold:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(hold)
        # a client that only probes whether someone listens hangs up at once
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            c.sendall(STATS.encode())
        c.close()
    s.close()
    os.unlink(path)


if __name__ == "__main__":
    main()
