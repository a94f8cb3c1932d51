#!/usr/bin/python3
"""Print the 'enabled' count of a static key (default sched_uclamp_used).

Independent of uclampctl on purpose: the VM tests check uclampctl's own
detection against it. Address from /proc/kallsyms, 4 bytes from the
/proc/kcore PT_LOAD that covers it. Root only.
"""
import os
import struct
import sys


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "sched_uclamp_used"
    addr = None
    with open("/proc/kallsyms") as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[2] == name:
                addr = int(p[0], 16)
                break
    if not addr:
        sys.exit("keyread: %s not in /proc/kallsyms (or zeroed)" % name)
    fd = os.open("/proc/kcore", os.O_RDONLY)
    ehdr = os.pread(fd, 64, 0)
    phoff, = struct.unpack_from("<Q", ehdr, 32)
    phentsize, phnum = struct.unpack_from("<HH", ehdr, 54)
    ph = os.pread(fd, phentsize * phnum, phoff)
    for i in range(phnum):
        ptype, _fl, off, vaddr, _pa, filesz, _ms, _al = struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
        if ptype == 1 and vaddr <= addr and addr + 4 <= vaddr + filesz:
            v, = struct.unpack("<i", os.pread(fd, 4, off + addr - vaddr))
            print(v)
            return
    sys.exit("keyread: no PT_LOAD covers %#x" % addr)


main()
