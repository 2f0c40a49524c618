"""The export's self-check: the blob just written, run by the library's reference backend (a
program around verify_tool.hpp, compiled here with $CXX), against the torch module the
weights came from, on samples of the model's shape with full and shorter valid lengths.

  f32: the largest error, relative to max(1, max|torch|), must be at most TOLERANCE;
  f16: the same, against the module with its parameters rounded to binary16 (the weights the
       blob holds), and the SQNR against the module as it is;
  int8: the SQNR against the module and, for a classifier, the arg-max agreement (reported,
       not checked: how much int8 costs depends on the model), on the calibration samples.

A wrong export (a transposed projection, two layers swapped) misses the tolerance by orders of
magnitude; a right one stays within 1e-6 or so. Needs torch."""

import copy
import math
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from . import cpp
from .staticformer_torch import run_encoder
TOLERANCE = 1e-4
SAMPLES = 4  # random samples: full length, two shorter ones, one row


class VerifyError(Exception):
    """The export does not compute the module (or could not be checked)."""


@dataclass
class Samples:
    inputs: np.ndarray   # [count, ...]: float32, or int32 token ids
    lengths: np.ndarray  # int32 [count], tokens (the CLS row not counted)


def lengths_for(tokens: int, count: int, full_only: bool) -> np.ndarray:
    """Valid lengths: the full one, then shorter ones down to 1 (full only for image models)."""
    if full_only:
        return np.full(count, tokens, dtype=np.int32)
    picks = [tokens, max(1, (2 * tokens) // 3), max(1, tokens // 3), 1]
    return np.array([picks[i % len(picks)] for i in range(count)], dtype=np.int32)


def random_samples(shape: tuple, tokens: int, vocab: int = 0, full_only: bool = False) -> Samples:
    """Seeded samples of one input's shape: token ids below vocab, else standard normal values."""
    g = np.random.default_rng(20261128)
    size = (SAMPLES,) + tuple(shape)
    x = g.integers(0, vocab, size=size, dtype=np.int32) if vocab else g.standard_normal(size).astype(np.float32)
    return Samples(x, lengths_for(tokens, SAMPLES, full_only))


def rounded_to_f16(module: torch.nn.Module) -> torch.nn.Module:
    """A copy of module whose parameters are rounded to binary16, as an f16 blob holds them."""
    twin = copy.deepcopy(module)
    with torch.no_grad():
        for p in twin.parameters():
            p.copy_(p.half().float())
    return twin


def run_library(config: str, net: str, blob: Path, samples: Samples, out_values: int) -> np.ndarray:
    """The outputs of Net (a type using NAME_config, given as config) on the samples, as float32
    [count, out_values]: verify_tool.hpp's program, compiled and run here."""
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        samples.inputs.tofile(t / "inputs.bin")
        samples.lengths.tofile(t / "lengths.bin")
        try:
            exe = cpp.compile_program(f'#include "verify_tool.hpp"\n{config}\nint main(int argc, char** argv) '
                                      f"{{ return staticformer::verify::verify_main<{net}>(argc, argv); }}\n",
                                      t, "-O1", "check")
        except RuntimeError as e:
            raise VerifyError(str(e)) from None
        run = [str(exe), "--blob", str(blob), "--inputs", str(t / "inputs.bin"),
               "--lengths", str(t / "lengths.bin"), "--outputs", str(t / "outputs.bin")]
        done = subprocess.run(run, capture_output=True, text=True)
        if done.returncode != 0:
            raise VerifyError(f"the library could not run the export: {done.stderr.strip()}")
        return np.fromfile(t / "outputs.bin", dtype="<f4").reshape(len(samples.lengths), out_values)


def sqnr_db(reference: np.ndarray, y: np.ndarray) -> float:
    noise = float(np.sum((reference.astype(np.float64) - y) ** 2))
    signal = float(np.sum(reference.astype(np.float64) ** 2))
    return math.inf if noise == 0 else 10 * math.log10(signal / noise)


def worst(library: np.ndarray, torch_out: np.ndarray, lengths: np.ndarray, what: str, width: int) -> tuple:
    """(relative error, where) of the largest |library - torch| / max(1, max|torch|)."""
    scale = max(1.0, float(np.abs(torch_out).max()))
    diff = np.abs(library.astype(np.float64) - torch_out)
    i = int(np.argmax(diff))
    sample, value = divmod(i, library.shape[1])
    row, column = divmod(value, width)
    where = (f"{what} of sample {sample} (valid length {lengths[sample]}), row {row}, column {column}: "
             f"library {library.flat[i]:.7g}, torch {torch_out.flat[i]:.7g}")
    return float(diff.flat[i]) / scale, where


def check(precision: str, what: str, width: int, samples: Samples, library: np.ndarray,
          torch_outputs: Callable[[bool], np.ndarray], classes: int = 0) -> str:
    """Compares and returns the report line; raises VerifyError past the tolerance (f32, f16).
    torch_outputs(rounded) gives the module's outputs (rounded: its parameters in binary16)."""
    exact = torch_outputs(precision == "f16")
    n = len(samples.lengths)
    if precision in ("int8", "a16w8"):
        line = f"verify: {precision} against torch on {n} calibration samples: SQNR {sqnr_db(exact, library):.1f} dB"
        if classes:
            agree = int(np.sum(exact.argmax(axis=1) == library.argmax(axis=1)))
            line += f", arg-max agrees on {agree} of {n}"
        return line
    error, where = worst(library, exact, samples.lengths, what, width)
    line = (f"verify: {precision} through the reference backend against torch on {n} samples: largest error "
            f"{error:.2g} x max(1, max|torch|) (tolerance {TOLERANCE:g})")
    if precision == "f16":
        line += f"; SQNR against the f32 module {sqnr_db(torch_outputs(False), library):.1f} dB"
    if not error <= TOLERANCE:
        raise VerifyError(f"the export does not compute the module: {error:.3g} x max(1, max|torch|) > "
                          f"{TOLERANCE:g} at {where}. The weights were read wrongly (a layer's parts under "
                          "other names, a transposed matrix?); --no-verify exports anyway")
    return line


def encoder_outputs(encoder: torch.nn.Module, x: np.ndarray, lengths: np.ndarray, causal: bool) -> np.ndarray:
    """nn.TransformerEncoder on each sample's first valid rows (the library's valid_len: later rows
    are no keys and give zeros), on torch's math path; [count, seq_len * d_model]."""
    out = np.zeros(x.shape, dtype=np.float64)
    batch_first = encoder.layers[0].self_attn.batch_first  # else [rows, batch, d_model]
    with torch.no_grad():
        for i, n in enumerate(lengths):
            rows = torch.from_numpy(x[i:i + 1, :n])
            mask = torch.nn.Transformer.generate_square_subsequent_mask(int(n)) if causal else None
            y = run_encoder(encoder, rows if batch_first else rows.transpose(0, 1), attn_mask=mask)
            out[i, :n] = (y[0] if batch_first else y[:, 0]).double().numpy()
    return out.reshape(len(lengths), -1)


def first_samples(calibration) -> Samples:
    """The first calibration samples (export_pytorch.Calibration), with their lengths."""
    return Samples(calibration.samples[:SAMPLES], calibration.lengths[:SAMPLES])


def verify_encoder(encoder: torch.nn.Module, spec, config: str, name: str, precision: str, blob: Path,
                   calibration=None) -> str:
    """Checks an encoder export (spec: its EncoderSpec; config: 'using NAME_config = ...;';
    calibration: int8's and a16w8's export_pytorch.Calibration)."""
    if precision in ("int8", "a16w8"):
        samples = first_samples(calibration)
    else:
        samples = random_samples((spec.seq_len, spec.d_model), spec.seq_len)
    net = f"staticformer::encoder<{name}_config, staticformer::{precision}, staticformer::reference>"
    library = run_library(config, net, blob, samples, spec.seq_len * spec.d_model)

    def torch_outputs(rounded: bool) -> np.ndarray:
        module = rounded_to_f16(encoder) if rounded else encoder
        return encoder_outputs(module, samples.inputs, samples.lengths, spec.causal)
    return check(precision, "output", spec.d_model, samples, library, torch_outputs)


def verify_model(module: torch.nn.Module, run: Callable, spec, config: str, name: str, precision: str,
                 blob: Path, calibration=None, full_only: bool = False) -> str:
    """Checks a whole-model export. run(module, x, lengths) gives the module's outputs [count, ...]
    as the library lays them out (logits, the pooled row, or every row with padding zero);
    full_only: run is given whole sequences only (a module without a lengths argument)."""
    tokens = spec.encoder.seq_len - int(spec.cls_token)
    shape = (tokens,) if spec.input == "tokens" else (
        tuple(spec.image) if spec.input == "patches" else (tokens, spec.features))
    full_only = full_only or spec.input == "patches"
    if precision in ("int8", "a16w8"):
        samples = first_samples(calibration)
        samples.inputs = samples.inputs.reshape((len(samples.lengths),) + shape)
        if full_only:
            samples.lengths = np.full(len(samples.lengths), tokens, dtype=np.int32)
    else:
        samples = random_samples(shape, tokens, spec.vocab if spec.input == "tokens" else 0, full_only)
    out_values = spec.classes or (spec.encoder.d_model if spec.pooling != "none" else
                                  spec.encoder.seq_len * spec.encoder.d_model)
    net = f"staticformer::model<{name}_config, staticformer::{precision}, staticformer::reference>"
    library = run_library(config, net, blob, samples, out_values)
    what = "logits" if spec.classes else ("pooled row" if spec.pooling != "none" else "output")
    width = out_values if spec.classes or spec.pooling != "none" else spec.encoder.d_model

    def torch_outputs(rounded: bool) -> np.ndarray:
        m = rounded_to_f16(module) if rounded else module
        with torch.no_grad():
            y = run(m, torch.from_numpy(samples.inputs), torch.from_numpy(samples.lengths.astype(np.int64)))
        return y.double().numpy().reshape(len(samples.lengths), -1)
    return check(precision, what, width, samples, library, torch_outputs, spec.classes)
