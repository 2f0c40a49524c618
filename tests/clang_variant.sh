#!/bin/sh
# Builds the kernel, bit-exact (masks and block options too), model, blob, int8 and hostile-input
# tests with clang++ (another compiler's code generation and contraction rules; CMake adds the
# sanitizers) and runs them against the baseline reference outputs, with a sparser sweep of the
# approximations. PyTorch parity runs in the GCC variants (PARITY in tests/CMakeLists.txt).
# -O0: sanitized code at -O1 took clang over 10 minutes to build on 2 cores. Two compilers at once.
#   clang_variant.sh CLANG REPO_ROOT SCRATCH_DIR REFERENCE_DIR GOLDEN_DIR FLAGS...
set -eu
clang=$1 root=$2 scratch=$3 refdir=$4 goldendir=$5
shift 5
mkdir -p "$scratch"
rm -f "$scratch"/*.o  # the objects of this list only
t=$root/tests
export clang root scratch
export flags="$*"
for f in encoder_test mask_test model_test int8_test hostile_test test_main kernels_test approx_test fp16_test blob_test \
    int8_kernels_test; do echo "$f"; done |
    xargs -P 2 -I{} sh -c '"$clang" -std=c++17 -O0 -Wall -Wextra -Werror -fno-exceptions -fno-rtti $flags \
        -DSFTEST_SWEEP_STEP=1009 -I"$root/include" -I"$root/tests" -c "$root/tests/{}.cpp" -o "$scratch/{}.o"'
"$clang" "$@" "$scratch"/*.o -o "$scratch/clang_tests" -lgtest -lpthread
exec "$scratch/clang_tests" \
    --gtest_filter='Kernels.*:Approx.*:Encoder*:Fp16*:Model*:Blob.*:FixedPoint.*:Int8*:A16w8*:Hostile*' \
    --reference-dir="$refdir" --golden-dir="$goldendir"
