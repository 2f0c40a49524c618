#!/bin/sh
# Builds the kernel, bit-exact, model, blob, int8 and hostile-input tests with clang++ (another
# compiler's code generation and contraction rules; CMake adds the sanitizers) and runs them against
# the baseline reference outputs. -O1 and a sparser sweep of the approximations, as in the other
# instrumented build: sanitized code compiles and runs several times slower.
#   clang_variant.sh CLANG REPO_ROOT SCRATCH_DIR REFERENCE_DIR FLAGS...
set -eu
clang=$1 root=$2 scratch=$3 refdir=$4
shift 4
mkdir -p "$scratch"
t=$root/tests
"$clang" -std=c++17 -O1 -Wall -Wextra -Werror -fno-exceptions -fno-rtti "$@" -I"$root/include" -I"$t" \
    "$t/test_main.cpp" "$t/kernels_test.cpp" "$t/approx_test.cpp" "$t/encoder_test.cpp" "$t/fp16_test.cpp" \
    "$t/model_test.cpp" "$t/blob_test.cpp" "$t/int8_test.cpp" "$t/int8_kernels_test.cpp" "$t/hostile_test.cpp" \
    -DSFTEST_SWEEP_STEP=1009 -o "$scratch/clang_tests" -lgtest -lpthread
exec "$scratch/clang_tests" --gtest_filter='Kernels.*:Approx.*:Encoder*:Fp16*:Model*:Blob.*:FixedPoint.*:Int8*:Hostile*' \
    --reference-dir="$refdir"
