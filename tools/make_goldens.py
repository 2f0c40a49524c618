#!/usr/bin/env python3
"""Generate the PyTorch goldens of staticformer's parity tests.

For each configuration in GOLDENS: build a seeded torch.nn.TransformerEncoder (batch_first,
eval mode, dropout 0; weight matrices re-drawn per layer, every LayerNorm gamma/beta and every
bias randomised so none is 1 or 0), run one standard-normal input sequence under no_grad with a
key padding mask hiding positions >= valid_len (no mask when valid_len == seq_len), set the
padded output rows to exactly 0, and write

    OUT/<name>/model.sfwb     the weights blob, made by tools/export_pytorch.py from the saved
                              module (or from its state_dict plus flags, where GOLDENS says so)
    OUT/<name>/input.bin      float32 little-endian, [seq_len][d_model]
    OUT/<name>/expected.bin   float32 little-endian, [seq_len][d_model], padded rows 0
    OUT/<name>/valid_len.txt  one integer
    OUT/<name>/model.hpp      the exporter's C++ header (configurations with header=True)
    OUT/<name>/model_f16.sfwb the same weights exported with --precision f16 (configurations in
                              F16_EXPORTS): numpy's float16 rounding, which the parity tests
                              compare byte for byte with the C++ conversion of model.sfwb
    OUT/<name>/model_f16.hpp  its C++ header (F16_EXPORTS configurations with header=True)
    OUT/<name>/calibration.bin  standard-normal sequences (16, or CALIBRATION_ROWS rows), float32
                              [count][seq_len][d_model], from numpy (seeded per configuration,
                              apart from torch's generator): int8 calibration inputs
    OUT/<name>/model_int8.sfwb, model_int8.hpp  the exporter's --precision int8 output on those
                              samples (INT8_EXPORTS: configuration -> calibration method)
    OUT/parity_configs.hpp    golden::<name>_config for each configuration, and the macro
                              STATICFORMER_GOLDEN_CONFIGS(X) expanding X(<name>) for each

Run with the Python that has torch (1.13 or later):

    python3 tools/make_goldens.py [--out tests/golden]

The output is deterministic: running it twice gives byte-identical files.
"""

import argparse
import functools
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import export_pytorch  # noqa: E402  (the exporter, reused)
from encoder_schema import REFERENCE_CONFIGS, EncoderSpec  # noqa: E402


@dataclass(frozen=True)
class Golden:
    name: str
    spec: EncoderSpec
    valid_len: int
    seed: int
    export_from: str  # "module" or "state_dict": which exporter input path makes the blob
    header: bool      # also write the exporter's C++ header


GOLDENS = [Golden(*row) for row in (
    # name                              D  H    F   S  L  pre    activation   final  eps   valid seed from         header
    ("post_relu",            EncoderSpec(32, 4,  64,  8, 2, False, "relu",      False, 1e-5),  8,  1, "module",     True),
    ("pre_gelu_final",       EncoderSpec(32, 4,  64,  8, 2, True,  "gelu",      True,  1e-5),  5,  2, "module",     False),
    ("odd_post_gelu",        EncoderSpec(24, 3,  40,  7, 2, False, "gelu",      False, 1e-5),  4,  3, "state_dict", True),
    ("odd_pre_relu_final",   EncoderSpec(24, 3,  40,  7, 3, True,  "relu",      True,  1e-5),  7,  4, "state_dict", False),
    ("post_gelu_tanh_final", EncoderSpec(20, 5,  36,  9, 2, False, "gelu_tanh", True,  1e-6),  6,  5, "module",     False),
    ("tiny_pre_gelu",        REFERENCE_CONFIGS["tiny"],                                      20,  6, "module",     False),
    ("single",               EncoderSpec( 8, 1,  16,  1, 1, False, "relu",      False, 1e-5),  1,  7, "module",     False),
    ("wide_post_relu_final", EncoderSpec(48, 6,  96, 17, 2, False, "relu",      True,  1e-5), 13,  8, "module",     False),
)]

# Configurations also exported with --precision f16 (one without and one with a final norm, so
# both blob layouts are covered).
F16_EXPORTS = ("post_relu", "pre_gelu_final")
INT8_EXPORTS = {"post_relu": "min_max", "pre_gelu_final": "percentile"}
CALIBRATION_ROWS = 256  # at least 16 samples, and at least this many rows in all

TORCH_ACTIVATIONS = {
    "relu": "relu",
    "gelu": "gelu",
    "gelu_tanh": functools.partial(F.gelu, approximate="tanh"),
}


def build_encoder(s: EncoderSpec) -> nn.TransformerEncoder:
    """A seeded encoder whose layers differ and whose LayerNorms and biases are not 1/0."""
    layer = nn.TransformerEncoderLayer(s.d_model, s.heads, s.d_ff, dropout=0.0,
                                       activation=TORCH_ACTIVATIONS[s.activation],
                                       layer_norm_eps=s.eps, batch_first=True,
                                       norm_first=s.norm_first)
    final = nn.LayerNorm(s.d_model, eps=s.eps) if s.final_norm else None
    encoder = nn.TransformerEncoder(layer, s.layers, norm=final).eval()
    gammas = {id(m.weight) for m in encoder.modules() if isinstance(m, nn.LayerNorm)}
    with torch.no_grad():
        for name, p in encoder.named_parameters():
            if id(p) in gammas:
                p.uniform_(0.5, 1.5)
            elif name.endswith("bias"):
                p.normal_(0.0, 0.2)
            else:  # TransformerEncoder deep-copies one layer: re-draw so the layers differ
                nn.init.xavier_uniform_(p)
    return encoder


def run_torch(encoder: nn.TransformerEncoder, x: torch.Tensor, valid_len: int) -> torch.Tensor:
    seq_len = x.shape[1]
    mask = None if valid_len == seq_len else (torch.arange(seq_len) >= valid_len).unsqueeze(0)
    with torch.no_grad():
        out = encoder(x, src_key_padding_mask=mask)
    # Torch's nested-tensor fast path returns only max(valid_len) rows; other paths return
    # seq_len rows with computed values in the padded ones. Either way: seq_len rows, padding 0.
    y = torch.zeros_like(x)
    y[:, :valid_len, :] = out[:, :valid_len, :]
    return y


def export_blob(g: Golden, encoder: nn.TransformerEncoder, out: Path, tmp: Path, precision: str = "f32") -> None:
    """Runs the exporter's command line on the saved module or state_dict (int8: calibrated on
    OUT/<name>/calibration.bin)."""
    s = g.spec
    stem = "model" if precision == "f32" else f"model_{precision}"
    cmd = [sys.executable, str(TOOLS / "export_pytorch.py"), "--seq-len", str(s.seq_len),
           "--name", g.name if precision == "f32" else f"{g.name}_{precision}",
           "--blob", str(out / f"{stem}.sfwb")]
    if precision != "f32":
        cmd += ["--precision", precision]
    if precision == "int8":
        samples = np.fromfile(out / "calibration.bin", dtype="<f4").reshape(-1, s.seq_len, s.d_model)
        np.save(tmp / "calibration.npy", samples)
        cmd += ["--calibration", str(tmp / "calibration.npy"), "--calibration-method", INT8_EXPORTS[g.name]]
    if g.header:
        cmd += ["--header", str(out / f"{stem}.hpp")]
    if g.export_from == "module":
        torch.save(encoder, tmp / "model.pt")
        cmd += ["--module", str(tmp / "model.pt")]
    else:
        torch.save(encoder.state_dict(), tmp / "state_dict.pt")
        cmd += ["--state-dict", str(tmp / "state_dict.pt"), "--d-model", str(s.d_model),
                "--heads", str(s.heads), "--d-ff", str(s.d_ff), "--layers", str(s.layers),
                "--activation", s.activation, "--eps", repr(s.eps)]
        cmd += ["--norm-first"] * s.norm_first + ["--final-norm"] * s.final_norm
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def write_f32(path: Path, t: torch.Tensor) -> None:
    path.write_bytes(t.detach().numpy().astype("<f4").tobytes())


def parity_configs_text() -> str:
    lines = [
        "// Configurations of the PyTorch goldens in this directory, generated by",
        "// tools/make_goldens.py. golden::<name>_config is the encoder_config of <name>/model.sfwb;",
        "// STATICFORMER_GOLDEN_CONFIGS(X) expands X(<name>) once per configuration.",
        "#pragma once",
        "",
        "#include <staticformer/config.hpp>",
        "",
        "namespace golden {",
    ]
    lines += [export_pytorch.config_using(g.name, g.spec) for g in GOLDENS]
    lines += ["}  // namespace golden", "", "#define STATICFORMER_GOLDEN_CONFIGS(X) \\"]
    lines += [f"    X({g.name})" + (" \\" if i + 1 < len(GOLDENS) else "")
              for i, g in enumerate(GOLDENS)]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description="Generate PyTorch goldens for the parity tests.")
    p.add_argument("--out", type=Path, default=TOOLS.parent / "tests" / "golden",
                   help="output directory (default: tests/golden)")
    args = p.parse_args()
    torch.set_num_threads(1)  # one summation order, run after run
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors is in prototype")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for g in GOLDENS:
            torch.manual_seed(g.seed)
            s = g.spec
            encoder = build_encoder(s)
            x = torch.randn(1, s.seq_len, s.d_model)
            y = run_torch(encoder, x, g.valid_len)
            out = args.out / g.name
            out.mkdir(exist_ok=True)
            export_blob(g, encoder, out, Path(tmp))
            if g.name in F16_EXPORTS:
                export_blob(g, encoder, out, Path(tmp), "f16")
            calibration = np.random.default_rng(g.seed).standard_normal(
                (max(16, -(-CALIBRATION_ROWS // s.seq_len)), s.seq_len, s.d_model), dtype=np.float32)
            (out / "calibration.bin").write_bytes(calibration.astype("<f4").tobytes())
            if g.name in INT8_EXPORTS:
                export_blob(g, encoder, out, Path(tmp), "int8")
            write_f32(out / "input.bin", x)
            write_f32(out / "expected.bin", y)
            (out / "valid_len.txt").write_text(f"{g.valid_len}\n")
            print(f"{g.name:22s} {export_pytorch.describe(s)}  valid_len {g.valid_len}  "
                  f"max|y| {float(y.abs().max()):.4f}")
    (args.out / "parity_configs.hpp").write_text(parity_configs_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
