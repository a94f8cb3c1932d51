# Sourced by the task-eff* scenarios after lib.sh and helpers/task.sh: is
# 'task show' EFF_MIN/EFF_MAX (computed by the kernel's rule, src/lib/
# effective.c) equal to what /proc/PID/task/TID/sched shows, for every task?
#
#   eff_group REL MIN MAX     mkdir $CG/REL, write its cpu.uclamp.min/max
#   eff_tasks REL             7 sleepers in $CG/REL: fair with no clamp, min 300,
#                             max 200, 600..900; RT (FIFO 10) with the RT default,
#                             min 100, 200..500
#   eff_sysctls MIN MAX RT    kernel.sched_util_clamp_min/max/min_rt_default
#   eff_compare WHAT          every task of the system, tool vs /proc: one check
#   eff_compare_changes       eff_compare at the defaults, then after each change: system
#                             min/max, the RT default, a's and lo's max (groups of eff_group)
#   eff_kill                  end the sleepers
EFF_PIDS=()
eff_group() {
	mkdir -p "$CG/$1"
	echo "$2" >"$CG/$1/cpu.uclamp.min" && echo "$3" >"$CG/$1/cpu.uclamp.max"
}
_eff_one() {	# REL POLICY-ARGS -- UCLAMPSET-ARGS
	local rel=$1 p
	shift
	if [ "$1" = rt ]; then chrt -f 10 sleep 900 & p=$!; else sleep 900 & p=$!; fi
	shift
	EFF_PIDS+=("$p")
	echo "$p" >"$CG/${rel:+$rel/}cgroup.procs" || return 1
	[ $# = 0 ] || uclampset "$@" -p "$p" >/dev/null || return 1
}
eff_tasks() {
	_eff_one "$1" fair && _eff_one "$1" fair -m 300 && _eff_one "$1" fair -M 200 &&
		_eff_one "$1" fair -m 600 -M 900 && _eff_one "$1" rt && _eff_one "$1" rt -m 100 &&
		_eff_one "$1" rt -m 200 -M 500
}
eff_sysctls() {
	local k=/proc/sys/kernel/sched_util_clamp
	# keep min <= max after every write (the kernel refuses and undoes otherwise)
	if [ "$1" -le "$(cat ${k}_max)" ]; then
		echo "$1" >${k}_min && echo "$2" >${k}_max
	else
		echo "$2" >${k}_max && echo "$1" >${k}_min
	fi && echo "$3" >${k}_min_rt_default
}
eff_compare() {
	local what=$1 proc tool bad n
	# one grep over every task's file (a task that exits meanwhile is only
	# missing: grep goes on), not an awk per task: 100+ programs per
	# comparison under TCG took a minute of the scenario
	proc=$(grep -H '^effective uclamp\.m' /proc/[0-9]*/task/[0-9]*/sched 2>/dev/null |
		awk -F: '{ split($1, p, "/"); t = p[5]; gsub(/ /, "", $3) }
			$2 ~ /^effective uclamp\.min/ { mn[t] = $3 }
			$2 ~ /^effective uclamp\.max/ && (t in mn) { print t, mn[t], $3 }' | sort)
	run uclampctl -v task show --all --kernel-threads -a -o TID,EFF_MIN,EFF_MAX -r -n
	tool=$(printf '%s\n' "$OUT" | grep -E '^[0-9]+ [0-9]+ [0-9]+$' | sort)
	# tasks in both lists (the shell's helpers come and go)
	bad=$(join <(printf '%s\n' "$proc") <(printf '%s\n' "$tool") | awk '$2 != $4 || $3 != $5')
	n=$(join <(printf '%s\n' "$proc") <(printf '%s\n' "$tool") | wc -l)
	[ -n "$bad" ] && printf '%s\n' "$bad" | head -20 | sed 's/^/    differs (tid proc-min proc-max tool-min tool-max): /'
	check "$what: tool = /proc/PID/sched for all $n tasks" test -z "$bad" -a "$n" -gt 50
	check "$what: every value from the rule, none from /proc" _eff_all_rule
}
_eff_all_rule() {
	printf '%s\n' "$OUT" | grep -q "the kernel's rule" && ! printf '%s\n' "$OUT" | grep -q 'TID/sched ('
}
eff_compare_changes() {
	eff_compare "defaults"
	eff_sysctls 400 700 1024
	eff_compare "system min 400, max 700"
	eff_sysctls 400 700 300
	eff_compare "system 400/700, RT default 300"
	eff_sysctls 1024 1024 600
	echo 60 >"$CG/a/cpu.uclamp.max"
	echo max >"$CG/lo/cpu.uclamp.max"
	eff_compare "RT default 600, a's max and lo's max changed"
}
eff_kill() { kill "${EFF_PIDS[@]}" 2>/dev/null; EFF_PIDS=(); }
