#!/usr/bin/env python3
"""Generate the PyTorch goldens of staticformer's parity tests.

For each configuration in GOLDENS: build a seeded torch.nn.TransformerEncoder (batch_first,
eval mode, dropout 0; weight matrices re-drawn per layer, every LayerNorm gamma/beta and every
bias randomised so none is 1 or 0), run one standard-normal input sequence under no_grad with a
key padding mask hiding positions >= valid_len (no mask when valid_len == seq_len) and the
golden's masked positions (through torch's math path, which computes every query row), set the
padded output rows to exactly 0, and write

    OUT/<name>/model.sfwb     the weights blob, made by tools/export_pytorch.py from the saved
                              module (or from its state_dict plus flags, where GOLDENS says so)
    OUT/<name>/input.bin      float32 little-endian, [seq_len][d_model]
    OUT/<name>/expected.bin   float32 little-endian, [seq_len][d_model], padded rows 0
    OUT/<name>/valid_len.txt  one integer
    OUT/<name>/mask.bin       uint8 [seq_len], 1 where a key is masked (goldens with a mask only)
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
import contextlib
import io
from copy import deepcopy
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent / "python"))  # the checkout's staticformer_export package
from staticformer_export import cli, encoder_export, model_export  # noqa: E402  (the exporter, reused)
from staticformer_export.staticformer_torch import (TORCH_ACTIVATIONS, RMSNorm, TransformerClassifier,  # noqa: E402
                                                    encoder_layer, norm_of, run_encoder)
from staticformer_export.encoder_schema import (ENCODER_OPTIONS, REFERENCE_CONFIGS,  # noqa: E402  (the options, once)
                                                EncoderSpec)


@dataclass(frozen=True)
class Golden:
    name: str
    spec: EncoderSpec
    valid_len: int
    seed: int
    export_from: str  # "module" or "state_dict": which exporter input path makes the blob
    header: bool      # also write the exporter's C++ header
    masked: tuple = ()  # positions < valid_len whose keys torch's src_key_padding_mask hides


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
    ("silu_pre",             EncoderSpec(16, 4,  24,  6, 2, True,  "silu",      False, 1e-5),  5, 11, "module",     False),
    # torch bias=False: linear layers (from a module), LayerNorms too (from a state_dict)
    ("no_bias_post",         EncoderSpec(24, 3,  40,  7, 2, False, "gelu",      True,  1e-5, no_bias=True),
     6, 12, "module", False),
    ("bias_free_pre_silu",   EncoderSpec(16, 2,  32,  8, 2, True,  "silu",      True,  1e-5, no_bias=True,
                                         no_norm_bias=True), 8, 13, "state_dict", False),
    # RMSNorm for every LayerNorm: pre-norm with SiLU, no biases and a final norm (from a module),
    # post-norm with a key padding mask (from a state_dict)
    ("rms_pre_silu",         EncoderSpec(24, 4,  40,  9, 2, True,  "silu",      True,  1e-6, no_bias=True,
                                         rms_norm=True), 7, 14, "module", False),
    ("rms_post_relu",        EncoderSpec(20, 4,  36,  8, 2, False, "relu",      False, 1e-5, rms_norm=True),
     8, 15, "state_dict", False, (0, 2)),
    # gated feed-forwards: SwiGLU without biases (from a module), GeGLU post-norm (from a state_dict)
    ("swiglu_pre",           EncoderSpec(16, 4,  24,  6, 2, True,  "silu",      True,  1e-5, no_bias=True, glu=True),
     6, 16, "module", False),
    ("geglu_post",           EncoderSpec(20, 4,  28,  8, 2, False, "gelu",      False, 1e-5, glu=True),
     7, 17, "state_dict", False),
    # rotary positions: NeoBERT's block (pre-RMSNorm, SwiGLU, no biases, rotate-halves, 2 key heads
    # for 4; from a module), GPT-J's interleaved pairs with theta 500000, post-norm, masked keys
    # (from a state_dict); multi-query attention alone (one key head for 4, from a state_dict)
    ("rope_pre_swiglu",      EncoderSpec(32, 4,  48, 10, 2, True,  "silu",      True,  1e-6, no_bias=True,
                                         rms_norm=True, glu=True, rotary="halves", kv_heads=2), 8, 18, "module",
     False),
    ("mqa_post_relu",        EncoderSpec(32, 4,  56,  9, 2, False, "relu",      True,  1e-5, kv_heads=1), 7, 23,
     "state_dict", False, (2,)),
    ("rope_interleaved_post", EncoderSpec(24, 3, 40,  9, 2, False, "gelu",      False, 1e-5, rotary="interleaved",
                                          rotary_theta=500000), 9, 19, "state_dict", False, (0, 3)),
    # key padding masks anywhere: left padding and a masked key between kept ones
    ("left_pad_post_relu",   EncoderSpec(32, 4,  64,  8, 2, False, "relu",      False, 1e-5),  8,  9, "module",     False,
     (0, 1, 2, 5)),
    ("masked_pre_gelu_final", EncoderSpec(24, 3, 40,  9, 2, True,  "gelu",      True,  1e-5),  7, 10, "module",     False,
     (1, 3, 4)),
)]

# Configurations also exported with --precision f16 (one without and one with a final norm, so
# both blob layouts are covered).
F16_EXPORTS = ("post_relu", "pre_gelu_final")
INT8_EXPORTS = {"post_relu": "min_max", "pre_gelu_final": "percentile"}
CALIBRATION_ROWS = 256  # at least 16 samples, and at least this many rows in all


def build_encoder(s: EncoderSpec) -> nn.TransformerEncoder:
    """A seeded encoder whose layers differ and whose LayerNorms and biases are not 1/0."""
    layer = encoder_layer(s)
    final = norm_of(s) if s.final_norm else None
    encoder = nn.TransformerEncoder(layer, s.layers, norm=final).eval()
    gammas = {id(m.weight) for m in encoder.modules() if isinstance(m, (nn.LayerNorm, RMSNorm))}
    with torch.no_grad():
        for name, p in encoder.named_parameters():
            if id(p) in gammas:
                p.uniform_(0.5, 1.5)
            elif name.endswith("bias"):
                p.normal_(0.0, 0.2)
            else:  # TransformerEncoder deep-copies one layer: re-draw so the layers differ
                nn.init.xavier_uniform_(p)
    return encoder


def run_torch(encoder: nn.TransformerEncoder, x: torch.Tensor, valid_len: int, masked: tuple = (),
              math_path: bool = False) -> torch.Tensor:
    seq_len = x.shape[1]
    mask = None if valid_len == seq_len else (torch.arange(seq_len) >= valid_len).unsqueeze(0)
    if masked or math_path:
        if masked:
            hidden = torch.zeros(1, seq_len, dtype=torch.bool)
            hidden[0, list(masked)] = True
            mask = hidden if mask is None else mask | hidden
        # With gradients on, torch takes its math path: every query row computed, masked keys
        # at -inf (the fast path would drop the masked rows; torch 1.13's fails on bias=False).
        with torch.enable_grad():
            first = encoder.layers[0]
            by_layers = (isinstance(first.norm1, RMSNorm) or hasattr(first, "linear3") or hasattr(first, "rotary")
                         or hasattr(first.self_attn, "kv_heads"))
            out = (run_encoder(encoder, x, key_padding_mask=mask) if by_layers else
                   encoder(x, src_key_padding_mask=mask)).detach()
    else:
        with torch.no_grad():
            out = encoder(x, src_key_padding_mask=mask)
    # Torch's nested-tensor fast path returns only max(valid_len) rows; other paths return
    # seq_len rows with computed values in the padded ones. Either way: seq_len rows, padding 0.
    y = torch.zeros_like(x)
    y[:, :valid_len, :] = out[:, :valid_len, :]
    return y


def run_exporter(argv: list) -> None:
    """The exporter's command line (staticformer-export), in this process: the same files as
    tools/export_pytorch.py writes, without a Python start and torch import per export."""
    with contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(argv)
    if status != 0:
        raise RuntimeError(f"staticformer-export {' '.join(argv)} failed ({status})")


def export_blob(g: Golden, encoder: nn.TransformerEncoder, out: Path, tmp: Path, precision: str = "f32") -> None:
    """Runs the exporter's command line on the saved module or state_dict (int8: calibrated on
    OUT/<name>/calibration.bin)."""
    s = g.spec
    stem = "model" if precision == "f32" else f"model_{precision}"
    # --no-verify: the parity tests hold these exports to a closer bound
    cmd = ["--quiet", "--no-verify", "--seq-len", str(s.seq_len),
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
                "--heads", str(s.heads), "--d-ff", str(s.d_ff), "--layers", str(s.layers)]
        cmd += state_dict_option_flags(s)
    run_exporter(cmd)


def state_dict_option_flags(s: EncoderSpec) -> list:
    """The exporter's flags stating each of s's options (encoder_schema.ENCODER_OPTIONS): a flag
    option's flag when set, every other option's value."""
    flags = []
    for o in ENCODER_OPTIONS:
        value, flag = getattr(s, o.name), "--" + o.name.replace("_", "-")
        if value is None:  # an "eps" option at its default (the layers' eps)
            continue
        if o.kind == "flag":
            flags += [flag] * value
        else:
            flags += [flag, value if isinstance(value, str) else repr(value)]
    return flags


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
    lines += [encoder_export.config_using(g.name, g.spec) for g in GOLDENS]
    lines += ["}  // namespace golden", "", "#define STATICFORMER_GOLDEN_CONFIGS(X) \\"]
    lines += [f"    X({g.name})" + (" \\" if i + 1 < len(GOLDENS) else "")
              for i, g in enumerate(GOLDENS)]
    return "\n".join(lines) + "\n"


# ---- whole models (python/staticformer_export/model_export.py): OUT/models/<name>/ ------------------------------------
#   model.sfwm, model_f16.sfwm   the exporter's model blobs (f32, f16)
#   input.bin                    int32 token ids [tokens], or float32 features / image
#   expected.bin                 float32 torch output: logits, the pooled row, or the sequence
#                                (padded rows 0)
#   expected_f16.bin             the same model with every parameter rounded to binary16
#   valid_len.txt                input tokens given (an image: all its patches)
#   mask.bin                     uint8 [tokens], 1 where a token's key is masked (masked goldens)
#   model.hpp                    the exporter's header (MODEL_HEADERS)
#   calibration.bin, model_int8.sfwm, model_int8.hpp   int8 exports (MODEL_INT8_EXPORTS)
# and OUT/models/model_configs.hpp: golden_models::<name>_config, STATICFORMER_GOLDEN_MODELS(X).

@dataclass(frozen=True)
class ModelGolden:
    name: str
    kind: str         # "vit" (torchvision) or "classifier" (staticformer_torch)
    args: dict        # constructor arguments
    valid_len: int    # input tokens given
    seed: int
    export_from: str  # "module" or "state_dict"
    masked: tuple = ()  # input tokens hidden by a key padding mask (mask.bin)


MODEL_GOLDENS = [
    ModelGolden("vit_tv", "vit", dict(image_size=8, patch_size=2, num_layers=2, num_heads=4, hidden_dim=32,
                                      mlp_dim=48, num_classes=10), 16, 11, "module"),
    ModelGolden("vit_odd", "vit", dict(image_size=12, patch_size=4, num_layers=1, num_heads=5, hidden_dim=20,
                                       mlp_dim=36, num_classes=3), 9, 12, "state_dict"),
    ModelGolden("tokens_causal", "classifier", dict(d_model=24, heads=3, d_ff=40, layers=2, seq_len=12,
                                                    input="tokens", vocab=17, scale_embedding=True,
                                                    positions="sinusoidal", embedding_norm=True, pooling="mean",
                                                    classes=5, activation="gelu", causal=True), 7, 13, "module"),
    ModelGolden("features_cls", "classifier", dict(d_model=16, heads=2, d_ff=30, layers=2, seq_len=9,
                                                   input="features", features=5, positions="learned",
                                                   cls_token=True, pooling="cls", classes=3, norm_first=True,
                                                   final_norm=True, eps=1e-6), 5, 14, "state_dict"),
    ModelGolden("features_seq", "classifier", dict(d_model=12, heads=3, d_ff=20, layers=1, seq_len=7,
                                                   input="features", features=6, positions="sinusoidal",
                                                   pooling="none", activation="gelu_tanh"), 4, 15, "module"),
    ModelGolden("patches_mean", "classifier", dict(d_model=8, heads=2, d_ff=16, layers=2, seq_len=4,
                                                   input="patches", image=(1, 6, 6), patch=3,
                                                   positions="learned", pooling="mean", classes=2,
                                                   final_norm=True), 4, 16, "module"),
    # key padding masks: a left-padded sensor window (CLS, learned positions) and token padding
    # anywhere with causal attention and mean pooling
    ModelGolden("sensor_left_pad", "classifier", dict(d_model=16, heads=4, d_ff=32, layers=2, seq_len=13,
                                                      input="features", features=6, positions="learned",
                                                      cls_token=True, pooling="cls", classes=4),
                12, 17, "module", (0, 1, 2, 3, 4)),
    ModelGolden("tokens_masked_mean", "classifier", dict(d_model=24, heads=3, d_ff=40, layers=2, seq_len=12,
                                                         input="tokens", vocab=17, positions="sinusoidal",
                                                         pooling="mean", classes=5, norm_first=True,
                                                         activation="gelu", causal=True),
                10, 18, "state_dict", (0, 3, 4, 8)),
    # bias-free layers and LayerNorms (torch bias=False), SiLU, padding anywhere, mean pooling
    ModelGolden("features_bias_free", "classifier", dict(d_model=20, heads=4, d_ff=36, layers=2, seq_len=10,
                                                         input="features", features=5, positions="sinusoidal",
                                                         pooling="mean", classes=3, norm_first=True,
                                                         activation="silu", final_norm=True, no_bias=True,
                                                         no_norm_bias=True),
                9, 19, "module", (1, 5)),
    # RMSNorm, no biases, SiLU, learned positions and CLS, padding at the start
    ModelGolden("tokens_rms_cls", "classifier", dict(d_model=24, heads=4, d_ff=48, layers=2, seq_len=12,
                                                     input="tokens", vocab=19, positions="learned", cls_token=True,
                                                     pooling="cls", classes=4, norm_first=True, activation="silu",
                                                     final_norm=True, no_bias=True, rms_norm=True),
                11, 20, "module", (0, 1)),
    # a modern sensor classifier: SwiGLU, RMSNorm, no biases, learned positions and CLS, left padding
    ModelGolden("sensor_swiglu", "classifier", dict(d_model=16, heads=4, d_ff=24, layers=2, seq_len=10,
                                                    input="features", features=6, positions="learned", cls_token=True,
                                                    pooling="cls", classes=3, norm_first=True, activation="silu",
                                                    final_norm=True, no_bias=True, rms_norm=True, glu=True),
                9, 21, "module", (0, 1, 2)),
    # NeoBERT-like token classifier: rotary positions alone (none added), pre-RMSNorm, SwiGLU, no
    # biases, grouped-query attention (2 key heads for 4), padding anywhere, mean pooling
    ModelGolden("tokens_neobert", "classifier", dict(d_model=32, heads=4, d_ff=40, layers=2, seq_len=14,
                                                     input="tokens", vocab=23, positions="none", pooling="mean",
                                                     classes=5, norm_first=True, activation="silu", final_norm=True,
                                                     no_bias=True, rms_norm=True, glu=True, rotary="halves",
                                                     kv_heads=2),
                12, 22, "state_dict", (0, 5)),
    # BERT-like: the [CLS] an ordinary token at position 0, its row pooled (no cls_token), learned
    # positions, an embedding LayerNorm, post-norm GELU
    ModelGolden("tokens_first_row", "classifier", dict(d_model=24, heads=4, d_ff=36, layers=2, seq_len=10,
                                                       input="tokens", vocab=15, positions="learned",
                                                       embedding_norm=True, pooling="cls", classes=3,
                                                       activation="gelu"),
                8, 23, "module", (6,)),
    # a sensor classifier pooled by its mean, the mean normalised (pooled_norm); the embedding,
    # final and pooled norms each with an epsilon of its own, large enough to matter
    ModelGolden("sensor_pooled_norm", "classifier", dict(d_model=16, heads=4, d_ff=28, layers=2, seq_len=11,
                                                         input="features", features=6, positions="sinusoidal",
                                                         embedding_norm=True, embedding_norm_eps=0.05, pooling="mean",
                                                         pooled_norm=True, pooled_norm_eps=0.1, classes=3,
                                                         norm_first=True, activation="gelu", final_norm=True,
                                                         final_norm_eps=0.01),
                10, 24, "state_dict", (2, 7)),
]
MODEL_HEADERS = ("vit_tv", "tokens_causal")
# int8 exports (calibration method), calibrated on calibration.bin: MODEL_CALIBRATION_SAMPLES
# numpy-drawn inputs (token ids, or standard-normal features / images), written raw (int32 or
# float32) as the C++ quantiser reads them.
MODEL_INT8_EXPORTS = {"vit_tv": "min_max", "tokens_causal": "percentile", "features_seq": "min_max",
                      "sensor_left_pad": "min_max", "tokens_rms_cls": "min_max", "sensor_swiglu": "min_max",
                      "tokens_neobert": "min_max", "sensor_pooled_norm": "min_max"}
MODEL_CALIBRATION_SAMPLES = 32


def build_model(g: ModelGolden) -> nn.Module:
    """A seeded model with every parameter drawn (no zero CLS token, positions or head)."""
    torch.manual_seed(g.seed)
    if g.kind == "vit":
        import torchvision  # noqa: E402  (only the ViT goldens need it)
        model = torchvision.models.VisionTransformer(**g.args)
    else:
        model = TransformerClassifier(**g.args)
    gammas = {id(m.weight) for m in model.modules() if isinstance(m, nn.LayerNorm)}
    with torch.no_grad():
        for name, p in model.named_parameters():
            if id(p) in gammas:
                p.uniform_(0.5, 1.5)
            elif p.dim() >= 2 and "pos" not in name and "embedding." not in name:
                nn.init.xavier_uniform_(p)
            else:
                p.normal_(0.0, 0.5)
    return model.eval()


def model_input(g: ModelGolden, model: nn.Module) -> torch.Tensor:
    gen = torch.Generator().manual_seed(g.seed)
    if g.kind == "vit":
        side = g.args["image_size"]
        return torch.randn(1, 3, side, side, generator=gen)
    c = model.config
    tokens = c.seq_len - int(c.cls_token)
    if c.input == "tokens":
        return torch.randint(0, c.vocab, (1, tokens), generator=gen)
    if c.input == "features":
        return torch.randn(1, tokens, c.features, generator=gen)
    return torch.randn(1, *c.image, generator=gen)


def run_model(g: ModelGolden, model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if g.masked:  # with gradients on, torch's math path computes every row (as staticformer)
        hidden = torch.zeros(1, model.config.seq_len - int(model.config.cls_token), dtype=torch.bool)
        hidden[0, list(g.masked)] = True
        with torch.enable_grad():
            return model(x, torch.tensor([g.valid_len]), key_padding_mask=hidden).detach()
    with torch.no_grad():
        if g.kind == "vit" or model.config.input == "patches":
            return model(x)
        return model(x, torch.tensor([g.valid_len]))


def rounded_to_f16(model: nn.Module) -> nn.Module:
    copy = deepcopy(model)
    with torch.no_grad():
        for p in copy.parameters():
            p.copy_(p.to(torch.float16).to(torch.float32))
    return copy


def model_calibration(g: ModelGolden, model: nn.Module) -> np.ndarray:
    rng = np.random.default_rng(g.seed)
    if g.kind == "vit":
        side = g.args["image_size"]
        return rng.standard_normal((MODEL_CALIBRATION_SAMPLES, 3, side, side), dtype=np.float32)
    c = model.config
    tokens = c.seq_len - int(c.cls_token)
    if c.input == "tokens":
        return rng.integers(0, c.vocab, (MODEL_CALIBRATION_SAMPLES, tokens)).astype(np.int32)
    if c.input == "features":
        return rng.standard_normal((MODEL_CALIBRATION_SAMPLES, tokens, c.features), dtype=np.float32)
    return rng.standard_normal((MODEL_CALIBRATION_SAMPLES, *c.image), dtype=np.float32)


def export_model_golden(g: ModelGolden, model: nn.Module, out: Path, tmp: Path, precision: str) -> None:
    stem = "model" if precision == "f32" else f"model_{precision}"
    # --no-verify: the parity tests hold these exports to a closer bound
    cmd = ["--quiet", "--no-verify",
           "--name", g.name if precision == "f32" else f"{g.name}_{precision}", "--blob", str(out / f"{stem}.sfwm")]
    if precision != "f32":
        cmd += ["--precision", precision]
    if precision == "int8":
        samples = model_calibration(g, model)
        np.save(tmp / "calibration.npy", samples)
        (out / "calibration.bin").write_bytes(samples.astype(samples.dtype.newbyteorder("<")).tobytes())
        cmd += ["--calibration", str(tmp / "calibration.npy"), "--calibration-method", MODEL_INT8_EXPORTS[g.name]]
    if precision in ("f32", "int8") and g.name in MODEL_HEADERS:
        cmd += ["--header", str(out / f"{stem}.hpp")]
    if g.export_from == "module":
        torch.save(model, tmp / "model.pt")
        cmd += ["--module", str(tmp / "model.pt")]
    else:
        torch.save(model.state_dict(), tmp / "state_dict.pt")
        cmd += ["--state-dict", str(tmp / "state_dict.pt")]
        if g.kind == "vit":
            cmd += ["--heads", str(g.args["num_heads"])]
    run_exporter(cmd)


def model_configs_text(specs) -> str:
    lines = [
        "// Configurations of the PyTorch model goldens in this directory, generated by",
        "// tools/make_goldens.py. golden_models::<name>_config is the model_config of <name>/model.sfwm;",
        "// STATICFORMER_GOLDEN_MODELS(X) expands X(<name>) once per model.",
        "#pragma once",
        "",
        "#include <staticformer/model_config.hpp>",
        "",
        "namespace golden_models {",
    ]
    for name, spec in specs:
        lines.append(encoder_export.config_using(f"{name}_encoder", spec.encoder))
        lines.append(f"using {name}_config = {model_export.model_config_type(name, spec)};")
    lines += ["}  // namespace golden_models", "", "#define STATICFORMER_GOLDEN_MODELS(X) \\"]
    lines += [f"    X({name})" + (" \\" if i + 1 < len(specs) else "") for i, (name, _) in enumerate(specs)]
    return "\n".join(lines) + "\n"


def make_model_goldens(root: Path, tmp: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    specs = []
    for g in MODEL_GOLDENS:
        model = build_model(g)
        x = model_input(g, model)
        out = root / g.name
        out.mkdir(exist_ok=True)
        export_model_golden(g, model, out, tmp, "f32")
        export_model_golden(g, model, out, tmp, "f16")
        if g.name in MODEL_INT8_EXPORTS:
            export_model_golden(g, model, out, tmp, "int8")
        y, y16 = run_model(g, model, x), run_model(g, rounded_to_f16(model), x)
        if x.dtype == torch.int64:
            (out / "input.bin").write_bytes(x.numpy().astype("<i4").tobytes())
        else:
            write_f32(out / "input.bin", x)
        write_f32(out / "expected.bin", y)
        write_f32(out / "expected_f16.bin", y16)
        (out / "valid_len.txt").write_text(f"{g.valid_len}\n")
        if g.masked:
            tokens = model.config.seq_len - int(model.config.cls_token)
            (out / "mask.bin").write_bytes(bytes(int(t in g.masked) for t in range(tokens)))
        spec = model_export.extract_vit(model)[0] if g.kind == "vit" else model_export.classifier_spec(model.config)
        specs.append((g.name, spec))
        print(f"{g.name:22s} {model_export.describe(spec)}  valid {g.valid_len}  max|y| {float(y.abs().max()):.4f}")
    (root / "model_configs.hpp").write_text(model_configs_text(specs))


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
            y = run_torch(encoder, x, g.valid_len, g.masked,
                          s.no_bias or s.no_norm_bias or s.rms_norm or s.glu or s.rotary != "none" or s.kv_heads)
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
            if g.masked:
                (out / "mask.bin").write_bytes(bytes(int(j in g.masked) for j in range(s.seq_len)))
            print(f"{g.name:22s} {encoder_export.describe(s)}  valid_len {g.valid_len}  masked {list(g.masked)}  "
                  f"max|y| {float(y.abs().max()):.4f}")
    (args.out / "parity_configs.hpp").write_text(parity_configs_text())
    with tempfile.TemporaryDirectory() as tmp:
        make_model_goldens(args.out / "models", Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
