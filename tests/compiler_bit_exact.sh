#!/bin/sh
# The bit-exact suites (encoder and int8: every backend of the build against the committed
# reference outputs, memcmp) built by one more compiler at -O2, the level firmware uses: the
# compiler matrix of the README (Makefile COMPILER_PACKAGES installs them). Two files at once.
# Exit 77 (ctest: skipped) when the compiler is not installed.
#   compiler_bit_exact.sh CXX REPO_ROOT SCRATCH_DIR REFERENCE_DIR FLAGS...
set -eu
cxx=$1 root=$2 scratch=$3 refdir=$4
shift 4
if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "SKIPPED: $cxx is not installed (make test installs it)"
    exit 77
fi
"$cxx" --version | head -n 1
mkdir -p "$scratch"
export cxx root scratch
export flags="$*"
printf '%s\n' test_main encoder_test int8_test |
    xargs -P 2 -I{} sh -c '"$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -fno-exceptions -fno-rtti $flags \
        -I"$root/include" -I"$root/tests" -c "$root/tests/{}.cpp" -o "$scratch/{}.o"'
"$cxx" "$scratch/test_main.o" "$scratch/encoder_test.o" "$scratch/int8_test.o" -o "$scratch/tests" -lgtest -lpthread
exec "$scratch/tests" --gtest_filter='Encoder*:FixedPoint.*:Int8*:A16w8*' --reference-dir="$refdir"
