# Sourced by the cpufreq scenarios (a "# vm-cpufreq:" guest, after lib.sh):
# judge a clamp by the P-state CPU 1 then holds, the way LISA's UtilClamp
# test judges one (from the task's second wake-up after the clamp on, as a
# share of a window, not single reads), from stats/time_in_state deltas.
# Shell builtins only while measuring: under TCG every exec costs ~0.3 s.
#
#   cf_setup                 the guest has P-states on CPU 1: policy1 with
#                            acpi-cpufreq (checks), a sleep that is a builtin;
#                            the scenario (uclampctl included) moves to CPU 0,
#                            so that CPU 1's util is the load's alone
#   cf_nap SECONDS           sleep without an exec
#   cf_load BUSY_US PERIOD_US   start helpers/cfload on CPU 1 (CF_PID), counting
#                            its wake-ups in $CF_COUNT
#   cf_wakeups N             wait (up to 5 s) for N more wake-ups of the load
#   cf_window SECONDS        time in each P-state over the window: CF_DOM (MHz
#                            held longest), CF_SHARE (its % of the window),
#                            CF_AT[MHz] (% at each), CF_SPREAD ("800:3% 1200:97%")
#   cf_step WHAT CLAMP       print the step's line for bench/README.md's table:
#                            "cpufreq-step: RELEASE | WHAT | CLAMP | MHz | share"
#   expect_held WHAT MHZ MIN%   fail unless MHZ held at least MIN% of the window
CF_POL=/sys/devices/system/cpu/cpufreq/policy1
CF_COUNT=/tmp/cfload.count
cf_setup() {
	local drv=
	[ -r "$CF_POL/scaling_driver" ] && read -r drv <"$CF_POL/scaling_driver"
	check "policy1 is acpi-cpufreq's (the P-state table was loaded)" test "$drv" = acpi-cpufreq
	check "policy1 has time_in_state (CPU_FREQ_STAT)" test -r "$CF_POL/stats/time_in_state"
	mkfifo /tmp/cf.nap && exec 8<>/tmp/cf.nap
	taskset -pc 0 $$ >/dev/null
	helper cfload /tmp/cfload
	CF_REL=$(uname -r)
}
cf_nap() { read -r -t "$1" -u 8 _ || :; }
cf_load() {
	/tmp/cfload 1 "$1" "$2" "$CF_COUNT" &
	CF_PID=$!
	cf_nap 0.2
}
_cf_count() { local n=0; [ -r "$CF_COUNT" ] && read -r n <"$CF_COUNT"; echo "${n:-0}"; }
cf_wakeups() {
	local start want i
	start=$(_cf_count)
	want=$((start + $1))
	for ((i = 0; i < 500; i++)); do
		(($(_cf_count) >= want)) && return 0
		cf_nap 0.01
	done
	echo "  (the load did not wake up $1 times in 5 s)"
}
_cf_tis() { local k t; while read -r k t; do printf '%s=%s ' "$k" "$t"; done <"$CF_POL/stats/time_in_state"; }
cf_window() {
	local a b kv k total=0 best=0 d
	declare -A t0=()
	a=$(_cf_tis)
	cf_nap "$1"
	b=$(_cf_tis)
	for kv in $a; do t0[${kv%=*}]=${kv#*=}; done
	declare -gA CF_AT=()
	declare -A dt=()
	for kv in $b; do
		k=${kv%=*}
		d=$((${kv#*=} - ${t0[$k]:-0}))
		dt[$k]=$d
		total=$((total + d))
	done
	CF_SPREAD= CF_DOM=0 CF_SHARE=0
	((total > 0)) || { echo "  window: no time counted"; return; }
	for k in $(printf '%s\n' "${!dt[@]}" | sort -n); do
		CF_AT[$((k / 1000))]=$((100 * dt[$k] / total))
		((dt[$k] > 0)) && CF_SPREAD+="$((k / 1000)):$((100 * dt[$k] / total))% "
		((dt[$k] > best)) && best=${dt[$k]} CF_DOM=$((k / 1000))
	done
	CF_SHARE=$((100 * best / total))
	echo "  window ${1} s (${total}0 ms counted): ${CF_SPREAD}-> ${CF_DOM} MHz ${CF_SHARE}%"
}
cf_step() { echo "cpufreq-step: $CF_REL | $1 | $2 | $CF_DOM | $CF_SHARE%"; }
expect_held() {
	local at=${CF_AT[$2]:-0}
	check "$1: $2 MHz held $at% of the window (at least $3%)" test "$at" -ge "$3"
}
