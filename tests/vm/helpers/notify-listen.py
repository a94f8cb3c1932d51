#!/usr/bin/python3
# A fake systemd: listen on a datagram socket (NOTIFY_SOCKET) and append
# every message received to a file, one per line.  usage: PATH OUTFILE
import os, socket, sys

path, out = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a", buffering=1) as f:
    f.write("listening\n")
    while True:
        msg = s.recv(4096).decode(errors="replace")
        f.write(msg.replace("\n", " | ") + "\n")
