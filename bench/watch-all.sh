#!/bin/bash
# All the watch benchmarks in one VM boot (bench/README.md).
d=$(dirname "$0")
rc=0
for b in watch-latency watch-storm watch-idle watch-rss; do
	echo "=== $b"
	bash "$d/$b.sh" || rc=1
done
exit $rc
