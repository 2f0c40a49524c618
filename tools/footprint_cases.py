"""Footprint: what is measured: the targets, configurations, precisions and budgets."""

import os
from dataclasses import replace

from staticformer_export.encoder_schema import REFERENCE_CONFIGS
from footprint_build import ROOT
from footprint_weights import f16_bits_literal, f32_literal


class Target:
    def __init__(self, name, toolchain, prefix, runner, bare=False):
        self.name, self.toolchain, self.prefix, self.runner, self.bare = name, toolchain, prefix, runner, bare

    @property
    def suffix(self):
        return ".elf" if self.bare else ""


RUN_SH = os.path.join(ROOT, "ports", "cortex-m", "run.sh")
TARGETS = [
    Target("x86-64", None, "", []),
    Target("aarch64-linux", "ports/aarch64-linux/toolchain.cmake", "aarch64-linux-gnu-",
           ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
    Target("armv7-linux", "ports/armv7-linux/toolchain.cmake", "arm-linux-gnueabihf-",
           ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"]),
    Target("riscv64-linux", "ports/riscv64-linux/toolchain.cmake", "riscv64-linux-gnu-",
           ["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"]),
    Target("cortex-m3", "ports/cortex-m/toolchain-cortex-m3.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m4", "ports/cortex-m/toolchain-cortex-m4.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m7", "ports/cortex-m/toolchain-cortex-m7.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m55", "ports/cortex-m/toolchain-cortex-m55.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
]
TARGET_BY_NAME = {t.name: t for t in TARGETS}

# The reference configurations that fit the emulated Cortex-M boards' flash (mini and wide do not):
# the footprint table, on every target.
FOOTPRINT_CONFIGS = ("tiny", "small")
# Every configuration measured: those, and narrow, measured by the Cortex-M speed proxy only (M4,
# M7, M55; no footprint or timing table): a narrow encoder, so that the export report's cost model
# (python/staticformer_export/kernel_costs.py, fitted to python/staticformer_export/footprint_costs.json) sees the per-row and per-call
# overheads that the reference configurations' wide rows hide (small models such as the digits
# examples are made of them).
CONFIGS = dict({name: REFERENCE_CONFIGS[name] for name in FOOTPRINT_CONFIGS},
               narrow=replace(REFERENCE_CONFIGS["tiny"], d_model=16, heads=2, d_ff=64, seq_len=48, layers=1))
# The block options, speed proxy only (M4, M55): tiny with rotary positions, and tiny as a
# NeoBERT-like block (RMSNorm, SwiGLU, rotary, grouped-query attention, no biases). What each
# option's kernel costs beside tiny's: the rotary turn's share, RMSNorm against LayerNorm.
OPTION_CONFIGS = {
    "rotary": replace(REFERENCE_CONFIGS["tiny"], rotary="halves", rotary_theta=10000),
    "modern": replace(REFERENCE_CONFIGS["tiny"], rms_norm=True, glu=True, activation="silu", rotary="halves",
                      rotary_theta=10000, kv_heads=2, no_bias=True),
}
CONFIGS.update(OPTION_CONFIGS)

# Emulated runs that would take minutes run fewer valid rows: (target, config) -> valid_len.
# The stack high-water mark does not depend on valid_len (no VLA, no alloca; every kernel runs).
PROBE_VALID_LEN = {("cortex-m3", "small"): 8}
# Cortex-M speed proxy: which configs to profile per core (small: 3.2 MB of weights fit the
# 4 MiB flash of MPS2 and the 8 MiB of AN547; on the soft-float M3 it would take minutes).
PROFILE_CONFIGS = {"cortex-m3": ["tiny"], "cortex-m4": ["tiny", "small", "narrow", "rotary", "modern"],
                   "cortex-m7": ["tiny", "small", "narrow"], "cortex-m55": ["tiny", "small", "narrow", "rotary", "modern"]}

# The budgets of the issue: Cortex-M4, tiny: code <= 16 KiB; RAM (workspace + stack) <= 24 KiB
# in f32, <= 8 KiB in int8 (reference kernels and the port's DSP kernels).
BUDGETS = [{"target": "cortex-m4", "config": "tiny", "precision": p, "code": 16 * 1024, "ram": ram}
           for p, ram in [("f32", 24 * 1024), ("int8", 8 * 1024), ("int8-dsp", 8 * 1024)]]


class Precision:
    """literal: how one weight value is written (f32, f16), or None: quantised from f32 (int8).
    weights: the precision whose weights header this one reuses; backend: a backend other than
    the default: (C++ type, name), or [(preprocessor condition or None, C++ type, name), ...], the
    first whose condition holds on the target; targets: the targets it exists on (None: all)."""

    def __init__(self, name, tag, element_bytes=None, literal=None, weights=None, backend=None, targets=None):
        self.name, self.tag, self.element_bytes, self.literal = name, tag, element_bytes, literal
        self.weights, self.backend, self.targets = weights, backend, targets


PRECISIONS = {
    "f32": Precision("f32", "staticformer::f32", 4, f32_literal),
    # binary16 storage (std::uint16_t bit patterns, include/staticformer/math/fp16.hpp); picked up
    # by --precisions auto whenever encoder<cfg, f16> compiles.
    "f16": Precision("f16", "staticformer::f16", 2, f16_bits_literal),
    # int8 weights, int32 biases, fixed-point multipliers (weights_int8.hpp): quantised from the
    # f32 weights on the host by quant/quantize.hpp (ports/footprint/quantize_weights.cpp).
    "int8": Precision("int8", "staticformer::int8"),
    # The same int8 weights through the core's own int8 backend, its default: cortex_m_mve where
    # Helium is (M55; kernels/cortex_m/mve), else cortex_m_dsp (M4, M7; kernels/cortex_m/dsp:
    # SMLAD), on the cores with the DSP extension.
    "int8-dsp": Precision("int8-dsp", "staticformer::int8", weights="int8",
                          backend=[("STATICFORMER_HAS_CORTEX_M_MVE", "staticformer::cortex_m_mve", "cortex_m_mve"),
                                   (None, "staticformer::cortex_m_dsp", "cortex_m_dsp")],
                          targets=("cortex-m4", "cortex-m7", "cortex-m55")),
    # int16 activations, int8 weights (weights_a16w8.hpp), quantised as int8 is; and through the
    # core's own backend, as int8-dsp.
    "a16w8": Precision("a16w8", "staticformer::a16w8"),
    "a16w8-dsp": Precision("a16w8-dsp", "staticformer::a16w8", weights="a16w8",
                           backend=[("STATICFORMER_HAS_CORTEX_M_MVE", "staticformer::cortex_m_mve", "cortex_m_mve"),
                                    (None, "staticformer::cortex_m_dsp", "cortex_m_dsp")],
                           targets=("cortex-m4", "cortex-m7", "cortex-m55")),
}
