#!/bin/sh
# staticformer footprint: code, weights, static RAM, stack and no-heap proof of forward() on every
# target, and the Cortex-M speed proxy. Run from anywhere, no arguments needed; builds into
# build/footprint/ and prints Markdown (also written to build/footprint/footprint.md).
# Arguments are passed to tools/footprint.py (--help).
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/footprint.py" "$@"
