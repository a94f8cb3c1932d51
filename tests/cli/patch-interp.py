#!/usr/bin/env python3
"""A copy of a 64-bit ELF whose program interpreter (PT_INTERP) is another
path: a binary as one built against a libc this host lacks looks.

usage: patch-interp.py OUT INTERP [FROM]   (FROM: /bin/true)
"""
import shutil
import struct
import sys

PT_INTERP = 3


def main():
    out, interp = sys.argv[1], sys.argv[2].encode()
    shutil.copy(sys.argv[3] if len(sys.argv) > 3 else "/bin/true", out)
    with open(out, "r+b") as f:
        h = f.read(64)
        if h[:4] != b"\x7fELF" or h[4] != 2:
            sys.exit("not a 64-bit ELF")
        phoff, = struct.unpack_from("<Q", h, 32)
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ptype, _, off, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
            if ptype == PT_INTERP:
                if len(interp) >= filesz:
                    sys.exit("the new interpreter is longer than the old")
                f.seek(off)
                f.write(interp.ljust(filesz, b"\0"))
                return
    sys.exit("no PT_INTERP")


if __name__ == "__main__":
    main()
