#!/bin/bash
# Print the path of the project's own uclamp kernel, building it first if it is
# not cached: tests/vm/build-kernel.sh (Debian linux-source-6.1 +
# tests/vm/kernel.config, which has PID namespaces for pidns-proc) into
# $UCLAMP_KERNEL_CACHE/<hash of kernel.config>/bzImage (default cache
# /var/tmp/uclampctl-kernel): a changed fragment is a new directory, so a
# stale kernel is never booted. ~5-10 min the first time (20 on a loaded
# 2-core machine), then cached. One build at a time per fragment (a lock):
# a second caller waits for the first one's kernel.
# Used by run.sh, and by .ci/run to start the build early, in the background.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${UCLAMP_KERNEL_CACHE:-/var/tmp/uclampctl-kernel}
kdir=$cache/$(sha256sum <"$here/kernel.config" | cut -c1-12)
kernel=$kdir/bzImage
if [ ! -f "$kernel" ]; then
	# its own work tree per fragment: two builds in one tree (another
	# fragment's .config) break each other
	mkdir -p "$kdir" && exec 9>"$kdir/.lock" && flock 9 ||
		{ echo "vm: cannot lock $kdir" >&2; exit 1; }
	if [ ! -f "$kernel" ]; then
		echo "vm: building the test kernel from Debian's linux-source-6.1 and" \
		     "tests/vm/kernel.config into $kdir (~5-10 min, once)" >&2
		"$here/build-kernel.sh" -w "$kdir/work" -o "$kernel" >&2 ||
			{ echo "vm: kernel build failed" >&2; exit 1; }
	fi
	exec 9>&-
fi
echo "$kernel"
