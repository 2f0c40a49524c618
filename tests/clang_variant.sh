#!/bin/sh
# Builds the kernel, bit-exact and model tests with clang++ (another compiler's code generation and
# contraction rules) and runs them against the baseline reference outputs.
#   clang_variant.sh CLANG REPO_ROOT SCRATCH_DIR REFERENCE_DIR FLAGS...
set -eu
clang=$1 root=$2 scratch=$3 refdir=$4
shift 4
mkdir -p "$scratch"
t=$root/tests
"$clang" -std=c++17 -O2 -Wall -Wextra -Werror -fno-exceptions -fno-rtti "$@" -I"$root/include" -I"$t" \
    "$t/test_main.cpp" "$t/kernels_test.cpp" "$t/approx_test.cpp" "$t/encoder_test.cpp" "$t/fp16_test.cpp" \
    "$t/model_test.cpp" \
    -o "$scratch/clang_tests" -lgtest -lpthread
exec "$scratch/clang_tests" --gtest_filter='Kernels.*:Approx.*:Encoder*:Fp16*:Model*' --reference-dir="$refdir"
