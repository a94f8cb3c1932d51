#!/bin/bash
# ssdt.sh CPUS OUT: compile, into OUT (an .aml file), an ACPI SSDT that gives
# each CPU of a qemu "pc" guest with CPUS vCPUs the P-states of the cpufreq
# scenarios, so that the guest's acpi-cpufreq binds (run-vm.sh -p passes it
# with -acpitable). Needs iasl (Debian: acpica-tools; installed here when
# missing and running as root, as run-vm.sh does for qemu).
#
# What the guest kernel sees, and why:
#  - CPUs: qemu's DSDT names them \_SB.CPUS.C000, C001, ... (3 hex digits);
#    the table must name exactly those (a Scope on a missing object makes the
#    whole table fail), so it is made for the guest's CPU count.
#  - _PSS: 8 P-states, 3000 2700 2400 2100 1800 1500 1200 800 MHz (control
#    and status value = index), the table cpufreq and the scenarios see.
#  - _PCT: 32-bit SystemIO control and status registers at ports 0xa00 and
#    0xa04, which no qemu "pc" device decodes: writes vanish, reads give all
#    ones, so the guest must not boot with acpi_pstate_strict=1.
#  - _PSD: one coordination domain per CPU: a cpufreq policy per CPU, each
#    switched on its own by schedutil (fast switching).
# It must be there at boot: acpi-cpufreq's device is created only if the
# first CPU has _PCT when the processor driver enumerates it.
set -euo pipefail
n=${1:?usage: ssdt.sh CPUS OUT.aml}
out=${2:?usage: ssdt.sh CPUS OUT.aml}
[[ $n =~ ^[1-9][0-9]?$ ]] || { echo "ssdt.sh: '$n': give a CPU count from 1 to 99" >&2; exit 2; }
mhz=(3000 2700 2400 2100 1800 1500 1200 800)

if ! command -v iasl >/dev/null && [ "$(id -u)" = 0 ]; then
	echo "ssdt.sh: installing acpica-tools (iasl) with apt-get" >&2
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends acpica-tools ||
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends acpica-tools; }
	} >&2
fi
command -v iasl >/dev/null || { echo "ssdt.sh: iasl not found (apt-get install acpica-tools)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ssdt.XXXXXX")
trap 'rm -rf "$work"' EXIT
{
	echo "DefinitionBlock (\"\", \"SSDT\", 2, \"UCLAMP\", \"PSTATES\", 1)"
	echo "{"
	for ((c = 0; c < n; c++)); do printf '    External (\\_SB.CPUS.C%03X, ProcessorObj)\n' "$c"; done
	for ((c = 0; c < n; c++)); do
		printf '    Scope (\\_SB.CPUS.C%03X)\n    {\n' "$c"
		echo "        Name (_PCT, Package (2) {"
		echo "            ResourceTemplate () { Register (SystemIO, 32, 0, 0x0A00, ,) },"
		echo "            ResourceTemplate () { Register (SystemIO, 32, 0, 0x0A04, ,) } })"
		printf '        Name (_PSS, Package (%d) {\n' "${#mhz[@]}"
		for i in "${!mhz[@]}"; do
			# MHz, power (mW), latency and bus-master latency (us), control, status
			printf '            Package (6) { %d, %d, 10, 10, %d, %d }%s\n' "${mhz[i]}" \
				$((mhz[i] * 10)) "$i" "$i" "$( ((i + 1 < ${#mhz[@]})) && echo ,)"
		done
		echo "        })"
		# NumEntries 5, revision 0, domain = the CPU, SW_ALL (0xfc), 1 processor
		printf '        Name (_PSD, Package (1) { Package (5) { 5, 0, %d, 0xFC, 1 } })\n' "$c"
		echo "    }"
	done
	echo "}"
} >"$work/pstates.asl"
if ! (cd "$work" && iasl -p pstates pstates.asl >iasl.log 2>&1); then
	cat "$work/iasl.log" >&2
	exit 1
fi
mv "$work/pstates.aml" "$out"
