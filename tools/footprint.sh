#!/bin/sh
# staticformer footprint: code, weights, static RAM, stack and no-heap proof of forward() on every
# target, and the Cortex-M speed proxy. Run from anywhere, no arguments needed; builds into
# build/footprint/ and prints Markdown (also written to build/footprint/footprint.md). It also
# writes what it measured into the checkout: python/staticformer_export/footprint_costs.json (the speed proxy per core,
# precision and configuration, which the export report's estimates are fitted to) and the tables
# of docs/footprint-and-timing.md (after a run of everything).
# Arguments are passed to tools/footprint.py (--help).
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/footprint.py" "$@"
