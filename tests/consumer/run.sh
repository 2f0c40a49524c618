#!/bin/sh
# Usage: run.sh MODE REPO SCRATCH CXX [CXXFLAGS]
#   MODE      subdirectory: the consumer does add_subdirectory(REPO)
#             package: REPO is installed into SCRATCH/prefix, the consumer does find_package
#   SCRATCH   a scratch directory, emptied first
#   CXXFLAGS  extra compiler flags for the consumer, or --toolchain=FILE: the consumer is then
#             cross-compiled with that CMake toolchain file and run under its emulator
# Configures, builds and runs the consumer in tests/consumer. Exits 77 (skipped) when CXX cannot
# compile and link a trivial program with CXXFLAGS (e.g. -m32 without 32-bit libraries).
set -eu

if [ $# -lt 4 ]; then
    echo "usage: $0 subdirectory|package REPO SCRATCH CXX [CXXFLAGS]" >&2
    exit 2
fi
mode=$1 repo=$2 scratch=$3 cxx=$4 flags=${5-}
here=$(cd "$(dirname "$0")" && pwd)
case $mode in
subdirectory | package) ;;
*) echo "unknown mode '$mode': use subdirectory or package" >&2; exit 2 ;;
esac

rm -rf "$scratch"
mkdir -p "$scratch"

toolchain=
case $flags in
--toolchain=*)
    toolchain=${flags#--toolchain=}
    flags=
    # The compiler and emulator the toolchain file names.
    cxx=$(sed -n 's/^set(CMAKE_CXX_COMPILER \(.*\))$/\1/p' "$toolchain")
    runner=$(sed -n 's/^set(CMAKE_CROSSCOMPILING_EMULATOR \(.*\))$/\1/p' "$toolchain")
    printf 'int main() { return 0; }\n' > "$scratch/probe.cpp"
    if ! "$cxx" "$scratch/probe.cpp" -o "$scratch/probe" > "$scratch/probe.log" 2>&1; then
        echo "SKIPPED: $cxx (from $toolchain) cannot build a trivial program:"
        cat "$scratch/probe.log"
        exit 77
    fi
    ;;
esac

if [ -n "$flags" ]; then
    printf '#include <cstdio>\nint main() { std::printf("ok\\n"); return 0; }\n' > "$scratch/probe.cpp"
    # shellcheck disable=SC2086  # $flags is a list of flags
    if ! "$cxx" $flags "$scratch/probe.cpp" -o "$scratch/probe" > "$scratch/probe.log" 2>&1; then
        echo "SKIPPED: $cxx cannot build a trivial program with '$flags':"
        cat "$scratch/probe.log"
        echo "(for -m32 on Debian: apt-get install g++-multilib)"
        exit 77
    fi
fi

set -x
case $mode in
subdirectory)
    cmake -S "$here" -B "$scratch/consumer" -DSTATICFORMER_CONSUMER_MODE=subdirectory \
        "-DSTATICFORMER_SOURCE_DIR=$repo" "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_CXX_FLAGS=$flags"
    ;;
package)
    # The library is configured without CXXFLAGS: its header-only package must serve consumers
    # of any pointer size.
    cmake -S "$repo" -B "$scratch/lib" -DSTATICFORMER_BUILD_TESTS=OFF -DSTATICFORMER_BUILD_EXAMPLES=OFF \
        "-DCMAKE_CXX_COMPILER=$cxx"
    cmake --install "$scratch/lib" --prefix "$scratch/prefix"
    if [ -n "$toolchain" ]; then
        # A cross toolchain confines searches to its sysroot: name the package directory.
        cmake -S "$here" -B "$scratch/consumer" -DSTATICFORMER_CONSUMER_MODE=package \
            "-DCMAKE_TOOLCHAIN_FILE=$toolchain" "-Dstaticformer_DIR=$scratch/prefix/share/cmake/staticformer"
    else
        cmake -S "$here" -B "$scratch/consumer" -DSTATICFORMER_CONSUMER_MODE=package \
            "-DCMAKE_PREFIX_PATH=$scratch/prefix" "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_CXX_FLAGS=$flags"
    fi
    ;;
esac
cmake --build "$scratch/consumer" --config Release
# shellcheck disable=SC2086  # $runner is a command line
${runner:-} "$scratch/consumer/bin/consumer"
