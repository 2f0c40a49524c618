"""The export report of tools/export_pytorch.py: per part of the exported encoder or model (input,
each layer, final norm, head), its parameters, weight bytes in f32 / f16 / int8 / a16w8, multiply-adds,
and ESTIMATED Cortex-M4 / M7 / M55 instructions per inference from measured per-kernel costs
(kernel_costs.py); the workspace; and the int8 calibration report when there is one.

Parameters and MACs are counted from the arrays and the shapes; weight and workspace bytes are
sizeof() as the C++ compiler lays the structs out (a probe compiled with $CXX, default c++), so
they equal the header's and the blob's sizes. Exact where they can be: tests/export_report_test.py.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import cpp, kernel_costs
from .encoder_schema import kv_dim
PRECISIONS = ("f32", "f16", "int8", "a16w8")
MODEL_PARTS = ("input", "cls", "embedding_norm", "head", "positions")  # model_weights' members after encoder


class Progress:
    """One stderr line per step ("export: step (12.3 s)"), only on a terminal and without --quiet."""

    def __init__(self, quiet: bool = False):
        self.on = not quiet and sys.stderr.isatty()
        self.start = time.monotonic()

    def __call__(self, step: str) -> None:
        if self.on:
            print(f"export: {step} ({time.monotonic() - self.start:.1f} s)", file=sys.stderr, flush=True)


def macs(units: dict) -> int:
    return units.get("linear", 0) + units.get("scores", 0) + units.get("context", 0)


def encoder_parts(spec, weights) -> list:
    """[(part, parameters, ops)] of an encoder: its layers and final norm, all rows valid (ops:
    the kernel calls, kernel_costs.py)."""
    d, s = spec.d_model, spec.seq_len
    layer_ops = kernel_costs.encoder_ops(d, spec.heads, spec.d_ff, s, 1, False, spec.norm_first, spec.causal,
                                         kv_dim(spec), spec.glu, spec.rotary != "none")
    parts = [(f"layer {i}", sum(a.size for a in arrays.values()), layer_ops) for i, arrays in enumerate(weights.layers)]
    if weights.final_norm is not None:
        parts.append(("final_norm", sum(a.size for a in weights.final_norm.values()),
                      kernel_costs.layer_norm(s, d, tiled=False)))
    return parts


def model_parts(spec, weights) -> list:
    """The same for a whole model: input, positions, CLS, embedding norm, the encoder, the head
    (pooling, the pooled row's norm and the classifier)."""
    d, s, tokens = spec.encoder.d_model, spec.encoder.seq_len, spec.input_tokens
    params = {name: sum(a.size for _, _, a in fields) for name, fields in weights.parts}
    ops = {"input": kernel_costs.elementwise("add", tokens, d) if spec.input == "tokens" else
           kernel_costs.linear(tokens, spec.features, d),
           "positions": kernel_costs.elementwise("add", s, d) if spec.positions != "none" else [],
           "cls": [], "embedding_norm": kernel_costs.layer_norm(s, d) if spec.embedding_norm else [],
           "head": (kernel_costs.linear(1, d, spec.classes) if spec.classes else []) +
                   (kernel_costs.elementwise("add", s, d) if spec.pooling == "mean" else []) +
                   (kernel_costs.layer_norm(1, d) if spec.pooled_norm else [])}
    front = [(n, params[n], ops[n]) for n in ("input", "positions", "cls", "embedding_norm") if params[n] or ops[n]]
    back = [("head", params["head"], ops["head"])] if spec.classes or spec.pooling != "none" else []
    return front + encoder_parts(spec.encoder, weights.encoder) + back


def estimates(ops) -> dict:
    """{core: {precision: estimated instructions, or None without the measured costs}}."""
    def rounded(x):
        return None if x is None else round(x)
    return {c: {p: rounded(kernel_costs.estimate(ops, c, p)) for p in PRECISIONS} for c in kernel_costs.CORES}


def _probe_source(name: str, config: str, model: bool) -> str:
    """A program printing sizeof of each part in f32, f16, int8 and a16w8, and the workspaces."""
    if model:
        weights, enc = "sf::model_weights<cfg, P>", "w->encoder"
        workspace = "sf::model_workspace<cfg, cfg::encoder::tile, sf::activation_precision<P>>"
        members = "".join(f'    std::printf("%s {m} %zu\\n", name, sizeof(w->{m}));\n' for m in MODEL_PARTS)
    else:
        weights, enc, members = "sf::encoder_weights<cfg, P>", "(*w)", ""
        workspace = "typename sf::precision_traits<P>::template workspace<cfg, cfg::tile>"
    return f"""#include <cstdio>
#include <type_traits>
#include <staticformer/staticformer.hpp>
namespace sf = staticformer;
{config}
using cfg = {name}_config;
template <class P> void sizes(const char* name) {{
    const {weights}* w = nullptr;
    std::printf("%s total %zu\\n", name, sizeof(*w));
    std::printf("%s layer %zu\\n", name, sizeof({enc}.layer[0]));
    std::printf("%s final_norm %zu\\n", name, sizeof({enc}.final_norm));
{members}    std::printf("%s workspace %zu\\n", name, sizeof({workspace}));
    std::printf("%s tile %d\\n", name, int({"cfg::encoder::tile" if model else "cfg::tile"}));
}}
int main() {{ sizes<sf::f32>("f32"); sizes<sf::f16>("f16"); sizes<sf::int8>("int8"); sizes<sf::a16w8>("a16w8"); }}
"""


def run_probe(source: str, what: str) -> str:
    """Compiles a C++17 program against include/ with $CXX (default c++), runs it, returns its stdout:
    sizes as the compiler lays the structs out (this report, c_api.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = cpp.compile_program(source, Path(tmp), "-O0", what)
        return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def probe_sizes(name: str, config: str, model: bool) -> dict:
    """{precision: {"total", "layer", "final_norm", model parts..., "workspace", "tile"}} in bytes."""
    out = run_probe(_probe_source(name, config, model), "report's size probe")
    sizes = {p: {} for p in PRECISIONS}
    for line in out.splitlines():
        p, what, n = line.split()
        sizes[p][what] = int(n)
    return sizes


def build(name: str, describe: str, precision: str, parts: list, sizes: dict, model: bool,
          calibration: str = None) -> dict:
    """The report as a dict (what --report-json writes)."""
    rows = []
    for part, params, ops in parts:
        key = "layer" if part.startswith("layer ") else part
        units = kernel_costs.units(ops)
        rows.append({"part": part, "parameters": params, "macs": macs(units),
                     "units": {k: n for k, n in units.items() if n},
                     "weight_bytes": {p: sizes[p][key] for p in PRECISIONS}, "estimated_instructions": estimates(ops)})
    listed = {p: sum(r["weight_bytes"][p] for r in rows) for p in PRECISIONS}
    # Members no row lists (int8 scales, empty parts' one byte) and the structs' padding.
    other = {p: sizes[p]["total"] - listed[p] for p in PRECISIONS}
    all_ops = [op for _, _, ops in parts for op in ops]
    return {"name": name, "config": describe, "precision": precision, "model": model,
            "parts": rows, "other_weight_bytes": other,
            "total": {"parameters": sum(r["parameters"] for r in rows), "macs": macs(kernel_costs.units(all_ops)),
                      "weight_bytes": {p: sizes[p]["total"] for p in PRECISIONS},
                      "estimated_instructions": estimates(all_ops)},
            "workspace_bytes": {p: sizes[p]["workspace"] for p in PRECISIONS}, "tile_rows": sizes["f32"]["tile"],
            "estimate_source": kernel_costs.source(), "int8_backend": "cortex_m_dsp",
            "calibration_report": calibration}


def approx(n) -> str:
    return "n/a" if n is None else f"~{n:,}"


def text(report: dict) -> str:
    p = report["precision"]
    head = ["part", "parameters"] + [f"{q} B" for q in PRECISIONS] + ["MACs"] + \
        [f"~{c[7:].upper()} {p}" for c in kernel_costs.CORES]
    def line(part, r):
        return [part, f"{r['parameters']:,}"] + [f"{r['weight_bytes'][q]:,}" for q in PRECISIONS] + \
               [f"{r['macs']:,}"] + [approx(r['estimated_instructions'][c][p]) for c in kernel_costs.CORES]
    body = [line(r["part"], r) for r in report["parts"]]
    o = report["other_weight_bytes"]
    body.append(["other (scales, empty members, padding)", ""] + [f"{o[q]:,}" for q in PRECISIONS] +
                [""] * (1 + len(kernel_costs.CORES)))
    body.append(line("total", report["total"]))
    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    fmt = lambda row: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))  # noqa: E731
    w = report["workspace_bytes"]
    out = [f"export report: {report['name']} ({report['config']}), exported {p}, every row valid", fmt(head)]
    out += [fmt(r) for r in body]
    out += [f"workspace (one buffer for every layer, tile of {report['tile_rows']} rows): f32 / f16 {w['f32']:,} B, "
            f"int8 {w['int8']:,} B, a16w8 {w['a16w8']:,} B",
            f"~ instructions per inference are ESTIMATES (int8: the {report['int8_backend']} backend), "
            f"per-kernel costs from {report['estimate_source']} (kernel_costs.py)"]
    return "\n".join(out)


def report(name: str, describe: str, precision: str, parts: list, config: str, model: bool,
           json_path=None, calibration: str = None) -> str:
    """Builds the report, writes json_path if given, returns the text."""
    r = build(name, describe, precision, parts, probe_sizes(name, config, model), model, calibration)
    if json_path:
        Path(json_path).write_text(json.dumps(r, indent=1) + "\n")
    return text(r)
