"""Estimated Cortex-M4 / M7 / M55 instructions per inference, for the export report
(export_report.py), from the counts `make footprint` measures.

The measured counts are footprint_costs.json, written by tools/footprint.py (the speed
proxy, ports/footprint/README.md): per core, precision and configuration, the instructions of one
inference under QEMU (-icount shift=0, -O2, valid_len = seq_len) and each kernel's share, with
its calls. Nothing here is copied from that file: the costs are fitted to it when first needed,
so they follow every new measurement.

The model: the work of an encoder or a model is a list of kernel calls with their shapes (ops:
linear, attention, layer_norm, activation, add, glue, as the encoder makes them, 4-row tiles on
Cortex-M). Each kernel kind's instructions are a non-negative sum of a few counts of that work:
its main work (multiply-adds, scores, elements), a per-row or per-dot-product term (the loop and
requantisation overhead that does not scale with the main work) and a per-call term. For each
core, precision and kind, the coefficients minimise the relative error against every measured
configuration; the terms that do not lower it (or would need a negative coefficient) are left
out. int8 is the cores' default int8 backend, cortex_m_dsp (the "int8-dsp" rows: SMLAD; Helium
on the M55), whose linear layers also apply the activation.

Limits: the measured encoders are pre-norm with GELU, so a ReLU model's activation cost is
GELU's (an overestimate) and post-norm's LayerNorm calls are counted, not measured; builds at
other optimisation levels differ (the digits models at -O3 take 6 - 10% fewer instructions than
at -O2). tests/export_report_test.py checks the estimates against the file.
"""

import itertools
import json
import math
from pathlib import Path

COSTS_FILE = Path(__file__).resolve().with_name("footprint_costs.json")
CORES = ("cortex-m4", "cortex-m7", "cortex-m55")
# The export's precision -> the measured precision its estimate comes from.
MEASURED_PRECISION = {"f32": "f32", "f16": "f16", "int8": "int8-dsp"}
KINDS = ("linear", "scores", "softmax", "context", "layer_norm", "activation", "add", "glue")
TILE = 4  # rows per tile of the Cortex-M backends (reference, cortex_m_dsp)
# Per kind: the counts its cost may depend on, the main work first (always used).
TERMS = {"linear": ("macs", "outputs", "calls"), "scores": ("macs", "dots", "calls"),
         "context": ("macs", "dots", "calls"), "softmax": ("scores", "rows", "calls"),
         "layer_norm": ("elements", "rows", "calls"), "activation": ("elements", "calls"),
         "add": ("elements", "calls"), "glue": ("elements", "rows", "calls")}


# ---- the work: kernel calls and their shapes ---------------------------------------------------

def linear(rows, n_in, n_out):
    return [("linear", rows, n_in, n_out)]


def attention(rows, keys, d_model, heads, row_by_row=False):
    """Scores, softmax and context of every head: `keys` keys per query row on average; float
    kernels take a tile of rows per call unless row_by_row (causal)."""
    return [("attention", rows, keys, d_model, heads, row_by_row)]


def layer_norm(rows, n, tiled=True):
    """tiled: called per tile (in a layer); else once for every row (int8's final norm)."""
    return [("layer_norm", rows, n, tiled)]


def elementwise(kind, rows, n):
    """activation, add (residuals, positions, pooling) or glue (the composition's own work)."""
    return [(kind, rows, n)]


def encoder_ops(d_model, heads, d_ff, rows, layers, final_norm, norm_first=True, causal=False, kv_dim=None,
                glu=False, rotary=False):
    """The kernel calls of one pass of an encoder over `rows` valid rows. kv_dim: the key and value
    projections' outputs (grouped-query attention; default d_model). glu: a third matrix and the
    gate's product (counted as an add: one multiply per element). rotary: the turn of queries and
    keys (counted as glue, as the footprint's profiler does)."""
    keys = (rows + 1) / 2 if causal else rows
    kv = d_model if kv_dim is None else kv_dim
    layer = (layer_norm(rows, d_model) * (3 if norm_first else 2)  # pre-norm: once more for keys and values
             + linear(rows, d_model, d_model) * 2 + linear(rows, d_model, kv) * 2
             + attention(rows, keys, d_model, heads, causal)
             + linear(rows, d_model, d_ff) * (2 if glu else 1) + elementwise("activation", rows, d_ff)
             + linear(rows, d_ff, d_model) + elementwise("add", rows, d_model) * 2 + elementwise("glue", rows, d_model))
    if glu:
        layer += elementwise("add", rows, d_ff)
    if rotary:
        layer += elementwise("glue", rows, d_model + kv)
    return layer * layers + (layer_norm(rows, d_model, tiled=False) if final_norm else [])


def units(ops):
    """The report's units of work: multiply-adds of linear / scores / context, softmax scores,
    elements of LayerNorm, activation, add and glue."""
    out = {}

    def add(kind, n):
        out[kind] = out.get(kind, 0) + n

    for op in ops:
        if op[0] == "linear":
            add("linear", op[1] * op[2] * op[3])
        elif op[0] == "attention":
            _, rows, keys, d, heads, _ = op
            add("scores", round(rows * keys * d))
            add("softmax", round(heads * rows * keys))
            add("context", round(rows * keys * d))
        else:
            add(op[0], op[1] * op[2])
    return out


def counts(ops, int8):
    """{kind: {term: count}} of ops: what the fitted costs multiply. int8 kernels score one row
    of one head per call and take the final LayerNorm in one call; float ones go tile by tile."""
    out = {k: {} for k in KINDS}

    def add(kind, **terms):
        for t, n in terms.items():
            out[kind][t] = out[kind].get(t, 0) + n

    for op in ops:
        kind, rows = op[0], op[1]
        tiles = math.ceil(rows / TILE)
        if kind == "linear":
            add("linear", macs=rows * op[2] * op[3], outputs=rows * op[3], calls=tiles)
        elif kind == "attention":
            _, _, keys, d, heads, row_by_row = op
            calls = heads * (rows if int8 or row_by_row else tiles)
            for k in ("scores", "context"):
                add(k, macs=rows * keys * d, dots=heads * rows * keys, calls=calls)
            add("softmax", scores=heads * rows * keys, rows=heads * rows, calls=calls)
        elif kind == "layer_norm":
            add("layer_norm", elements=rows * op[2], rows=rows, calls=tiles if op[3] or not int8 else 1)
        else:
            add(kind, elements=rows * op[2], rows=rows, calls=tiles)
    return out


# ---- the measured counts and the fit -----------------------------------------------------------

_DATA, _COSTS = None, {}


def load():
    """The measured counts (COSTS_FILE, footprint_costs.json), or None if it is not there."""
    global _DATA
    if _DATA is None and COSTS_FILE.exists():
        _DATA = json.loads(COSTS_FILE.read_text())
    return _DATA


def available():
    return load() is not None


def config_ops(name):
    """The kernel calls of a measured configuration (valid_len = seq_len)."""
    c = load()["configs"][name]
    return encoder_ops(c["d_model"], c["heads"], c["d_ff"], c["seq_len"], c["layers"], c["final_norm"],
                       c["norm_first"])


def measured(core, precision):
    """{config: entry} measured for the export precision on core (entry: total, kernels, calls)."""
    return load()["measured"].get(core, {}).get(MEASURED_PRECISION.get(precision), {})  # (a16w8: none yet)


def _solve(rows):
    """Least squares of rows [(x..., y)]: coefficients, or None if singular."""
    n = len(rows[0]) - 1
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * r[n] for r in rows)] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12 * max(1.0, max(abs(v) for v in m[p])):
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(samples, terms):
    """{term: cost} minimising the relative squared error over samples [(counts, measured)],
    with the main term and the subset of the others that fits best with non-negative costs
    (fewer terms when equally good)."""
    samples = [(c, y) for c, y in samples if y > 0]
    if not samples:
        return {}
    best = None
    for r in range(len(terms)):
        for extra in itertools.combinations(terms[1:], r):
            use = (terms[0],) + extra
            if len(use) > len(samples):
                continue
            x = _solve([[c.get(t, 0) / y for t in use] + [1.0] for c, y in samples])
            if x is None or any(v < 0 for v in x):
                continue
            err = sum((sum(v * c.get(t, 0) for v, t in zip(x, use)) / y - 1) ** 2 for c, y in samples)
            if best is None or err < best[0] - 1e-9:
                best = (err, dict(zip(use, x)))
    return best[1] if best else {}


def costs(core, precision):
    """{kind: {term: instructions per count}} of core and the export precision."""
    if (core, precision) not in _COSTS:
        entries = measured(core, precision)
        int8 = precision == "int8"
        samples = {name: counts(config_ops(name), int8) for name in entries}
        _COSTS[core, precision] = {
            kind: fit([(samples[name][kind], e["kernels"].get(kind, 0)) for name, e in entries.items()], TERMS[kind])
            for kind in KINDS}
    return _COSTS[core, precision]


def estimate(ops, core, precision):
    """Estimated instructions of the kernel calls ops on core, for the export precision (f32,
    f16, int8), or None without the measured counts."""
    if not available() or not measured(core, precision):
        return None
    c = counts(ops, precision == "int8")
    return sum(v * c[kind].get(t, 0) for kind, terms in costs(core, precision).items() for t, v in terms.items())


def source():
    """Where the estimates come from, for the report."""
    data = load()
    if data is None:
        return f"no measured costs ({COSTS_FILE.name} not found beside {Path(__file__).name}: run make footprint)"
    configs = sorted({c for core in data["measured"].values() for p in core.values() for c in p})
    return (f"make footprint's speed proxy ({COSTS_FILE.name}, {data['options']}, configurations "
            f"{', '.join(configs)}), fitted per kernel")
