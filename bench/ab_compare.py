#!/usr/bin/env python3
"""Compares two builds of a benchmark binary row by row, for a noisy shared machine: each row
matching REGEX runs alone, old and new alternated ROUNDS times in short runs, and the fastest
real time of each is kept (a slow spell of the machine then hits both alike).

    bench/ab_compare.py OLD_BINARY NEW_BINARY REGEX [ROUNDS]
    e.g. bench/ab_compare.py /tmp/old/bench_int8_avx2 build/test/bench/bench_int8_avx2 \\
             'encoder/(tiny|small)/int8/simd/1$' 10
"""
import json
import re
import subprocess
import sys

UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def fastest_us(binary, row):
    out = subprocess.run([binary, "--benchmark_filter=^" + re.escape(row) + "$", "--benchmark_min_time=0.01",
                          "--benchmark_format=json"], capture_output=True, text=True, check=True).stdout
    b = json.loads(out)["benchmarks"][0]
    return b["real_time"] * UNIT_US[b["time_unit"]]


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__)
        return 2
    old, new, pattern = argv[1:4]
    rounds = int(argv[4]) if len(argv) == 5 else 10
    listed = subprocess.run([old, "--benchmark_list_tests"], capture_output=True, text=True, check=True).stdout
    for row in (r for r in listed.split() if re.search(pattern, r)):
        a = b = float("inf")
        for _ in range(rounds):
            a = min(a, fastest_us(old, row))
            b = min(b, fastest_us(new, row))
        print("%-44s old %10.3f us  new %10.3f us  %+6.1f%%" % (row, a, b, 100.0 * (b - a) / a), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
