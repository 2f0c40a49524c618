#!/usr/bin/env bash
# Builds and runs the libFuzzer targets (fuzz/README.md).
#   fuzz/run.sh SECONDS_PER_TARGET [BUILD_DIR]      (BUILD_DIR: build/fuzz)
# Builds fuzz_f32, fuzz_f16, fuzz_int8, fuzz_a16w8 (fuzz_target.cpp once per precision) and make_seeds with
# clang++ under ASan + UBSan, copies fuzz/corpus into BUILD_DIR, runs every target for
# SECONDS_PER_TARGET seconds (FUZZ_JOBS of them at once, default: one per core) and prints one
# line per target. Exits 1 if a target crashed, leaked, timed out or ran out of memory: its
# reproducer is in BUILD_DIR/artifacts/<target>/. Writes nothing outside BUILD_DIR.
# Environment: FUZZ_MARCH (default x86-64-v3: AVX2 + FMA, the simd backend's AVX2 kernels; e.g.
# x86-64-v4 for the AVX-512 ones), FUZZ_JOBS, FUZZ_FLAGS (more compiler flags).
set -euo pipefail

# All of it in one function, read whole before it runs: editing this file mid-run is harmless.
main() {
if [ $# -lt 1 ] || [ $# -gt 2 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
    echo "usage: fuzz/run.sh SECONDS_PER_TARGET [BUILD_DIR]" >&2
    exit 2
fi
seconds=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build/fuzz}
mkdir -p "$build"
build=$(cd "$build" && pwd)
targets=(fuzz_f32 fuzz_f16 fuzz_int8 fuzz_a16w8)

# ---- tools: clang++, its fuzzer runtime, xsimd (without it there is no simd backend to compare)
sudo_prefix=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo ")
apt_line="${sudo_prefix}apt-get install -y --no-install-recommends clang libclang-rt-14-dev libxsimd-dev"
missing() {
    echo "fuzz/run.sh: $1; install with:" >&2
    echo "$apt_line" >&2
    exit 1
}
cxx=
for c in clang++ clang++-14 clang++-15 clang++-16; do
    if command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
done
[ -n "$cxx" ] || missing "clang++ not found"
probe=$build/probe
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe.cpp"
"$cxx" -fsanitize=fuzzer,address,undefined "$probe.cpp" -o "$probe" >/dev/null 2>&1 ||
    missing "$cxx cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing: libclang-rt-14-dev)"
printf '#include <xsimd/xsimd.hpp>\n' | "$cxx" -std=c++17 -x c++ -fsyntax-only - >/dev/null 2>&1 ||
    missing "xsimd headers not found (the simd backend needs them)"

# ---- flags. The simd backend needs AVX2 + FMA on x86-64; without them the targets compare the
# reference with itself (they still run ASan and UBSan over every load and forward).
march=()
if [ "$(uname -m)" = x86_64 ]; then
    if [ -n "${FUZZ_MARCH:-}" ]; then
        march=(-march="$FUZZ_MARCH")
    elif grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
        march=(-march=x86-64-v3)
    else
        echo "fuzz/run.sh: note: this CPU lacks AVX2/FMA: built without -march, so no simd backend;" \
            "reference is compared with reference" >&2
    fi
fi
# -gline-tables-only: the same symbolised stacks as -g, 20% less build time.
# -fno-sanitize=pointer-overflow: UBSan's pointer-overflow check alone costs 65% more build time;
# ASan already catches pointers that leave their buffers.
flags=(-std=c++17 -O1 -gline-tables-only -fsanitize=fuzzer,address,undefined -fno-sanitize=pointer-overflow
    -fno-sanitize-recover=all "${march[@]}" -I"$root/include" ${FUZZ_FLAGS:-})
# make_seeds: no sanitizers, -O0 (2 s to build; it writes the same bytes at any level).
seed_flags=(-std=c++17 -O0 -I"$root/include" -I"$root/tests")

# ---- build (skipped when the binary is newer than every source it reads and the flags are unchanged)
stale() {  # stale BINARY FLAGS...: true if BINARY must be rebuilt
    local bin=$1
    shift
    [ -x "$bin" ] && [ "$(cat "$bin.flags" 2>/dev/null)" = "$*" ] || return 0
    [ -n "$(find "$root/include" "$root/fuzz" "$root/tests/common" -newer "$bin" \( -name '*.hpp' -o -name '*.cpp' \) -print -quit)" ]
}
compile() {  # compile BINARY SOURCE FLAGS...
    local bin=$1 src=$2
    shift 2
    if stale "$bin" "$@"; then
        "$cxx" "$@" "$src" -o "$bin.tmp" && mv "$bin.tmp" "$bin" && echo "$*" >"$bin.flags"
    fi
}
start=$(date +%s)
pids=()
for t in "${targets[@]}"; do
    compile "$build/$t" "$root/fuzz/fuzz_target.cpp" "${flags[@]}" -DSFFUZZ_PRECISION="${t#fuzz_}" &
    pids+=($!)
done
compile "$build/make_seeds" "$root/fuzz/make_seeds.cpp" "${seed_flags[@]}" &
pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { echo "fuzz/run.sh: build failed" >&2; exit 1; }; done
echo "fuzz/run.sh: built in $(($(date +%s) - start)) s with $cxx ${march[*]:-(no -march)}"

# ---- corpus: the committed one, copied; fresh seeds beside it (read only) tell if it is stale
rm -rf "$build/corpus" "$build/seeds" "$build/artifacts" "$build/logs"
mkdir -p "$build/logs"
cp -R "$root/fuzz/corpus" "$build/corpus"
for t in "${targets[@]}"; do mkdir -p "$build/seeds/$t" "$build/artifacts/$t" "$build/corpus/$t"; done
"$build/make_seeds" "$build/seeds"
if ! diff -rq "$build/seeds" "$root/fuzz/corpus" >/dev/null 2>&1; then
    echo "fuzz/run.sh: note: fuzz/corpus differs from make_seeds' output (blob format or weights changed?);" \
        "refresh it with: $build/make_seeds fuzz/corpus" >&2
fi

# ---- run: FUZZ_JOBS targets at a time
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
run_target() {
    local t=$1 rc=0
    # -timeout: a small encoder pass takes microseconds, 10 s means a hang; -rss_limit_mb: the
    # targets peak near 400 MB (ASan's quarantine), 2 GB means a leak; -max_len: seeds are <= 5.4 KB;
    # -dict: edge values (zero points, shifts, NaN, ...) a random mutation seldom writes.
    "$build/$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -dict="$root/fuzz/sffuzz.dict" -artifact_prefix="$build/artifacts/$t/" "$build/corpus/$t" "$build/seeds/$t" >"$build/logs/$t.log" 2>&1 || rc=$?
    echo "$rc" >"$build/logs/$t.rc"
}
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
    run_target "$t" &
    running=$((running + 1))
done
wait

# ---- one line per target
failed=0
stat() { sed -n "s/^stat::$1: *//p" "$build/logs/$2.log" | head -n 1; }
for t in "${targets[@]}"; do
    rc=$(cat "$build/logs/$t.rc")
    what=$(sed -n 's/^sffuzz: backends: //p' "$build/logs/$t.log" | head -n 1)
    line="$t ($what): $(stat number_of_executed_units "$t") executions, $(stat average_exec_per_sec "$t") exec/s, $(stat new_units_added "$t") new units, peak RSS $(stat peak_rss_mb "$t") MB"
    if [ "$rc" = 0 ]; then
        echo "$line: ok"
    else
        failed=$((failed + 1))
        echo "$line: FAILED (exit $rc), reproducer: $(ls "$build/artifacts/$t"/* 2>/dev/null | tr '\n' ' ')"
        grep -v '^sffuzz: backends' "$build/logs/$t.log" | grep -E -m 4 'sffuzz:|ERROR: |runtime error' | sed 's/^/    /' || true
        echo "    log: $build/logs/$t.log"
    fi
done
echo "fuzz: $((${#targets[@]} - failed)) passed, $failed failed"
[ "$failed" = 0 ]
}

main "$@"
