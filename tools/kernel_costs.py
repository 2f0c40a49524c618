"""Cortex-M instructions per unit of work of each kernel, for the export report's estimates
(tools/export_report.py).

Source: `make footprint` (tools/footprint.sh), as committed in README.md's "Footprint" section at
commit f8713c4 (2026-11-25): the tiny reference configuration (64/4/256/32/2, pre-norm, GELU,
final norm, valid_len 32, -O2), instructions per inference counted by QEMU (-icount shift=0), and
each kernel's share of them (%). The per-unit cost of a kernel is its instructions divided by the
units of work it did in that run (TINY_UNITS): multiply-adds for linear / scores / context, score
elements for softmax, row elements for LayerNorm, activation and add, and row elements per
layer for the composition's own work (glue). int8 is the cores' default int8 backend,
cortex_m_dsp (SMLAD; Helium on the M55).
"""

KINDS = ("linear", "scores", "softmax", "context", "layer_norm", "activation", "add", "glue")
CORES = ("cortex-m4", "cortex-m7", "cortex-m55")
SOURCE = "make footprint, README.md Footprint tables at commit f8713c4 (2026-11-25), tiny, -O2"

# (core, precision) -> (instructions per inference, shares in % in KINDS order): README.md,
# "Cortex-M instructions per inference" and "Share of each kernel, tiny".
MEASURED_TINY = {
    ("cortex-m4", "f32"): (8_461_800, (63.9, 5.0, 5.8, 5.3, 3.3, 15.2, 0.6, 0.9)),
    ("cortex-m7", "f32"): (8_453_880, (63.9, 5.0, 5.8, 5.3, 3.3, 15.2, 0.6, 0.9)),
    ("cortex-m55", "f32"): (8_170_843, (63.9, 4.9, 5.9, 4.7, 3.2, 16.1, 0.5, 0.8)),
    ("cortex-m4", "f16"): (9_329_040, (66.6, 4.6, 5.3, 4.8, 3.6, 13.8, 0.5, 0.8)),
    ("cortex-m7", "f16"): (9_321_000, (66.7, 4.6, 5.2, 4.8, 3.6, 13.8, 0.5, 0.8)),
    ("cortex-m55", "f16"): (9_041_000, (66.7, 4.4, 5.3, 4.2, 3.6, 14.6, 0.5, 0.7)),
    ("cortex-m4", "int8"): (6_319_480, (69.2, 3.6, 8.5, 5.5, 7.5, 2.2, 2.4, 1.1)),
    ("cortex-m7", "int8"): (6_254_400, (68.6, 3.7, 8.6, 5.5, 7.8, 2.3, 2.4, 1.1)),
    ("cortex-m55", "int8"): (1_751_500, (58.9, 2.5, 12.3, 9.5, 11.7, 0.8, 3.4, 0.7)),
}

# Whole-encoder counts of the small configuration (128/4/512/64/4) from the same table: not used
# to derive the costs, so they check the estimate out of sample (tests/export_report_test.py).
MEASURED_SMALL = {
    ("cortex-m4", "f32"): 115_927_240, ("cortex-m7", "f32"): 115_862_720, ("cortex-m55", "f32"): 111_191_562,
    ("cortex-m4", "f16"): 129_111_240, ("cortex-m7", "f16"): 129_046_720, ("cortex-m55", "f16"): 124_435_156,
    ("cortex-m4", "int8"): 88_003_200, ("cortex-m7", "int8"): 85_231_640, ("cortex-m55", "int8"): 21_447_625,
}


def encoder_units(d_model: int, heads: int, d_ff: int, rows: int, layers: int, final_norm: bool) -> dict:
    """Units of work of each kernel kind in one pass over `rows` valid rows."""
    per_layer = {"linear": rows * (4 * d_model * d_model + 2 * d_model * d_ff),
                 "scores": rows * rows * d_model, "context": rows * rows * d_model,
                 "softmax": heads * rows * rows, "layer_norm": 2 * rows * d_model,
                 "activation": rows * d_ff, "add": 2 * rows * d_model, "glue": rows * d_model}
    units = {k: layers * v for k, v in per_layer.items()}
    units["layer_norm"] += rows * d_model * int(final_norm)
    return units


TINY_UNITS = encoder_units(64, 4, 256, 32, 2, True)

# (core, precision) -> {kind: instructions per unit}
COSTS = {key: {k: total * share / 100 / TINY_UNITS[k] for k, share in zip(KINDS, shares)}
         for key, (total, shares) in MEASURED_TINY.items()}


def estimate(units: dict, core: str, precision: str) -> float:
    """Estimated instructions for the given units of work."""
    cost = COSTS[core, precision]
    return sum(cost[k] * n for k, n in units.items())
