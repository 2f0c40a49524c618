#!/bin/sh
# Builds the kernel, bit-exact, model, blob, int8, hostile-input and PyTorch parity tests with
# clang++ (another compiler's code generation and contraction rules; CMake adds the sanitizers)
# and runs them against the baseline reference outputs and the goldens, with a sparser sweep of
# the approximations. -O0: sanitized code at -O1 took clang over 10 minutes to build on 2 cores.
# Two compilers at once.
#   clang_variant.sh CLANG REPO_ROOT SCRATCH_DIR REFERENCE_DIR GOLDEN_DIR FLAGS...
set -eu
clang=$1 root=$2 scratch=$3 refdir=$4 goldendir=$5
shift 5
mkdir -p "$scratch"
t=$root/tests
export clang root scratch
export flags="$*"
for f in parity_test model_parity_test test_main kernels_test approx_test encoder_test fp16_test model_test blob_test \
    int8_test int8_kernels_test hostile_test; do echo "$f"; done |
    xargs -P 2 -I{} sh -c '"$clang" -std=c++17 -O0 -Wall -Wextra -Werror -fno-exceptions -fno-rtti $flags \
        -DSFTEST_SWEEP_STEP=1009 -I"$root/include" -I"$root/tests" -c "$root/tests/{}.cpp" -o "$scratch/{}.o"'
"$clang" "$@" "$scratch"/*.o -o "$scratch/clang_tests" -lgtest -lpthread
exec "$scratch/clang_tests" \
    --gtest_filter='Kernels.*:Approx.*:Encoder*:Fp16*:Model*:Blob.*:FixedPoint.*:Int8*:Hostile*:Parity*' \
    --reference-dir="$refdir" --golden-dir="$goldendir"
