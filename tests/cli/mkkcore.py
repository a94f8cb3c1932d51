#!/usr/bin/python3
"""Lay out a fake kernel's symbol tables and memory in a fake root.

Writes ROOT/proc/kallsyms and ROOT/proc/kcore (an ELF64 core with a PT_NOTE
and one PT_LOAD over the running kernel text, as /proc/kcore has), and with
--map REL also ROOT/boot/System.map-REL at link-time addresses. The static
keys' 4-byte counts are stored at their addresses; the rest is zeros, so a
reader that is off by a few bytes reads the guard bytes around them.

  mkkcore.py ROOT [--key N] [--set NAME=N]... [--no-symbol] [--no-data]
             [--zeroed] [--no-kcore] [--map REL] [--map-skew N] [--map-no-symbol]
"""
import argparse
import os
import struct
import sys

LINK_TEXT = 0xFFFFFFFF81000000
LIVE_TEXT = 0xFFFFFFFF88E00000          # KASLR offset 0x7e00000
SEG_SIZE = 0x1000000
DATA_OFF = 0x2000                        # file offset of the PT_LOAD
# offsets from _text (the 6.1 VM's sched_uclamp_used is at _text + 0xf46710)
KEYS = [
    ("sched_uclamp_used", "B", 0xF46710),
    ("sched_smt_present", "B", 0xF46720),
    ("sched_schedstats", "B", 0xF46730),
    ("sched_numa_balancing", "B", 0xF46740),
    ("__cfs_bandwidth_used", "b", 0xF46750),
    ("sched_energy_present", "B", 0xF46760),
    ("sched_asym_cpucapacity", "B", 0xF46770),
    ("__sched_core_enabled", "B", 0xF46780),
    ("psi_disabled", "B", 0xF46790),
    ("shared_processor", "D", 0xF467A0),  # powerpc pseries only; harmless elsewhere
    ("arch_scale_freq_key", "D", 0xF467B0),     # x86 frequency invariance
    ("cpufreq_freq_invariance", "d", 0xF467C0),  # arm's (a static symbol)
]
TEXT = [("_stext", 0), ("_text", 0), ("do_one_initcall", 0x1000), ("_etext", 0xC02C31),
        ("_sinittext", 0xF00000), ("_einittext", 0xF40000)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--key", type=int, default=0, help="sched_uclamp_used's count")
    ap.add_argument("--set", action="append", default=[], help="NAME=N for another key")
    ap.add_argument("--no-symbol", action="store_true", help="kallsyms lacks sched_uclamp_used")
    ap.add_argument("--no-data", action="store_true", help="no data symbols (no KALLSYMS_ALL)")
    ap.add_argument("--zeroed", action="store_true", help="zeroed addresses (kptr_restrict)")
    ap.add_argument("--no-kcore", action="store_true")
    ap.add_argument("--map", metavar="REL")
    ap.add_argument("--map-skew", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--map-no-symbol", action="store_true")
    ap.add_argument("--extra", action="append", default=[],
                    help="another static key symbol NAME (a newer kernel's, or an old spelling)")
    a = ap.parse_args()
    for i, name in enumerate(a.extra):
        KEYS.append((name, "B", 0xF467B0 + 0x10 * i))

    values = {"sched_uclamp_used": a.key}
    for s in a.set:
        name, _, v = s.partition("=")
        values[name] = int(v, 0)

    def addr(base, off):
        return 0 if a.zeroed else base + off

    lines = []
    for name, off in TEXT:
        lines.append("%016x T %s" % (addr(LIVE_TEXT, off), name))
    lines.append("%016x D __start_rodata" % addr(LIVE_TEXT, 0xE00000))
    lines.append("%016x R __start___ksymtab" % addr(LIVE_TEXT, 0xE00100))
    if not a.no_data:
        for i in range(12):
            lines.append("%016x D some_data_%d" % (addr(LIVE_TEXT, 0xE10000 + 8 * i), i))
        for name, typ, off in KEYS:
            if name == "sched_uclamp_used" and a.no_symbol:
                continue
            lines.append("%016x %s %s" % (addr(LIVE_TEXT, off), typ, name))
    lines.append("%016x t helper_fn\t[e1000]" % (0 if a.zeroed else 0xFFFFFFFFC0001000))
    os.makedirs(os.path.join(a.root, "proc"), exist_ok=True)
    with open(os.path.join(a.root, "proc/kallsyms"), "w") as f:
        f.write("\n".join(lines) + "\n")

    if a.map:
        m = []
        for name, off in TEXT:
            if name == "_einittext":
                off += a.map_skew
            m.append("%016x T %s" % (LINK_TEXT + off, name))
        for name, typ, off in KEYS:
            if name == "sched_uclamp_used" and a.map_no_symbol:
                continue
            m.append("%016x %s %s" % (LINK_TEXT + off, typ, name))
        os.makedirs(os.path.join(a.root, "boot"), exist_ok=True)
        with open(os.path.join(a.root, "boot/System.map-" + a.map), "w") as f:
            f.write("\n".join(m) + "\n")

    kcore = os.path.join(a.root, "proc/kcore")
    if a.no_kcore:
        if os.path.exists(kcore):
            os.unlink(kcore)
        return
    ident = b"\x7fELF" + bytes([2, 1 if sys.byteorder == "little" else 2, 1]) + bytes(9)
    e = "<" if sys.byteorder == "little" else ">"
    ehdr = ident + struct.pack(e + "HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 2, 0, 0, 0)
    note = struct.pack(e + "IIQQQQQQ", 4, 0, 0x1000, 0, 0, 0x10, 0, 0)
    load = struct.pack(e + "IIQQQQQQ", 1, 7, DATA_OFF, LIVE_TEXT, 0xFFFFFFFFFFFFFFFF, SEG_SIZE, SEG_SIZE, 4096)
    with open(kcore, "wb") as f:
        f.write(ehdr + note + load)
        for name, _typ, off in KEYS:
            f.seek(DATA_OFF + off - 4)
            f.write(b"\x55" * 4 + struct.pack(e + "i", values.get(name, 0)) + b"\x77" * 4)
        f.truncate(DATA_OFF + SEG_SIZE)


main()
