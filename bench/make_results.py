#!/usr/bin/env python3
"""Runs the benchmarks and writes bench/RESULTS.md and bench/results.png.

    make bench      builds the benchmark binaries, then runs this script
    /usr/bin/python3 bench/make_results.py BUILD_DIR [--min-time S] [--repetitions N] [--reuse]

Per instruction set: a float binary (bench_encoder.cpp) and an int8 binary (bench_int8.cpp);
then the precisions side by side with ONNX Runtime's f32 and dynamic int8 (bench/ort_compare.py).
A build whose instruction set this CPU lacks is skipped. Each binary runs once with JSON output,
every benchmark repeated (--benchmark_repetitions, interleaved at random) and reported as
aggregates; the tables use the median CPU time of the repetitions (GFLOP/s and GOP/s are
recomputed from it). The raw JSON
is kept beside the binaries (BUILD_DIR/bench/<binary>.json); --reuse rebuilds the report from it
without running anything.

Works with /usr/bin/python3 and Debian's python3-matplotlib (the plot is skipped without it).
"""
import argparse
import datetime
import json
import platform
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))  # the checkout's staticformer_export package
from staticformer_export.encoder_schema import REFERENCE_CONFIGS  # noqa: E402  (the reference configurations, listed once)
import ort_compare  # noqa: E402  (bench/: the precisions side by side and ONNX Runtime)
from ort_compare import cpu_flags  # noqa: E402  (/proc/cpuinfo's flags, read once for both)

CONFIGS = {name: "%d/%d/%d/%d/%d" % (s.d_model, s.heads, s.d_ff, s.seq_len, s.layers)
           for name, s in REFERENCE_CONFIGS.items()}
# The valid-length sweep's shapes (throughput.hpp, configs.hpp's sensor): every valid_len 1..seq_len.
SWEEP_CONFIGS = {"tiny": CONFIGS["tiny"], "sensor": "32/4/64/49/2"}
STATISTIC = "median"

# (section title, float binary, int8 binary, /proc/cpuinfo flags both need). The AVX-VNNI build
# is int8 only: its float rows are the AVX2 build's (same x86-64-v3 float code).
BUILDS = [
    ("AVX2+FMA (x86-64-v3)", "bench_avx2", "bench_int8_avx2", ["avx2", "fma"]),
    ("AVX-512 (x86-64-v4; int8: AVX-512 VNNI + VBMI)", "bench_avx512", "bench_int8_avx512vnni",
     ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_vnni", "avx512vbmi"]),
    ("AVX-VNNI (x86-64-v3 + AVX-VNNI, int8 only)", "bench_avx2", "bench_int8_avxvnni", ["avx2", "fma", "avx_vnni"]),
]

# Kernels in table order: (name, precisions). Matrix kernels are counted in flops (or integer
# operations) and compared with the peak; the others in elements per second.
KERNELS = [("linear_qkv", ("f32", "f16", "int8")), ("linear_out", ("f32", "f16", "int8")),
           ("linear_ff1", ("f32", "f16", "int8")), ("linear_ff2", ("f32", "f16", "int8")),
           ("attention", ("f32", "int8")), ("softmax", ("f32", "int8")), ("layer_norm", ("f32", "f16", "int8")),
           ("rms_norm", ("f32",)), ("gelu", ("f32",)), ("activation", ("int8",)), ("add", ("int8",)), ("requantize", ("int8",))]
SHARE_KINDS = ["linear", "attention", "softmax", "layer_norm", "activation", "add", "other"]

# Targets of issue 5: f32 whole-encoder share of the FMA peak per configuration, in percent.
PEAK_TARGETS = {"tiny": 50, "mini": 75, "wide": 75}
EIGEN_TARGET = 1.5
INT8_TARGET = 2.5
NONLINEAR_TARGET = 0.15


def cpu_model():
    text = Path("/proc/cpuinfo").read_text()
    return next((l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith("model name")),
                platform.processor() or "unknown")


# ---- running ------------------------------------------------------------------------------

def run(binary, args):
    """The binary's JSON report (also written to <binary>.json), or the saved one with --reuse."""
    saved = binary.with_suffix(".json")
    if args.reuse:
        return json.loads(saved.read_text()) if saved.exists() else None
    # Repetitions in random order across the binary's benchmarks: a slow spell of a shared
    # machine then hits one repetition of several benchmarks, not every repetition of one, and
    # the median leaves it out.
    cmd = [str(binary), "--benchmark_format=json", f"--benchmark_min_time={args.min_time}",
           f"--benchmark_repetitions={args.repetitions}", "--benchmark_enable_random_interleaving=true",
           "--benchmark_report_aggregates_only=true"]
    print("running " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    saved.write_text(out)
    return json.loads(out)


class Rows:
    """The benchmarks of one or more reports by name, the chosen statistic of each."""

    def __init__(self, *reports):
        self.rows, self.context = {}, {}
        for report in reports:
            if not report:
                continue
            self.context = self.context or report.get("context", {})
            for b in report["benchmarks"]:
                if b.get("error_occurred"):
                    continue
                # Repetitions give aggregates; a single run gives plain iterations.
                if b.get("run_type") == "aggregate" and b.get("aggregate_name") != STATISTIC:
                    continue
                name = b.get("run_name", b["name"])
                suffix = next((x for x in ("/manual_time", "/real_time") if name.endswith(x)), "")
                name = name[: len(name) - len(suffix)]
                scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
                # Manual-time rows time only the kernel (their CPU time includes setup); real-time
                # rows run on several threads (the main thread's CPU time is a part of the work).
                b["seconds"] = (b["real_time"] if suffix else b["cpu_time"]) * scale
                self.rows[name] = b

    def get(self, name):
        return self.rows.get(name)

    def seconds(self, name):
        b = self.rows.get(name)
        return b["seconds"] if b else None

    def best(self, prefix, counter):
        """The largest counter among rows named prefix/<anything>, and that row's name."""
        found = [(b[counter], n) for n, b in self.rows.items() if n.startswith(prefix + "/") and counter in b]
        return max(found) if found else (None, None)


# ---- formatting ---------------------------------------------------------------------------

def fmt_time(s):
    if s is None:
        return "n/a"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.1f} us"
    return f"{s * 1e9:.0f} ns"


def fmt_ratio(a, b, digits=2):
    """a / b as a speed-up, or blank."""
    return f"{a / b:.{digits}f}x" if a and b else ""


def fmt_bytes(n):
    return f"{n / 1024:.1f} KiB" if n is not None else "n/a"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def work(cfg, n):
    """Multiply-adds x 2 of one pass with n valid rows (configs.hpp, encoder_ops)."""
    d, h, f, s, layers = (int(v) for v in {**SWEEP_CONFIGS, **CONFIGS}[cfg].split("/"))
    del h, s
    return 2.0 * (n * (4 * d * d + 2 * d * f) + 2.0 * n * n * d) * layers


def seq_len(cfg):
    return int({**SWEEP_CONFIGS, **CONFIGS}[cfg].split("/")[3])


# ---- one build ----------------------------------------------------------------------------

def rate(cfg, t, n=None):
    """GFLOP/s (or GOP/s) of one pass of cfg with n valid rows (default seq_len) taking t seconds."""
    return work(cfg, n or seq_len(cfg)) / t * 1e-9 if t else None


def peaks_header(title, fma, dot, int8_isa, amx=None):
    """The section's title and its peaks; fma, dot: (peak, row name) of rows.best(); amx: the AMX
    tiles' peak where the int8 build has them and the machine runs them."""
    (fma_peak, fma_row), (dot_peak, dot_row) = fma, dot
    out = [f"## {title}", ""]
    out.append(f"- FMA peak: **{fma_peak:.1f} GFLOP/s** (one core; best of 8, 12, 16 independent chains: "
               f"{fma_row.split('/')[-1]})" if fma_peak else "- FMA peak: n/a")
    out.append(f"- int8 dot-product peak ({int8_isa}): **{dot_peak:.1f} GOP/s** "
               f"(best of 8, 12, 16 chains: {dot_row.split('/')[-1]})" if dot_peak else "- int8 dot-product peak: n/a")
    if amx:
        out.append(f"- AMX tile peak (TDPBSSD, four accumulator tiles): **{amx:.1f} GOP/s**. This machine's int8 "
                   "linear layers run on AMX tiles; int8's % of peak below stays against the dot-product peak above, "
                   f"so it can pass 100%; against the AMX peak divide by {amx / dot_peak:.1f}." if dot_peak else "")
    return out + [""]


def whole_encoder_table(rows, peaks):
    """The whole-encoder table (valid_len = seq_len) and the plot's bars per configuration.
    peaks: {precision: the build's peak for it}."""
    fma_peak = peaks["f32"]
    out = ["### Whole encoder (valid_len = seq_len)", "",
           "GFLOP/s for f32/f16, GOP/s for int8 (a multiply-add counts as two); % of peak against the FMA peak "
           "(float) or the int8 dot-product peak (int8) of this build.", ""]
    lines, plot = [], []
    for cfg, dims in CONFIGS.items():
        eigen = rows.seconds(f"eigen/{cfg}/f32/1")
        bars = {"reference f32": rows.seconds(f"encoder/{cfg}/f32/reference/1"), "Eigen f32": eigen}
        for prec in ("f32", "f16", "int8"):
            ref = rows.seconds(f"encoder/{cfg}/{prec}/reference/1")
            for backend in ("reference", "simd"):
                t = rows.seconds(f"encoder/{cfg}/{prec}/{backend}/1")
                if t is None:
                    continue
                r, peak = rate(cfg, t), peaks[prec]
                vs_eigen = fmt_ratio(eigen, t) if backend == "simd" and prec != "int8" else ""
                lines.append([f"{cfg} ({dims})", prec, backend, fmt_time(t), f"{r:.1f}",
                              f"{100 * r / peak:.0f}%" if peak else "", fmt_ratio(ref, t, 1), vs_eigen])
                if backend == "simd":
                    bars[f"simd {prec}"] = t
        if eigen:
            r = rate(cfg, eigen)
            lines.append([f"{cfg} ({dims})", "f32", "Eigen 3.4", fmt_time(eigen), f"{r:.1f}",
                          f"{100 * r / fma_peak:.0f}%" if fma_peak else "", "", "1.00x"])
        plot.append((cfg, bars))
    out += table(["config", "precision", "backend", "time", "GFLOP/s or GOP/s", "% of peak", "vs reference",
                  "vs Eigen"], lines)
    return out, plot


def precision_table(rows):
    """int8 and f16 against f32 (simd, whole encoder)."""
    lines = []
    for cfg in CONFIGS:
        f32, f16, i8 = (rows.seconds(f"encoder/{cfg}/{p}/simd/1") for p in ("f32", "f16", "int8"))
        lines.append([cfg, fmt_time(f32), fmt_time(f16), fmt_time(i8), fmt_ratio(f32, i8), fmt_ratio(f32, f16)])
    out = ["### int8 and f16 against f32 (simd, whole encoder, valid_len = seq_len)", ""]
    return out + table(["config", "f32", "f16", "int8", "int8 speed-up over f32", "f16 speed-up over f32"], lines)


def latency_table(rows):
    """Time per pass at valid_len seq_len, seq_len / 2 and seq_len / 4."""
    lines = []
    for cfg in CONFIGS:
        full = {p: rows.seconds(f"encoder/{cfg}/{p}/simd/1") for p in ("f32", "f16", "int8")}
        full["eigen"] = rows.seconds(f"eigen/{cfg}/f32/1")
        for div in (1, 2, 4):
            cells = []
            for p in ("f32", "f16", "int8", "eigen"):
                t = rows.seconds(f"eigen/{cfg}/f32/{div}" if p == "eigen" else f"encoder/{cfg}/{p}/simd/{div}")
                cells.append(f"{fmt_time(t)} ({t / full[p]:.2f})" if t and full[p] else "n/a")
            lines.append([cfg, seq_len(cfg) // div] + cells)
    out = ["### Latency against valid_len", "",
           "Time per pass, and in parentheses relative to valid_len = seq_len (padded rows cost no work: "
           "about 0.5 and 0.25 expected, less than that where attention's n^2 term matters).", ""]
    return out + table(["config", "valid_len", "simd f32", "simd f16", "simd int8", "Eigen f32"], lines)


def mask_table(rows):
    """Key padding masks: a full sequence with all but seq_len / d keys masked, against no mask and
    against valid_len = seq_len / d (the same kept keys, but only that many query rows)."""
    lines = []
    for cfg in CONFIGS:
        full = rows.seconds(f"encoder/{cfg}/f32/simd/1")
        for div in (2, 4):
            masked, short = rows.seconds(f"masked/{cfg}/f32/simd/{div}"), rows.seconds(f"encoder/{cfg}/f32/simd/{div}")
            if not (full and masked and short):
                continue
            lines.append([cfg, seq_len(cfg), seq_len(cfg) // div, fmt_time(full), fmt_time(masked),
                          fmt_ratio(masked, full), fmt_time(short)])
    out = ["### Key padding masks (f32 simd)", "",
           "Every row is computed; masked keys are never stored, so attention runs over the kept keys only. "
           "A masked pass costs less than the unmasked one: its saving is the attention over the masked keys "
           "(the projections and feed-forward of all rows remain).", ""]
    return out + table(["config", "rows", "kept keys", "no mask", "masked", "masked / no mask",
                        "valid_len = kept keys"], lines)


def tile_table(rows):
    """RAM against speed: the simd backend's default tile against tile_rows<4>."""
    lines = []
    for cfg in CONFIGS:
        whole, tile4 = rows.get(f"encoder/{cfg}/f32/simd/1"), rows.get(f"encoder/{cfg}_tile4/f32/simd/1")
        eigen = rows.get(f"eigen/{cfg}/f32/1")
        if not whole:
            continue
        lines.append([cfg, f"{int(whole['tile'])}", fmt_time(whole["seconds"]), fmt_bytes(whole["workspace_bytes"]),
                      fmt_time(tile4["seconds"]) if tile4 else "n/a",
                      fmt_bytes(tile4["workspace_bytes"]) if tile4 else "n/a",
                      fmt_ratio(tile4["seconds"], whole["seconds"]) if tile4 else "",
                      fmt_bytes(eigen["workspace_bytes"]) if eigen else "n/a"])
    out = ["### Tile: RAM against speed (f32 simd, valid_len = seq_len)", "",
           "The simd backend's default tile is the whole sequence (up to 128 rows): each weight matrix is streamed "
           "once per layer. tile_rows<4> (the reference backend's and a firmware's tile) streams it once per 4 rows "
           "for a workspace of 4 rows. Workspace: sizeof(workspace_for<Cfg, simd>), i.e. encoder<...>::workspace_bytes; "
           "Eigen: its fixed-size scratch matrices.", ""]
    return out + table(["config", "default tile (rows)", "time", "workspace", "tile 4: time", "tile 4: workspace",
                        "tile 4 slowdown", "Eigen scratch"], lines)


def kernel_row(rows, cfg, kernel, prec, peaks):
    """One kernel's table row (reference and simd times, the simd rate), or None if neither ran."""
    ref, simd = rows.get(f"kernel/{cfg}/{kernel}/{prec}/reference"), rows.get(f"kernel/{cfg}/{kernel}/{prec}/simd")
    if not simd and not ref:
        return None
    b = simd or ref
    counter = next((c for c in ("GFLOP/s", "GOP/s", "Gelem/s") if c in b), None)
    value = b.get(counter) if counter else None
    peak = peaks[prec] if counter in ("GFLOP/s", "GOP/s") else None
    return [kernel, prec, fmt_time(ref["seconds"]) if ref else "n/a",
            fmt_time(simd["seconds"]) if simd else "n/a",
            f"{value:.3g} {counter}" if value else "",
            f"{100 * value / peak:.0f}%" if peak and value else "",
            fmt_ratio(ref["seconds"] if ref else None, simd["seconds"] if simd else None, 1)]


def kernel_tables(rows, peaks):
    """One table of the kernels (layer 0) per configuration."""
    out = ["### Kernels (layer 0, whole sequence: seq_len rows)", "",
           "Projections: qkv [D -> 3D] (int8: query, key and value, three calls), out [D -> D], ff1 [D -> F], "
           "ff2 [F -> D]. attention: all heads and rows, scores + softmax + context as the encoder calls them; "
           "softmax alone: the same calls. Rates: GFLOP/s or GOP/s for the matrix kernels (% of the build's "
           "peak), else Gelem/s. requantize: int32 accumulators of ff1 to int8, math::requantize one at a time "
           "(reference) or the simd kernels' vector rescale over a buffer (simd).", ""]
    for cfg, dims in CONFIGS.items():
        lines = [line for kernel, precs in KERNELS for prec in precs
                 for line in [kernel_row(rows, cfg, kernel, prec, peaks)] if line]
        if lines:
            out += [f"#### {cfg} ({dims})", ""]
            out += table(["kernel", "precision", "reference", "simd", "simd rate", "% of peak", "speed-up"], lines)
    return out


def share_table(rows):
    """Where the time goes, and the checks of the nonlinear share."""
    lines, checks = [], []
    for cfg in CONFIGS:
        for prec in ("f32", "int8"):
            b = rows.get(f"share/{cfg}/{prec}/simd")
            if not b:
                continue
            cells = [f"{100 * b[f'share_{k}']:.1f}%" if f"share_{k}" in b else "-" for k in SHARE_KINDS]
            lines.append([cfg, prec] + cells + [f"**{100 * b['nonlinear_share']:.1f}%**"])
            checks.append((f"nonlinear share {cfg} {prec} <= {100 * NONLINEAR_TARGET:.0f}%",
                           b["nonlinear_share"] <= NONLINEAR_TARGET, f"{100 * b['nonlinear_share']:.1f}%"))
    out = ["### Where the time goes (simd, whole encoder, valid_len = seq_len)", "",
           "A kind's share is the time a pass saves when that kind of kernel is left out (the encoder's own "
           "composition on a kernel set whose kernels of that kind return at once; passes with and without "
           "each kind alternate, median pass times; bench/kernel_share.hpp), so it is what the kernels cost "
           "in place, overlap included. Shares under a percent or two are within the noise (they can come out "
           "negative). other: what no kind covers, the composition itself (copies, the float residual adds, "
           "storing keys and values). nonlinear = softmax + LayerNorm + activation (+ the requantising residual "
           "adds for int8), all left out together; the requantisation of linear and attention outputs happens "
           "inside those kernels.", ""]
    return out + table(["config", "precision"] + SHARE_KINDS + ["nonlinear"], lines), checks


# Issue 37's single-sequence, one-thread bounds (% of peak), stated for AVX-512 and AVX-512 VNNI.
PEAK_BOUNDS_37 = {"f32": {"tiny": 90, "small": 90, "mini": 90, "wide": 90},
                  "int8": {"tiny": 60, "small": 60, "mini": 80, "wide": 80}}


def ceiling_table(rows, peaks):
    """The most a pass can reach of the peak with today's other steps: its multiply-adds at the
    peak plus what every other step costs in place (the share rows' rest_us). {(cfg, prec): %}."""
    out = ["### What the other steps leave (simd, whole encoder, valid_len = seq_len)", "",
           "multiply-adds at the peak: the pass's counted operations at this build's peak; other steps: "
           "the pass with its linear layers and attention left out (softmax, LayerNorm, activation, adds, "
           "copies, requantising stores; bench/kernel_share.hpp), in place. ceiling: the share of the "
           "peak a pass would reach with its multiply-adds at the peak and its other steps as they are, "
           "the bound no faster matrix kernel can pass (a batch has the same ceiling: every step's work "
           "grows with its rows). Where int8's linear layers run on AMX tiles, its ceiling takes the "
           "multiply-adds at the AMX peak, still as a share of the dot-product peak.", ""]
    lines, ceilings = [], {}
    for cfg in CONFIGS:
        for prec in ("f32", "int8"):
            b, peak = rows.get(f"share/{cfg}/{prec}/simd"), peaks[prec]
            if not b or "rest_us" not in b or not peak:
                continue
            at_peak, rest = work(cfg, seq_len(cfg)) / (peak * 1e9), b["rest_us"] * 1e-6
            fastest = at_peak * peak / peaks["int8_amx"] if prec == "int8" and peaks.get("int8_amx") else at_peak
            ceilings[(cfg, prec)] = 100 * at_peak / (fastest + rest)
            pass_pct = 100 * at_peak / (b["pass_us"] * 1e-6)
            lines.append([cfg, prec, fmt_time(b["pass_us"] * 1e-6), f"{pass_pct:.0f}%", fmt_time(at_peak),
                          fmt_time(rest), f"**{ceilings[(cfg, prec)]:.0f}%**"])
    if not lines:
        return [], {}
    out += table(["config", "precision", "pass", "% of peak", "multiply-adds at the peak", "other steps",
                  "ceiling"], lines)
    return out, ceilings


def with_ceiling(pct, ceiling):
    """A share of the peak, and beside it the ceiling its other steps leave, where measured."""
    return f"{pct:.0f}%" + (f" (ceiling {ceiling:.0f}%)" if ceiling is not None else "")


def bound_checks(rows, peaks, ceilings):
    """Issue 37's one-sequence bounds, each with the ceiling the other steps leave."""
    checks = []
    for prec, bounds in PEAK_BOUNDS_37.items():
        for cfg, target in bounds.items():
            t, peak = rows.seconds(f"encoder/{cfg}/{prec}/simd/1"), peaks[prec]
            if not t or not peak:
                continue
            pct = 100 * rate(cfg, t) / peak
            checks.append((f"{prec} {cfg}, one sequence >= {target}% of peak", pct >= target,
                           with_ceiling(pct, ceilings.get((cfg, prec)))))
    return checks


# Two workers against one (throughput.hpp rows), issue 37: the least speed-up per configuration.
THREAD_TARGETS = {"small": 1.5, "mini": 1.8, "wide": 1.8}


def threads_table(rows):
    """Wall time of a whole pass on 1 and 2 workers (OpenMP executor), and the speed-up."""
    out = ["### One pass on several threads (valid_len = seq_len)", "",
           "sf::forward with an OpenMP executor (staticformer/parallel.hpp) and parallel_workspace_for<Cfg, "
           "workers>: wall time of one pass, the same bytes on any number of workers.", ""]
    lines, checks = [], []
    for cfg in CONFIGS:
        for prec in ("f32", "int8"):
            one, two = rows.seconds(f"threads/{cfg}/{prec}/1"), rows.seconds(f"threads/{cfg}/{prec}/2")
            if one is None or two is None:
                continue
            lines.append([cfg, prec, fmt_time(one), fmt_time(two), fmt_ratio(one, two)])
            if cfg in THREAD_TARGETS:
                target = THREAD_TARGETS[cfg]
                checks.append((f"{prec} {cfg}: 2 workers >= {target}x of 1", one / two >= target, f"{one / two:.2f}x"))
    if not lines:
        return [], []
    out += table(["config", "precision", "1 worker", "2 workers", "speed-up"], lines)
    return out, checks


# A batch of 8 tiny sequences (batch/ rows), issue 37: the least share of the peak, per precision.
BATCH_TARGETS = {"f32": 90, "int8": 75}


def batch_table(rows, peaks, ceilings):
    """Per-sequence time of a batch of 8 full sequences in one call (1 and 2 workers) against one
    sequence a call, with the batch's share of the peak."""
    out = ["### Batches of sequences (valid_len = seq_len)", "",
           "sf::forward_batch on a batch of 8 sequences (batch_workspace_for<Cfg, 8>: tiles of up to 128 rows "
           "of any sequences), time per sequence; % of peak of the one-worker batch; the same bytes as "
           "one call per sequence.", ""]
    lines, checks = [], []
    for cfg in CONFIGS:
        for prec in ("f32", "int8"):
            one = rows.seconds(f"encoder/{cfg}/{prec}/simd/1")
            b1, b2 = rows.seconds(f"batch/{cfg}/{prec}/8/1"), rows.seconds(f"batch/{cfg}/{prec}/8/2")
            if b1 is None:
                continue
            per = b1 / 8
            r, peak = rate(cfg, per), peaks[prec]
            pct = 100 * r / peak if peak else None
            lines.append([cfg, prec, fmt_time(one) if one else "", fmt_time(per), f"{r:.1f}",
                          f"{pct:.0f}%" if pct is not None else "", fmt_ratio(one, per) if one else "",
                          fmt_time(b2 / 8) if b2 else "", fmt_ratio(one, b2 / 8) if one and b2 else ""])
            if cfg == "tiny" and pct is not None:
                target = BATCH_TARGETS[prec]
                checks.append((f"{prec} tiny, batch 8 >= {target}% of peak", pct >= target,
                               with_ceiling(pct, ceilings.get((cfg, prec)))))
    if not lines:
        return [], []
    out += table(["config", "precision", "one a call", "batch 8, per sequence", "GFLOP/s or GOP/s", "% of peak",
                  "speed-up", "batch 8 on 2 workers, per sequence", "speed-up"], lines)
    return out, checks


# Issue 37: every valid length within this share of the fitted cost model.
SWEEP_TOLERANCE = 0.20


def sweep_points(rows, cfg, prec):
    """[(valid_len, seconds)] of the sweep/<cfg>/<prec>/<n> rows found."""
    points = [(n, rows.seconds(f"sweep/{cfg}/{prec}/{n}")) for n in range(1, seq_len(cfg) + 1)]
    return [(n, t) for n, t in points if t is not None]


def fit_cost(points):
    """Least-squares fit, in relative error, of t = a + b n + c n^2 (a fixed cost, rows x weights,
    rows^2 of attention): the coefficients and each point's deviation t / fit - 1."""
    import numpy as np
    n = np.array([p[0] for p in points], dtype=float)
    t = np.array([p[1] for p in points])
    basis = np.stack([np.ones_like(n), n, n * n], axis=1)
    coef = np.linalg.lstsq(basis / t[:, None], np.ones_like(t), rcond=None)[0]
    return coef, t / (basis @ coef) - 1


def sweep_table(rows):
    """Time against valid_len (one thread) and the fitted model; the plot's curves."""
    out = ["### Cost against valid_len (one thread)", "",
           "One pass at every valid_len 1..seq_len, fitted (least squares in relative error) by "
           "t = a + b n + c n^2: a fixed cost, rows x weights, rows^2 of attention. A point far above "
           f"the fit is a cliff; the target is every point within {SWEEP_TOLERANCE:.0%}.", ""]
    lines, checks, curves = [], [], []
    for cfg, dims in SWEEP_CONFIGS.items():
        for prec in ("f32", "int8"):
            points = sweep_points(rows, cfg, prec)
            if len(points) < 4:
                continue
            coef, dev = fit_cost(points)
            worst = int(abs(dev).argmax())
            half, full = dict(points).get(seq_len(cfg) // 2), points[-1][1]
            lines.append([f"{cfg} ({dims})", prec, fmt_time(points[0][1]), fmt_time(half), fmt_time(full),
                          f"{coef[0] * 1e6:.2f} us", f"{coef[1] * 1e9:.0f} ns", f"{coef[2] * 1e9:.2f} ns",
                          f"{dev[worst]:+.0%} at {points[worst][0]}"])
            checks.append((f"sweep {prec} {cfg}: every valid_len within {SWEEP_TOLERANCE:.0%} of the fit",
                           abs(dev[worst]) <= SWEEP_TOLERANCE, f"{dev[worst]:+.0%} at {points[worst][0]}"))
            curves.append((f"{cfg} {prec}", points, coef))
    if not lines:
        return [], [], []
    out += table(["config", "precision", "n = 1", "n = seq_len / 2", "n = seq_len", "a (fixed)", "b (per row)",
                  "c (per row^2)", "worst deviation"], lines)
    return out, checks, curves


def speed_checks(rows, fma_peak):
    """(name, met, value) of the targets: share of the FMA peak, against Eigen, int8 against f32."""
    checks = []
    for cfg, target in PEAK_TARGETS.items():
        t = rows.seconds(f"encoder/{cfg}/f32/simd/1")
        if t and fma_peak:
            pct = 100 * rate(cfg, t) / fma_peak
            checks.append((f"f32 {cfg} >= {target}% of FMA peak", pct >= target, f"{pct:.0f}%"))
    for cfg in CONFIGS:
        t, eigen = rows.seconds(f"encoder/{cfg}/f32/simd/1"), rows.seconds(f"eigen/{cfg}/f32/1")
        if t and eigen:
            checks.append((f"f32 simd vs Eigen {cfg} >= {EIGEN_TARGET}x", eigen / t >= EIGEN_TARGET, f"{eigen / t:.2f}x"))
    for cfg in CONFIGS:
        f32, i8 = rows.seconds(f"encoder/{cfg}/f32/simd/1"), rows.seconds(f"encoder/{cfg}/int8/simd/1")
        if f32 and i8:
            checks.append((f"int8 vs f32 {cfg} >= {INT8_TARGET}x", f32 / i8 >= INT8_TARGET, f"{f32 / i8:.2f}x"))
    return checks


def section(title, rows, int8_isa):
    """Markdown lines of one build, its plot data, and its target checks."""
    fma, dot = rows.best("fma_peak", "GFLOP/s"), rows.best("int8_dot_peak", "GOP/s")
    amx = rows.best("int8_amx_peak", "GOP/s")[0]
    peaks = {"f32": fma[0], "f16": fma[0], "int8": dot[0], "int8_amx": amx}
    out = peaks_header(title, fma, dot, int8_isa, amx)
    lines, plot = whole_encoder_table(rows, peaks)
    out += lines + precision_table(rows) + latency_table(rows) + mask_table(rows) + tile_table(rows)
    out += kernel_tables(rows, peaks)
    lines, share_checks = share_table(rows)
    out += lines
    lines, ceilings = ceiling_table(rows, peaks)
    out += lines
    lines, thread_checks = threads_table(rows)
    out += lines
    lines, batch_checks = batch_table(rows, peaks, ceilings)
    out += lines
    lines, sweep_checks, curves = sweep_table(rows)
    out += lines
    checks = speed_checks(rows, fma[0]) + share_checks + thread_checks + batch_checks + sweep_checks
    if title.startswith("AVX-512"):  # the build issue 37 states its one-sequence bounds for
        checks += bound_checks(rows, peaks, ceilings)
    out += ["### Targets", ""]
    out += table(["target", "value", "status"], [[name, value, "MET" if ok else "**MISSED**"] for name, ok, value in checks])
    return out, (plot, curves)


# ---- plot ---------------------------------------------------------------------------------

def make_plot(panels, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found (Debian: python3-matplotlib): no results.png", file=sys.stderr)
        return False
    series = ["reference f32", "Eigen f32", "simd f32", "simd f16", "simd int8"]
    fig, axes = plt.subplots(2, len(panels), figsize=(7 * len(panels), 9), squeeze=False)
    width = 0.8 / len(series)
    for ax, (title, (data, curves)) in zip(axes[1], panels):
        plot_sweep(ax, title, curves)
    for ax, (title, (data, curves)) in zip(axes[0], panels):
        xs = range(len(data))
        for i, label in enumerate(series):
            ax.bar([x + (i - (len(series) - 1) / 2) * width for x in xs],
                   [(bars.get(label) or 0) * 1e6 for _, bars in data], width=width, label=label)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{cfg}\n{CONFIGS[cfg]}" for cfg, _ in data])
        ax.set_yscale("log")
        ax.set_ylabel("time per inference (us, log scale)")
        ax.set_title(f"{title}\none thread, batch 1, valid_len = seq_len", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def plot_sweep(ax, title, curves):
    """Time against valid_len (points) and the fitted a + b n + c n^2 (lines), per shape and precision."""
    for label, points, coef in curves:
        n = [p[0] for p in points]
        dots = ax.plot(n, [p[1] * 1e6 for p in points], ".", label=label)[0]
        ax.plot(n, [(coef[0] + coef[1] * k + coef[2] * k * k) * 1e6 for k in n], "-", color=dots.get_color(),
                alpha=0.5)
    ax.set_xlabel("valid_len")
    ax.set_ylabel("time per pass (us)")
    ax.set_title(f"{title}\none thread: points measured, lines the fitted a + b n + c n^2", fontsize=10)
    ax.grid(alpha=0.3)
    if curves:
        ax.legend(fontsize=8)


# ---- header -------------------------------------------------------------------------------

def compiler_info(build):
    cache = build / "CMakeCache.txt"
    values = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            m = re.match(r"(CMAKE_CXX_COMPILER|CMAKE_CXX_FLAGS|CMAKE_CXX_FLAGS_RELEASE|CMAKE_BUILD_TYPE):\w+=(.*)", line)
            if m:
                values[m.group(1)] = m.group(2)
    cxx = values.get("CMAKE_CXX_COMPILER", "c++")
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        version = cxx
    common = " ".join(v for v in (values.get("CMAKE_CXX_FLAGS", ""), values.get("CMAKE_CXX_FLAGS_RELEASE", "")) if v)
    return version, common, values.get("CMAKE_BUILD_TYPE", "")


def target_flags(build, binary):
    """The compile flags of one benchmark target (Makefile generator's flags.make), if found."""
    flags = build / "bench" / "CMakeFiles" / f"{binary}.dir" / "flags.make"
    if flags.exists():
        for line in flags.read_text().splitlines():
            if line.startswith("CXX_FLAGS"):
                return line.split("=", 1)[1].strip()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", default="build/test", help="CMake build directory")
    parser.add_argument("--min-time", type=float, default=0.1, help="--benchmark_min_time per benchmark (s)")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--reuse", action="store_true", help="use the JSON of the last run, run nothing")
    args = parser.parse_args()
    build = Path(args.build).resolve()
    flags = cpu_flags()
    version, common_flags, build_type = compiler_info(build)

    sections, panels, reports, ran = [], [], {}, []
    for title, float_bin, int8_bin, needs in BUILDS:
        missing = [f for f in needs if f not in flags]
        paths = [build / "bench" / b for b in (float_bin, int8_bin)]
        if missing or not all(p.exists() for p in paths):
            why = f"this CPU lacks {', '.join(missing)}" if missing else "not built"
            sections += [f"## {title}", "", f"Skipped: {why}.", ""]
            continue
        for b, p in zip((float_bin, int8_bin), paths):
            if b not in reports:
                reports[b] = run(p, args)
                ran.append(b)
        rows = Rows(reports[float_bin], reports[int8_bin])
        isa = next((b.get("label") for n, b in rows.rows.items() if n.startswith("int8_dot_peak/") and b.get("label")),
                   int8_bin.replace("bench_int8_", ""))
        lines, plot = section(title, rows, isa)
        sections += lines
        panels.append((title, plot))

    # The precisions side by side and ONNX Runtime (bench/ort_compare.py), kept for --reuse.
    kept = build / "bench" / "ort" / "section.md"
    if args.reuse:
        sections += kept.read_text().splitlines() if kept.exists() else []
    else:
        lines = ort_compare.section(build)
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text("\n".join(lines))
        sections += lines

    context = next((r.get("context", {}) for r in reports.values() if r), {})
    caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                       for c in context.get("caches", []) if c.get("type") in ("Data", "Unified"))
    interesting = ["fma", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512vbmi", "avx_vnni", "avx512_bf16", "f16c"]
    out = ["# staticformer benchmark results", "",
           f"Generated by `make bench` (bench/make_results.py) on {datetime.date.today().isoformat()}. "
           "Run it on an idle machine; nothing here is asserted anywhere.", "",
           f"- CPU: {cpu_model()} ({platform.machine()}), {context.get('num_cpus', '?')} logical CPUs, "
           f"{context.get('mhz_per_cpu', '?')} MHz nominal; {caches}",
           f"- CPU flags: {' '.join(f for f in interesting if f in flags) or 'none of ' + ', '.join(interesting)}",
           f"- OS: Linux {platform.release()}",
           f"- compiler: {version}; CMake {build_type or 'default'} flags `{common_flags}`"]
    for b in ran:
        tf = target_flags(build, b)
        if tf:
            out.append(f"  - {b}: `{tf}`")
    out += [f"- Google Benchmark, one thread (but the thread-scaling rows), batch 1: each benchmark runs for at least {args.min_time} s, "
            f"{args.repetitions} times, the repetitions of all the binary's benchmarks in random order; "
            f"the tables use the **{STATISTIC} CPU time** of the repetitions "
            "(for the GELU kernel, which restores its input between calls untimed, the median manual time).",
            "- configurations (d_model/heads/d_ff/seq_len/layers): "
            + ", ".join(f"{c} {d}" for c, d in CONFIGS.items()) + "; pre-norm, GELU, final LayerNorm.",
            "- weights: random at fan-in scale (tests/common/cases.hpp); int8 = the same weights quantised "
            "by the library's calibrator; input: uniform in [-2, 2).", ""]
    out += sections
    if panels and make_plot(panels, HERE / "results.png"):
        out += ["![time per inference per configuration and precision](results.png)", ""]
    (HERE / "RESULTS.md").write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
