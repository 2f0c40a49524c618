#!/bin/sh
# Builds the determinism and reentrancy tests with clang++ -fsanitize=thread and runs them: any
# data race between two encoders, models or calibrators used at once, or between the workers of
# one split pass, fails the test (exit 66). REENTRANCY_RACES_ONLY: the split passes on fewer cases.
#   reentrancy_tsan.sh CLANG REPO_ROOT SCRATCH_DIR FLAGS...
set -eu
clang=$1 root=$2 scratch=$3
shift 3
mkdir -p "$scratch"
t=$root/tests
"$clang" -std=c++17 -O1 -gline-tables-only -fsanitize=thread -Wall -Wextra -Werror -fno-exceptions -fno-rtti -DREENTRANCY_RACES_ONLY "$@" -I"$root/include" \
    -I"$t" "$t/test_main.cpp" "$t/reentrancy_test.cpp" -o "$scratch/reentrancy_tsan" -lgtest -lpthread
exec "$scratch/reentrancy_tsan" --gtest_filter='Reentrancy*'
