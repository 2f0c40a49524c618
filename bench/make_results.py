#!/usr/bin/env python3
"""Runs the benchmarks and writes bench/RESULTS.md and bench/results.png.

    make bench            (builds bench_avx2 and bench_avx512, then runs this script)
    /usr/bin/python3 bench/make_results.py BUILD_DIR

Each binary is run once with JSON output; a build whose instruction set this CPU lacks is
skipped. The table reports, per configuration: time per inference, GFLOP/s (a multiply-add
counts as two flops), percent of the FMA peak measured by the fma_peak benchmark of the same
build, speed-up over the reference backend, and over the Eigen baseline.
"""
import datetime
import json
import platform
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = {"tiny": "64/4/256/32/2", "small": "128/4/512/64/4", "mini": "256/4/1024/128/4",
           "wide": "384/12/1536/128/6"}
KERNELS = ["linear_qkv", "linear_ffn1", "attention", "softmax", "layer_norm", "gelu"]


def cpu_has(flag):
    return re.search(r"\b%s\b" % flag, Path("/proc/cpuinfo").read_text()) is not None


def run(binary):
    out = subprocess.run([str(binary), "--benchmark_format=json", "--benchmark_min_time=0.3"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def rows_by_name(report):
    return {b["name"]: b for b in report["benchmarks"] if "error_occurred" not in b}


def us(b):
    return b["cpu_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]


def table(name, rows):
    peak = rows["fma_peak"]["GFLOP/s"]
    lines = [f"### {name}: FMA peak {peak:.1f} GFLOP/s (one core)", "",
             "simd (tile 4) is the default configuration (tile_rows<4>); simd (whole tile) the same "
             "model with tile_rows<seq_len>, which holds every row's FFN hidden layer as Eigen's "
             "matrices do.", "",
             "| config | valid_len | reference | Eigen 3.4 | simd (tile 4) | GFLOP/s | % of peak | vs Eigen "
             "| simd (whole tile) | GFLOP/s | % of peak | vs Eigen | vs reference |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    plot = []
    for cfg, dims in CONFIGS.items():
        ref = rows.get(f"encoder<{cfg}, sf::reference>/1")
        for div in (1, 2, 4):
            simd = rows.get(f"encoder<{cfg}, sf::simd>/{div}")
            whole = rows.get(f"encoder<{cfg}_seq, sf::simd>/{div}")
            eig = rows.get(f"eigen<{cfg}>/{div}")
            if not simd:
                continue
            n = int(simd["valid_len"])
            best = min((b for b in (simd, whole) if b), key=us)
            ref_t = f"{us(ref):.0f} us" if ref and div == 1 else ""
            vs_ref = f"{us(ref) / us(best):.1f}x" if ref and div == 1 else ""
            eig_t = f"{us(eig):.0f} us" if eig else "n/a"

            def cells(b):
                if not b:
                    return "n/a | | | "
                vs_eig = f"{us(eig) / us(b):.2f}x" if eig else "n/a"
                return f"{us(b):.0f} us | {b['GFLOP/s']:.1f} | {100 * b['GFLOP/s'] / peak:.0f}% | {vs_eig}"
            lines.append(f"| {cfg} ({dims}) | {n} | {ref_t} | {eig_t} | {cells(simd)} | {cells(whole)} | {vs_ref} |")
            if div == 1:
                plot.append((cfg, us(ref) if ref else None, us(eig) if eig else None, us(simd),
                             us(whole) if whole else None))
    lines += ["", "| kernel (tiny, mini; whole sequence) | reference | simd | simd GFLOP/s or rate |", "|---|---|---|---|"]
    for cfg in ("tiny", "mini"):
        for k in KERNELS:
            s = rows.get(f"{k}<{cfg}, sf::simd>")
            r = rows.get(f"{k}<{cfg}, sf::reference>")
            if not s:
                continue
            rate = next((f"{s[c]:.3g} {c}" for c in ("GFLOP/s", "rows/s", "Gelem/s") if c in s), "")
            lines.append(f"| {k} ({cfg}) | {f'{us(r):.1f} us' if r else ''} | {us(s):.1f} us | {rate} |")
    return lines, plot


def make_plot(plots, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(plots), figsize=(6 * len(plots), 4), squeeze=False)
    for ax, (name, data) in zip(axes[0], plots.items()):
        cfgs = [d[0] for d in data]
        x = range(len(cfgs))
        series = (("reference", 1), ("Eigen 3.4", 2), ("staticformer simd (tile 4)", 3),
                  ("staticformer simd (whole tile)", 4))
        for i, (label, col) in enumerate(series):
            ax.bar([xi + (i - 1.5) * 0.2 for xi in x], [d[col] or 0 for d in data], width=0.2, label=label)
        ax.set_xticks(list(x))
        ax.set_xticklabels(cfgs)
        ax.set_yscale("log")
        ax.set_ylabel("time per inference (us, log)")
        ax.set_title(f"f32 encoder, {name}, one thread")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build/test")
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                if l.startswith("model name")), platform.processor())
    compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    out = ["# staticformer benchmark results", "",
           f"Generated by `make bench` (bench/make_results.py) on {datetime.date.today()}.", "",
           f"- machine: {cpu}, {platform.machine()}, Linux {platform.release()}",
           f"- compiler: {compiler}, -O3 (CMake Release)",
           "- one thread, batch 1, f32, CPU time per inference (Google Benchmark)",
           "- configurations: pre-norm, GELU, final norm; d_model/heads/d_ff/seq_len/layers as listed", ""]
    plots = {}
    for name, flag in (("AVX2+FMA (x86-64-v3)", "avx2"), ("AVX-512 (x86-64-v4)", "avx512f")):
        binary = build / "bench" / ("bench_avx2" if flag == "avx2" else "bench_avx512")
        if not cpu_has(flag) or not binary.exists():
            out += [f"### {name}: skipped (CPU lacks it or not built)", ""]
            continue
        print(f"running {binary} ...", flush=True)
        lines, plot = table(name, rows_by_name(run(binary)))
        out += lines + [""]
        plots[name] = plot
    if plots:
        make_plot(plots, HERE / "results.png")
        out += ["![time per inference](results.png)", ""]
    (HERE / "RESULTS.md").write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
