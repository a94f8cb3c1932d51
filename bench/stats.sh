# Sourced: the numbers' helpers, for the scripts in the guest (lib.sh) and
# for fastpath-cost.sh's table on the host.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# ratio A B: A/B with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
