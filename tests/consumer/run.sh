#!/bin/sh
# Usage: run.sh MODE REPO SCRATCH CXX [CXXFLAGS]
#   MODE      subdirectory: the consumer does add_subdirectory(REPO)
#             package: REPO is installed into SCRATCH/prefix, the consumer does find_package
#             tests_requested: configuring REPO with -DSTATICFORMER_BUILD_TESTS=ON and no
#               GoogleTest must fail, naming it
#             exporter: REPO is installed and its staticformer-export writes an f32 and an int8
#               header from a small PyTorch encoder (PYTHON: the interpreter with torch, default
#               /usr/bin/python3); skipped (77) without torch
#   SCRATCH   a scratch directory, emptied first
#   CXXFLAGS  extra compiler flags for the consumer, or --toolchain=FILE: the consumer is then
#             cross-compiled with that CMake toolchain file and run under its emulator, or
#             --installed-toolchain=cortex-m/FILE: the same with the toolchain file the package
#             installed (package mode: a firmware built from the install prefix alone)
# Configures, builds and runs the consumer in tests/consumer. Exits 77 (skipped) when CXX cannot
# compile a trivial program with CXXFLAGS (e.g. a cross compiler that is not installed).
set -eu

if [ $# -lt 4 ]; then
    echo "usage: $0 subdirectory|package|tests_requested|exporter REPO SCRATCH CXX [CXXFLAGS]" >&2
    exit 2
fi
mode=$1 repo=$2 scratch=$3 cxx=$4 flags=${5-}
host_cxx=$cxx  # installs the library: a native configuration
here=$(cd "$(dirname "$0")" && pwd)
case $mode in
subdirectory | package | tests_requested | exporter) ;;
*) echo "unknown mode '$mode'" >&2; exit 2 ;;
esac

rm -rf "$scratch"
mkdir -p "$scratch"
# Every configuration of REPO here lacks the test-only packages: using or installing the
# library must not need them.
no_test_packages="-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON"

toolchain=
installed_toolchain=
case $flags in
--installed-toolchain=*)
    # A toolchain file of the installed ports (share/staticformer/ports/NAME after install_repo);
    # its compiler is probed in the repository's copy.
    installed_toolchain=${flags#--installed-toolchain=}
    flags=--toolchain=$repo/ports/$installed_toolchain
    ;;
esac
case $flags in
--toolchain=*)
    toolchain=${flags#--toolchain=}
    flags=
    # The compiler the toolchain file names (the Cortex-M ones in toolchain-common.cmake).
    cxx=$(cat "$toolchain" "$(dirname "$toolchain")/toolchain-common.cmake" 2>/dev/null |
        sed -n 's/^set(CMAKE_CXX_COMPILER \(.*\))$/\1/p' | head -n 1)
    printf 'int main() { return 0; }\n' > "$scratch/probe.cpp"
    if ! "$cxx" -c "$scratch/probe.cpp" -o "$scratch/probe.o" > "$scratch/probe.log" 2>&1; then
        echo "SKIPPED: $cxx (from $toolchain) cannot compile a trivial program:"
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

# Installs REPO into SCRATCH/prefix as the README says (top-level defaults), without the
# test-only packages: the tests must be skipped, saying so.
install_repo() {
    # shellcheck disable=SC2086  # a list of flags
    cmake -S "$repo" -B "$scratch/lib" $no_test_packages "-DCMAKE_CXX_COMPILER=$host_cxx" > "$scratch/lib.log"
    cat "$scratch/lib.log"
    grep -q "GoogleTest not found.*tests skipped" "$scratch/lib.log"
    cmake --install "$scratch/lib" --prefix "$scratch/prefix"
}

set -x
case $mode in
subdirectory)
    # shellcheck disable=SC2086  # a list of flags
    cmake -S "$here" -B "$scratch/consumer" -DCMAKE_BUILD_TYPE=Release -DSTATICFORMER_CONSUMER_MODE=subdirectory $no_test_packages \
        "-DSTATICFORMER_SOURCE_DIR=$repo" "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_CXX_FLAGS=$flags"
    ;;
package)
    # The library is configured without CXXFLAGS: its header-only package must serve consumers
    # of any pointer size.
    install_repo
    if [ -n "$installed_toolchain" ]; then
        toolchain=$scratch/prefix/share/staticformer/ports/$installed_toolchain
        test -f "$toolchain"
    fi
    if [ -n "$toolchain" ]; then
        # The toolchain files search CMAKE_PREFIX_PATH inside their find root too.
        cmake -S "$here" -B "$scratch/consumer" -DCMAKE_BUILD_TYPE=Release -DSTATICFORMER_CONSUMER_MODE=package \
            "-DCMAKE_TOOLCHAIN_FILE=$toolchain" "-DCMAKE_PREFIX_PATH=$scratch/prefix"
    else
        cmake -S "$here" -B "$scratch/consumer" -DCMAKE_BUILD_TYPE=Release -DSTATICFORMER_CONSUMER_MODE=package \
            "-DCMAKE_PREFIX_PATH=$scratch/prefix" "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_CXX_FLAGS=$flags"
    fi
    ;;
tests_requested)
    # shellcheck disable=SC2086  # a list of flags
    if cmake -S "$repo" -B "$scratch/lib" $no_test_packages -DSTATICFORMER_BUILD_TESTS=ON \
        "-DCMAKE_CXX_COMPILER=$cxx" > "$scratch/lib.log" 2>&1; then
        cat "$scratch/lib.log"
        echo "FAILED: tests asked for and configured without GoogleTest"
        exit 1
    fi
    cat "$scratch/lib.log"
    grep -q "STATICFORMER_BUILD_TESTS=ON, but GoogleTest not found" "$scratch/lib.log"
    exit 0
    ;;
exporter)
    python=${PYTHON:-/usr/bin/python3}
    if ! "$python" -c "import torch, numpy" > /dev/null 2>&1; then
        echo "SKIPPED: $python lacks torch or numpy (Debian: python3-torch)"
        exit 77
    fi
    install_repo
    # From SCRATCH, with no path into REPO: every import must resolve in the prefix.
    cd "$scratch"
    "$python" -c '
import numpy as np, torch
from torch import nn
torch.manual_seed(1)
layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
torch.save(nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).eval(), "tiny.pt")
np.save("calibration.npy", np.random.default_rng(1).uniform(-1, 1, (4, 4, 8)).astype("float32"))'
    # The installed package is the repository's, file for file (the install lists none by hand).
    "$python" - "$repo/python/staticformer_export" prefix/share/staticformer/python/staticformer_export <<'PY'
import pathlib, sys
repo, installed = (pathlib.Path(a) for a in sys.argv[1:])
def files(d):
    return {p.relative_to(d) for p in d.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.relative_to(d).parts[0] != "include"}
missing = sorted(str(p) for p in files(repo) - files(installed))
print("package files missing from the install:", missing or "none")
headers = installed / "include" / "staticformer" / "staticformer.hpp"
print("the package's include/ reaches the installed headers:", headers.is_file())
sys.exit(1 if missing or not headers.is_file() else 0)
PY
    export PYTHON="$python"
    env -u PYTHONPATH prefix/bin/staticformer-export --module tiny.pt --seq-len 4 --name tiny --header tiny.hpp
    env -u PYTHONPATH CXX="$cxx" prefix/bin/staticformer-export --module tiny.pt --seq-len 4 --name tiny8 \
        --precision int8 --calibration calibration.npy --header tiny8.hpp
    printf '#include "tiny.hpp"\n#include "tiny8.hpp"\nint main() { return tiny_config::d_model == 8 ? 0 : 1; }\n' > use.cpp
    "$cxx" -std=c++17 -Iprefix/include use.cpp -o use
    ./use
    exit 0
    ;;
esac
cmake --build "$scratch/consumer" --config Release
(cd "$scratch/consumer" && ctest -C Release -V)
