# Sourced by bench/run.sh: a cgroup tree to measure, and its removal.
#
#   cgtree_build DIR N LEVELS      N groups below DIR (which it creates), LEVELS deep,
#                                  breadth-first with a fan-out of 5 (2,000 in 5 levels:
#                                  5, 25, 125, 625, then 1,220 on the fifth); cgroup v2:
#                                  +cpu in the subtree_control of DIR and every inner group
#   cgtree_set_and_conf MOUNT REL K CONF
#                                  give K of the groups below MOUNT/REL (spread over the
#                                  levels) their own clamps and write CONF, an apply
#                                  config with those same K [cgroup] sections
#   cgtree_remove DIR              remove DIR and everything below it
CGTREE=()
cgtree_build() {
	local dir=$1 n=$2 levels=$3 q=("") next i p c depth=0
	CGTREE=()
	while [ ${#CGTREE[@]} -lt "$n" ] && [ $depth -lt "$levels" ]; do
		next=()
		for p in "${q[@]}"; do
			for c in 0 1 2 3 4; do
				[ ${#CGTREE[@]} -ge "$n" ] && break 2
				CGTREE+=("${p:+$p/}g$c")
				next+=("${p:+$p/}g$c")
			done
		done
		q=("${next[@]}")
		depth=$((depth + 1))
	done
	mkdir "$dir" || return 1
	(cd "$dir" && mkdir "${CGTREE[@]}") || return 1	# parents come first
	[ -e "$dir/cgroup.subtree_control" ] || return 0	# v1: cpu everywhere
	echo +cpu >"$dir/cgroup.subtree_control" || return 1
	for p in "${CGTREE[@]}"; do
		[ -d "$dir/$p/g0" ] || continue
		echo +cpu >"$dir/$p/cgroup.subtree_control" || return 1
	done
}
cgtree_set_and_conf() {
	local mnt=$1 rel=$2 k=$3 conf=$4 step i j=0 p mn mx
	step=$((${#CGTREE[@]} / k))
	[ "$step" -ge 1 ] || return 1
	: >"$conf"
	for ((i = 0; i < ${#CGTREE[@]} && j < k; i += step, j++)); do
		p=$rel/${CGTREE[$i]}
		mn=$((j % 40 + 1))
		mx=$((j % 40 + 50))
		echo "$mn" >"$mnt/$p/cpu.uclamp.min" && echo "$mx" >"$mnt/$p/cpu.uclamp.max" || return 1
		printf '[cgroup %s]\nmin = %d%%\nmax = %d%%\n\n' "$p" "$mn" "$mx" >>"$conf"
	done
}
cgtree_remove() { find "$1" -depth -type d -exec rmdir {} + 2>/dev/null || true; }
