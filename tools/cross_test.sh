#!/usr/bin/env bash
# make cross-test: every port (CMakePresets.json) cross-built, its tests run under QEMU against
# the committed reference outputs; the digits models; the Cortex-M port bring-up and kernel port
# tests at the debug levels and with the assembly's C++ twins.
#   cross_test.sh JOBS BUILD_DIR "CROSS_FLAGS" [--fuzz SECONDS] TARGET...
# Two chains run at once, the Linux targets (then the digits models) and the Cortex-M cores
# (then their port tests): a firmware image is one translation unit and an emulated run one
# thread, so one chain alone leaves a core idle for long stretches. --fuzz (make test) adds a
# third, fuzz/run.sh SECONDS in BUILD_DIR/fuzz. Each chain writes its log to
# BUILD_DIR/cross-<chain>.log, printed whole when all have ended; the exit status is nonzero if
# any failed, and a failing chain's last lines are repeated at the end.
set -uo pipefail
jobs=$1 build=$2 flags=$3
shift 3
fuzz_seconds=
if [ "${1:-}" = --fuzz ]; then
    fuzz_seconds=$2
    shift 2
fi
linux=() cortex=()
for t in "$@"; do
    case $t in cortex-m*) cortex+=("$t") ;; *) linux+=("$t") ;; esac
done
# The Cortex-M kernels' port tests, also built at -Og, -O1, -O0 and with STATICFORMER_NO_ASM.
port_kernel_tests=(linear_shapes softmax_rows attention_rows layer_norm_stats stream_kernels)

preset() {  # configure, build and run one preset's tests
    echo "=== $1 $(date +%T) ==="
    # shellcheck disable=SC2086  # CROSS_FLAGS: words
    cmake --preset "$1" $flags >/dev/null && cmake --build --preset "$1" -j "$jobs" && ctest --preset "$1" -j "$jobs"
}

port() {  # the port tests of core $1 in build dir $2, with extra configure arguments and a target list
    local core=$1 dir=$2 release_flags=$3
    shift 3
    cmake -S ports/cortex-m -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/ports/cortex-m/toolchain-$core.cmake" \
        ${release_flags:+"-DCMAKE_CXX_FLAGS_RELEASE=$release_flags"} >/dev/null &&
        cmake --build "$dir" -j "$jobs" "$@" >/dev/null
}

linux_chain() {
    for t in ${linux[@]+"${linux[@]}"}; do preset "$t" || return 1; done
    echo "=== digits_classifier: the trained models on the host, Cortex-M4 and Cortex-M55 $(date +%T) ==="
    /usr/bin/python3 tools/digits_accuracy.py --build "$build/digits"
}

cortex_chain() {
    for t in ${cortex[@]+"${cortex[@]}"}; do preset "$t" || return 1; done
    for t in cortex-m3 cortex-m4 cortex-m7 cortex-m55; do
        echo "=== $t port bring-up (startup, exit codes, faults, instruction counter) $(date +%T) ==="
        port "$t" "$build/cross/$t-port" "" && (cd "$build/cross/$t-port" && ctest --output-on-failure -j "$jobs") ||
            return 1
    done
    local pattern targets=()
    pattern=$(IFS='|'; echo "${port_kernel_tests[*]}")
    for k in "${port_kernel_tests[@]}"; do targets+=(--target "sf_port_$k"); done
    for c in cortex-m4:-Og cortex-m55:-O1 cortex-m4:-O0 cortex-m55:-O0 cortex-m4:-O2+-DSTATICFORMER_NO_ASM \
        cortex-m55:-O2+-DSTATICFORMER_NO_ASM; do
        local t=${c%%:*} d=${c#*:}
        local o=${d//+/ }
        echo "=== $t: the Cortex-M kernels' port tests with $o (debug levels; the assembly's C++ twins) $(date +%T) ==="
        port "$t" "$build/cross/$t-port$d" "$o" "${targets[@]}" &&
            (cd "$build/cross/$t-port$d" && ctest --output-on-failure -j "$jobs" -R "$pattern") || return 1
    done
}

fuzz_chain() {
    echo "=== fuzz-test $(date +%T)"
    bash fuzz/run.sh "$fuzz_seconds" "$build/fuzz"
}

mkdir -p "$build"
chains=(linux cortex-m)
[ -z "$fuzz_seconds" ] || chains+=(fuzz)
pids=()
for chain in "${chains[@]}"; do
    case $chain in linux) linux_chain ;; cortex-m) cortex_chain ;; fuzz) fuzz_chain ;; esac >"$build/cross-$chain.log" 2>&1 &
    pids+=($!)
done
failed=()
for i in "${!chains[@]}"; do
    wait "${pids[$i]}" || failed+=("${chains[$i]}")
done
for chain in "${chains[@]}"; do
    echo "=== cross-test, $chain chain (log: $build/cross-$chain.log) ==="
    cat "$build/cross-$chain.log"
done
for chain in ${failed[@]+"${failed[@]}"}; do
    echo "=== cross-test FAILED in the $chain chain; its last lines:"
    tail -n 40 "$build/cross-$chain.log"
done
[ ${#failed[@]} -eq 0 ]
