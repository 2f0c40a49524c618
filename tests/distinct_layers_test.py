#!/usr/bin/env python3
"""Checks that no two layers of a committed generated model are byte-identical.

torch.nn.TransformerEncoder deep-copies the one layer it is given, so a generator that does not
re-draw each layer's parameters exports N copies of layer 0 (which hides layer-indexing bugs).
Every weights header of tools/export_pytorch.py writes its layers as separate arrays, one
`{  // layer N` block each, with exact literals (hex floats, f16 bits, integers): equal text is
equal bytes. For every pair of layers of every such header this fails when

  - the two layers are identical, or
  - one of the named arrays (`// ff1_b[32] <- ...`; f32 and f16 headers) holds the same values
    in both layers, unless all its values are one constant (an untrained LayerNorm's 1s and 0s,
    zero biases).

Checks the c_classifier, demo, digits and golden models, or the headers given as arguments:

    /usr/bin/python3 tests/distinct_layers_test.py [header.hpp ...]
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Each group must have at least one header with two or more layers: a moved folder fails here
# instead of checking nothing.
GROUPS = {
    "c_classifier": "firmware_examples/c_classifier/model/*.hpp",
    "demo": "examples/demo/demo_model.hpp",
    "digits": "data/digits/digits_*.hpp",
    "goldens": "tests/golden/**/*.hpp",
}
LAYER = re.compile(r"^[ \t]*\{[ \t]*//[ \t]*layer (\d+)[ \t]*$", re.M)
ARRAY = re.compile(r"//[ \t]*(\w+)\[[^\n]*")
COMMENT = re.compile(r"//[^\n]*")
VALUE = re.compile(r"[^\s{},]+")


def layer_blocks(text: str) -> list:
    """[(index, text of the braced block)] for every `{  // layer N` line."""
    blocks = []
    for m in LAYER.finditer(text):
        start = m.start() + m.group(0).index("{")
        depth, i = 0, start
        while True:
            if text.startswith("//", i):
                i = text.index("\n", i)
                continue
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        blocks.append((int(m.group(1)), text[start:i + 1]))
    return blocks


def values(text: str) -> list:
    return VALUE.findall(COMMENT.sub("", text))


def arrays(block: str) -> dict:
    """name -> values of each array a `// name[...]` comment introduces."""
    parts = ARRAY.split(block)
    return {name: values(body) for name, body in zip(parts[1::2], parts[2::2])}


def check(path: Path) -> tuple:
    """(number of layers, failures) of one header."""
    blocks = layer_blocks(path.read_text())
    path = path.resolve()
    path = path.relative_to(ROOT) if ROOT in path.parents else path
    failures = []
    for a in range(len(blocks)):
        for b in range(a + 1, len(blocks)):
            (ia, ta), (ib, tb) = blocks[a], blocks[b]
            if values(ta) == values(tb):
                failures.append(f"{path}: layers {ia} and {ib} are byte-identical")
                continue
            named_a, named_b = arrays(ta), arrays(tb)
            for name, v in named_a.items():
                if named_b.get(name) == v and len(set(v)) > 1:
                    failures.append(f"{path}: {name} of layers {ia} and {ib} is byte-identical")
    return len(blocks), failures


def main(argv: list) -> int:
    failures = []
    if argv:
        for arg in argv:
            layers, f = check(Path(arg))
            failures += f
            print(f"{arg}: {layers} layers")
    else:
        for group, pattern in GROUPS.items():
            checked = 0
            for path in sorted(ROOT.glob(pattern)):
                layers, f = check(path)
                failures += f
                checked += layers >= 2
            print(f"{group}: {checked} headers with two or more layers ({pattern})")
            if not checked:
                failures.append(f"{group}: no header with two or more layers matches {pattern}")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
