#!/bin/sh
# Regenerates the PyTorch goldens into $2 with the system PyTorch (exit 77, "skipped", when
# torch is not installed) and checks they equal the committed ones byte for byte.
set -eu
src=$1
out=$2
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    echo "SKIPPED: /usr/bin/python3 has no torch (apt-get install python3-torch)"
    exit 77
fi
rm -rf "$out"
/usr/bin/python3 "$src/tools/make_goldens.py" --out "$out"
if diff -r -x reference "$src/tests/golden" "$out" >/dev/null; then
    echo "live goldens equal the committed tests/golden"
else
    echo "note: live goldens differ from the committed tests/golden (a different torch build?):"
    diff -rq -x reference "$src/tests/golden" "$out" || true
fi
