# Sourced by the bench scripts: timing, medians and the helpers' build.
# Runs inside the uclamp VM as root (see bench/README.md).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(cd "$BENCH_DIR/.." && pwd)
. "$BENCH_DIR/stats.sh"
: "${UCLAMPCTL:?set UCLAMPCTL to the uclampctl binary (run-vm.sh -e UCLAMPCTL=...)}"
R=${R:-7}	# rounds; medians count
WORK=$(mktemp -d /tmp/uclampctl-bench.XXXXXX)
# The build dir reaches the VM over 9p without a page cache: every exec would
# read the binary from the host again. Time a copy on the guest's tmpfs, as
# the other tools (root file system, cached) are.
cp "$UCLAMPCTL" "$WORK/uclampctl"
UCLAMPCTL=$WORK/uclampctl
# The peer alike: /usr/bin is on 9p too, and its exec time followed the
# host's I/O (uclampset -M on 10,000 threads: 31 to 41 ms from one run to
# the next, against 22-23 ms for the floor).
UCLAMPSET=$WORK/uclampset
cp "$(command -v uclampset)" "$UCLAMPSET" 2>/dev/null || UCLAMPSET=uclampset
# Their shared libraries too (libc included, so every tool alike): from 9p,
# each exec reads them from the host again, and under -icount (sleep=on) that
# wait counts as guest time: with a loaded host, uclampctl (more libraries)
# measured 40 to 250 ms from one round to the next. The ones uclampctl opens
# with dlopen are those src/dlopen-deps links; OLD is another build (ab-set.sh,
# run.sh start).
mkdir -p "$WORK/lib"
for _b in "$UCLAMPCTL" "$UCLAMPSET" "$SRC_DIR/src/dlopen-deps" ${OLD:+"$OLD"}; do ldd "$_b" 2>/dev/null; done |
	awk '$3 ~ /^\// { print $3 }' | sort -u | xargs -r cp -t "$WORK/lib"
export LD_LIBRARY_PATH=$WORK/lib
# The rest of what an exec reads before main(): the dynamic loader (the
# binaries name it, PT_INTERP) and the C.UTF-8 locale the guest sets, which
# uclampset loads (setlocale: 14 files; the 17 it looks for in vain: below).
# Each gets a tmpfs copy mounted over it in this throw-away guest, so no
# tool's exec waits for the host: with the loader and the locale on 9p,
# uclampset's set measured 49.8 and 71.7 ms in two runs of one day (39-41 ms
# in others) and the floors 2-3 ms high.
# Once per guest (a script run by another finds BENCH_RO set), in /run, out
# of any script's $WORK: the copies stay mounted until the guest is gone.
tmpfs_over() {
	local p d
	for p; do
		p=$(readlink -f "$p")
		[ -e "$p" ] || continue
		d=/run/bench-ro$p
		mkdir -p "${d%/*}"
		cp -a "$p" "$d" && mount --bind "$d" "$p" ||
			echo "bench: $p stays on 9p (exec times follow the host)" >&2
	done
}
# The files an exec looks for and does not find cost a host round trip each
# on 9p too (no negative dentries there), where a real host answers from its
# dcache: uclampset's setlocale and gettext try 17 (locale-archive, the
# 12 C.UTF-8/LC_* before C.utf8, util-linux.mo in 3 spellings), uclampctl
# none, so its set measured 31.9 ms in one run and 38.2-46.1 in others.
# /usr/lib/locale is copied whole (400 KB); /usr/share/locale (170 MB of
# catalogs the C locale never reads) is shadowed by a directory holding
# only its locale.alias link.
shadow_dir() {	# DIR KEEP...: a tmpfs directory with only KEEP mounted over DIR
	local dir=$1 d=/run/bench-ro$1 k
	shift
	mkdir -p "$d"
	for k; do [ -e "$dir/$k" ] && cp -a "$dir/$k" "$d/"; done
	mount --bind "$d" "$dir" ||
		echo "bench: $dir stays on 9p (exec times follow the host)" >&2
}
if [ -z "${BENCH_RO-}" ]; then
	tmpfs_over /lib64/ld-linux-x86-64.so.2 /usr/lib/locale /etc/locale.alias \
		/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache
	shadow_dir /usr/share/locale locale.alias
	export BENCH_RO=/run/bench-ro
fi

die() { echo "bench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root, in the uclamp VM"
[ -e /proc/sys/kernel/sched_util_clamp_min ] || die "this kernel has no uclamp: run it in the VM (bench/README.md)"

now_ns() { date +%s%N; }
# wait_ready FILE PID: until the helper PID printed "ready" (up to 10 minutes under TCG)
wait_ready() {
	local i
	for i in $(seq 1 3000); do
		grep -q '^ready' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || die "helper failed: $(cat "$1")"
		sleep 0.2
	done
	die "helper not ready: $(cat "$1")"
}
# start_procs N: N helper processes (procs.c) that wait, PP = their parent,
# back once all are there (the caller's EXIT trap kills "$PP")
start_procs() {
	need_pids "$1"
	gcc -O2 -o "$WORK/procs" "$BENCH_DIR/procs.c" || die "gcc procs.c"
	"$WORK/procs" "$1" >"$WORK/ready" 2>&1 &
	PP=$!
	wait_ready "$WORK/ready" "$PP"
}
# start_threads N: one helper process (tests/vm/helpers/threads.c, built into
# $WORK/threads by the caller) with N threads, TP = its PID, back once all
# are there (the caller's EXIT trap kills "$TP")
start_threads() {
	local tmax
	need_pids "$1"
	tmax=$(cat /proc/sys/kernel/threads-max)
	[ "$tmax" -ge $(($1 + 2000)) ] || echo $(($1 + 4000)) >/proc/sys/kernel/threads-max ||
		die "cannot raise kernel.threads-max ($tmax)"
	"$WORK/threads" "$1" benchthreads >"$WORK/ready" 2>&1 &
	TP=$!
	wait_ready "$WORK/ready" "$TP"
	[ "$(ls "/proc/$TP/task" | wc -l)" = "$1" ] || die "expected $1 threads in $TP"
}
# need_pids N: room for N more tasks (the VM kernel is a tinyconfig one:
# CONFIG_BASE_SMALL makes pid_max 4096)
need_pids() {
	local max
	max=$(cat /proc/sys/kernel/pid_max)
	if [ "$max" -lt $(($1 + 2000)) ]; then
		echo $(($1 + 2000 > 32768 ? 32768 : $1 + 2000)) >/proc/sys/kernel/pid_max ||
			die "cannot raise kernel.pid_max ($max) for $1 tasks"
	fi
}
# ksyms_pad FILE LINES: pad a mkkcore.py kallsyms to LINES lines in a
# distro kernel's order: text (60%) before _etext, data (15%) before the
# static keys, module symbols (25%) last
ksyms_pad() {
	local f=$1 n=$2 have
	have=$(wc -l <"$f")
	awk -v add=$((n - have)) '
		function pad(cnt, fmt, base,   i) { for (i = 0; i < cnt; i++) printf fmt, base + i * 16, i }
		BEGIN { t = int(add * 0.60); d = int(add * 0.15); m = add - t - d }
		/ sched_uclamp_used$/ && !dd { pad(d, "%016x d pad_data_%d\n", 0xffffffff89c00000); dd = 1 }
		/\t\[/ && !mm { pad(m, "%016x t pad_mod_fn_%d\t[padmod]\n", 0xffffffffc1000000); mm = 1 }
		{ print }
		/ do_one_initcall$/ { pad(t, "%016x t pad_text_%d\n", 0xffffffff88e02000) }' "$f" >"$f.new" &&
		mv "$f.new" "$f"
}
