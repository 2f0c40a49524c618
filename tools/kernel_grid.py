#!/usr/bin/env python3
"""The kernel grid of include/staticformer/kernels/README.md: which file runs each op, precision
and backend. Derived from the tree, so it cannot drift:
  - the ops are the reference kernels kernels/kernel_set.hpp includes (reference/<op>[_int8].hpp);
  - a backend's own kernel is <folder>/<op>[_int8].hpp;
  - an op a backend does not have comes from the kernel set its kernel_set.hpp derives from
    (kernel_set<B> : X, int8_kernel_set<B> : Y), in the end the reference.

    tools/kernel_grid.py           rewrites the grid between the README's markers
    tools/kernel_grid.py --check   exits 1 if the README's grid is not the tree's (make test)
"""

import argparse
import pathlib
import re
import sys

KERNELS = pathlib.Path(__file__).resolve().parent.parent / "include" / "staticformer" / "kernels"
README = KERNELS / "README.md"
BEGIN = "<!-- begin: written by tools/kernel_grid.py -->"
END = "<!-- end: written by tools/kernel_grid.py -->"

# Backend tag -> folder of its kernels (None: no kernels of its own), in the grid's column order.
BACKENDS = {"reference": "reference", "simd": "simd", "armv7_neon": None, "cortex_m_dsp": "cortex_m/dsp",
            "cortex_m_mve": "cortex_m/mve"}
# The interface's structs and the backends' named sets, as kernel_set.hpp files derive from them.
SETS = {"float_kernels": "reference", "int8_kernels": "reference", "simd_int8_kernels": "simd",
        "cortex_m_dsp_int8_kernels": "cortex_m_dsp"}


def ops():
    text = (KERNELS / "kernel_set.hpp").read_text()
    names = re.findall(r'#include "reference/(\w+)\.hpp"', text)
    return sorted({n[:-5] if n.endswith("_int8") else n for n in names}), set(names)


def bases(backend):
    """(float base, int8 base) backends that backend's kernel sets derive from."""
    if backend == "reference":
        return None, None
    folder = BACKENDS[backend] or backend
    text = (KERNELS / folder / "kernel_set.hpp").read_text()
    found = []
    for kind in ("kernel_set", "int8_kernel_set"):
        m = re.search(r"struct %s<%s>\s*:\s*(?:kernels::)?(\w+)" % (kind, backend), text)
        if not m:
            sys.exit("kernel_grid: no %s<%s> in %s/kernel_set.hpp" % (kind, backend, folder))
        found.append(SETS.get(m.group(1), m.group(1)))
    return tuple(found)


def cell(backend, file_name):
    """The file (from kernels/) that runs file_name's op for backend."""
    folder = BACKENDS[backend]
    if folder and (KERNELS / folder / (file_name + ".hpp")).exists():
        return "%s/%s.hpp" % (folder, file_name)
    float_base, int8_base = bases(backend)
    base = int8_base if file_name.endswith("_int8") else float_base
    # A backend's named set (simd_int8_kernels, ...) derives from the interface, the reference's.
    return cell("reference" if base == backend else base, file_name)


def grid():
    names, files = ops()
    lines = ["| op | precision | " + " | ".join("`%s`" % b for b in BACKENDS) + " |",
             "|---|---|" + "---|" * len(BACKENDS)]
    for op in names:
        for precision, file_name in (("float", op), ("int8", op + "_int8")):
            if file_name not in files:
                continue
            cells = []
            for backend in BACKENDS:
                where = cell(backend, file_name)
                own = BACKENDS[backend] and where.startswith(BACKENDS[backend] + "/")
                cells.append("**own**" if own else where.rsplit("/", 1)[0] + "'s")
            lines.append("| %s | %s | %s |" % (op, precision, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if the README's grid differs from the tree")
    args = parser.parse_args()
    text = README.read_text()
    if BEGIN not in text or END not in text:
        sys.exit("kernel_grid: %s lacks the markers %s ... %s" % (README, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + grid() + END + tail
    if args.check:
        if new != text:
            print("kernel_grid: %s is out of date: run tools/kernel_grid.py" % README.relative_to(KERNELS.parents[2]))
            return 1
        print("kernel_grid: the README's grid is the tree's")
        return 0
    if new != text:
        README.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
