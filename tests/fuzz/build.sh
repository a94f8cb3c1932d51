#!/bin/bash
# Build the libFuzzer targets (make fuzz): the library sources and each
# tests/fuzz/fuzz_NAME.c compiled with -fsanitize=fuzzer,address,undefined.
#
# usage: tests/fuzz/build.sh OUTDIR NAME...
# environment (make fuzz sets them from Makefile.am):
#   FUZZ_CC        a compiler with libFuzzer (default clang)
#   FUZZ_SRCDIR    the source tree (default: two levels up from here)
#   FUZZ_CPPFLAGS  include paths and defines of the library build
#   FUZZ_LIB_SRCS  the library's .c files and its test seams (built with
#                  -DUC_TEST_SEAMS), relative to FUZZ_SRCDIR
#   FUZZ_LIBS      the libraries libuclamp links with
# Objects are rebuilt when a source or any header is newer than them.
# A listed target whose source is missing is skipped with a warning (the
# config parser's target comes from another branch); anything else that
# fails stops the build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${FUZZ_SRCDIR:-$(cd "$here/../.." && pwd)}
cc=${FUZZ_CC:-clang}
out=${1:?usage: build.sh OUTDIR NAME...}
shift
mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined)
read -ra cppflags <<<"${FUZZ_CPPFLAGS:-}"
read -ra libs <<<"${FUZZ_LIBS:-}"
read -ra lib_srcs <<<"${FUZZ_LIB_SRCS:?FUZZ_LIB_SRCS: the library sources}"

command -v "$cc" >/dev/null || { echo "fuzz: no $cc (apt-get install clang libclang-rt-dev, or make fuzz FUZZ_CC=...)" >&2; exit 1; }
probe=$out/obj/probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n > 1 && d[0] == 1; }\n' >"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" 2>"$probe.log"; then
	cat "$probe.log" >&2
	echo "fuzz: $cc cannot build libFuzzer targets (-fsanitize=fuzzer); use clang with its runtime (apt-get install clang libclang-rt-dev)" >&2
	exit 1
fi

newest_header=$(find "$src/include" "$src/src" "$here" -name '*.h' -printf '%T@\n' | sort -n | tail -n 1)
stale() {	# OBJ SRC: rebuild when the object is older than its source or any header
	[ ! -f "$1" ] && return 0
	[ "$2" -nt "$1" ] && return 0
	[ "$(stat -c %Y "$1")" -lt "${newest_header%.*}" ]
}
compile() {	# OBJ SRC [extra flags]
	local obj=$1 c=$2
	shift 2
	stale "$obj" "$c" || return 0
	echo "  FUZZCC   ${c#"$src"/}"
	"$cc" "${flags[@]}" -fsanitize=fuzzer-no-link "${cppflags[@]}" "$@" -c "$c" -o "$obj"
}

objs=()
for s in "${lib_srcs[@]}" tests/fuzz/fuzz_root.c; do
	o=$out/obj/$(basename "$s" .c).o
	compile "$o" "$src/$s" -DUC_TEST_SEAMS -I"$here" '-DSYSCONFDIR="/nonexistent"'
	objs+=("$o")
done
built=0
for name in "$@"; do
	c=$src/tests/fuzz/fuzz_$name.c
	if [ ! -f "$c" ]; then
		echo "fuzz: WARNING: $c missing: target '$name' not built" >&2
		continue
	fi
	compile "$out/obj/fuzz_$name.o" "$c" -DUC_TEST_SEAMS -I"$here"
	echo "  FUZZLD   fuzz_$name"
	"$cc" "${flags[@]}" -fsanitize=fuzzer "$out/obj/fuzz_$name.o" "${objs[@]}" "${libs[@]}" -o "$out/fuzz_$name"
	built=$((built + 1))
done
echo "fuzz: $built target(s) in $out"
