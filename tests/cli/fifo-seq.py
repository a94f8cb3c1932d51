#!/usr/bin/env python3
"""fifo-seq.py FIFO TEXT...: FIFO reads as each TEXT in turn, one per open.

A test's stand-in for a /proc or sysfs file that changes between two reads
(tests/cli/test-top.sh: a task's stat, a policy's time_in_state). The next
TEXT is offered only once the last reader has closed the FIFO: a writer that
opened it before that would join the last read.
"""
import fcntl
import os
import sys
import termios
import time


def held(path):
    """Does some process have path open? (a reader between its reads)"""
    for pid in os.listdir("/proc"):
        try:
            for fd in os.listdir("/proc/%s/fd" % pid):
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) == path:
                    return True
        except OSError:
            pass
    return False


def main():
    path = os.path.realpath(sys.argv[1])
    for text in sys.argv[2:]:
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, os.fsencode(text))
        # the reader has read it all: its descriptor is in place, so that
        # held() sees it until it closes (our open can return before its)
        while int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little"):
            time.sleep(0.001)
        os.close(fd)
        while held(path):
            time.sleep(0.005)


main()
