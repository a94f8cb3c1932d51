# Sourced by the task-* scenarios after lib.sh: helpers for tasks and threads.
#
#   start_threads N NAME    build helpers/threads.c (once) and run a process with N
#                           threads in all, named NAME; TP = its PID when ready
#   clamps_of_threads PID   "COUNT MIN MAX" lines over every thread (sched_getattr)
#   rof PID                 "yes" when reset-on-fork is set (sched_getattr via chrt -p)
start_threads() {
	local i
	[ -x /tmp/threads ] || helper threads /tmp/threads || return 1
	/tmp/threads "$1" "$2" >"/tmp/threads.$2.out" 2>&1 &
	TP=$!
	for i in $(seq 1 600); do
		grep -q '^ready' "/tmp/threads.$2.out" && return 0
		sleep 0.1
	done
	echo "  threads helper not ready: $(cat "/tmp/threads.$2.out")"
	return 1
}
clamps_of_threads() {
	uclampset -a -p "$1" | sed -E 's/.*min: ([0-9]+) max: ([0-9]+).*/\1 \2/' | sort | uniq -c |
		awk '{ print $1, $2, $3 }'
}
rof() { if chrt -p "$1" | grep -q 'SCHED_RESET_ON_FORK'; then echo yes; else echo no; fi; }
