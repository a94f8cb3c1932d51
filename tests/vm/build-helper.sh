#!/bin/sh
# build-helper.sh NAME OUT: build the VM test helper tests/vm/helpers/NAME.c
# as OUT: a program, or for NAME.so (stopat.c) a shared object for
# LD_PRELOAD. The one place that knows how: run.sh builds every helper with
# it on the host, lib.sh's 'helper' in a guest when run.sh's copies are missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: build-helper.sh NAME OUT}
out=${2:?usage: build-helper.sh NAME OUT}
case $name in
*.so) exec gcc -O2 -shared -fPIC -o "$out" "$here/helpers/${name%.so}.c" -ldl ;;
*) exec gcc -O2 -pthread -o "$out" "$here/helpers/$name.c" ;;
esac
