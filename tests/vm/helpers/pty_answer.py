#!/usr/bin/python3
"""Answer a [y/N] prompt on a terminal, after running something meanwhile.

usage: pty_answer.py ANSWER MEANWHILE -- CMD [ARGS...]

Runs CMD with stdin, stdout and stderr on a new pty (so that it asks), waits
for "[y/N] " (60 s at most), runs the shell command MEANWHILE while the
question is open (its output and status are printed), then types ANSWER and
a newline and prints the rest of CMD's output and its status:

    == prompt / <CMD's output up to the question>
    == meanwhile / <MEANWHILE's output> / meanwhile rc=N
    == after / <CMD's output after the answer> / rc=N
Exit 0 when the question came, else 1 (CMD's status is printed, not returned).
"""
import os
import select
import subprocess
import sys
import time


def read_until(fd, needle, timeout):
    buf = b""
    end = time.monotonic() + timeout
    while needle not in buf:
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        buf += chunk
    return buf


def main():
    answer, meanwhile, dashes, *cmd = sys.argv[1:]
    if dashes != "--" or not cmd:
        sys.exit(__doc__)
    master, slave = os.openpty()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    before = read_until(master, b"[y/N] ", 60)
    print("== prompt")
    print(before.decode(errors="replace").replace("\r", ""))
    asked = b"[y/N] " in before
    if asked:
        mw = subprocess.run(["sh", "-c", meanwhile], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
        print("== meanwhile")
        print(mw.stdout, end="")
        print(f"meanwhile rc={mw.returncode}")
        os.write(master, answer.encode() + b"\n")
    after = read_until(master, b"\0never\0", 120 if asked else 1)
    print("== after")
    print(after.decode(errors="replace").replace("\r", ""))
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    print(f"rc={rc}")
    sys.exit(0 if asked else 1)


main()
