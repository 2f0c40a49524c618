"""The encoder half of the exporter: a torch.nn.TransformerEncoder (a module or its state_dict) as
staticformer::encoder_weights: the C++ header (NAME_config and NAME), the weights blob (.sfwb, the
format of include/staticformer/blob.hpp), binary16 conversion, the int8 quantiser run (the
library's own C++, quantize_tool.hpp) and the calibration files. The command line is cli.py's
(staticformer-export, or tools/export_pytorch.py in the checkout); model_export.py does whole
models on top of this.

The pieces are importable: load_module(), extract_module(), extract_state_dict(), config_type(),
write_header(), write_blob(), export(); the precision argument of write_header(), write_blob() and
export() is "f32" (default) or "f16".
"""

import math
import re
import struct
import sys
import zlib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import cpp, encoder_schema
from .encoder_schema import (ACTIVATIONS, FINAL_NORM_MEMBERS, LAYER_MEMBER, LAYER_MEMBERS, ROTARY_LAYOUTS, EncoderSpec,
                             default, theta_code)

PRECISIONS = ("f32", "f16", "int8", "a16w8")  # index = precision code in the blob
INTEGER_PRECISIONS = ("int8", "a16w8")  # quantised by the C++ quantiser (export_int8)


class ExportError(Exception):
    """The model cannot be exported: an unsupported feature or inconsistent input."""


@dataclass
class EncoderWeights:
    """float32 arrays shaped and ordered as staticformer::encoder_weights<cfg, f32>
    (encoder_schema: the members, their shapes and order)."""
    layers: List[Dict[str, np.ndarray]]          # per layer: C++ member -> array
    final_norm: Optional[Dict[str, np.ndarray]]  # {"gamma", "beta"} or None

    def members(self, absent: bool = False):
        """(C++ member path, torch key, array) in struct order; a member the configuration leaves
        out (no_bias, no_norm_bias) has no array: with absent, (path, key, None) in its place."""
        for i, m in encoder_schema.weight_members(len(self.layers), self.final_norm is not None):
            arrays = self.final_norm if i is None else self.layers[i]
            if m.name in arrays or absent:
                yield m.path(i), m.key(i), arrays.get(m.name)

    def parameter_count(self) -> int:
        return sum(a.size for _, _, a in self.members())


# ---- LayerNorm epsilon ------------------------------------------------------------------------

def _pow10(e: int) -> float:
    """detail::pow10 of config.hpp: 10^|e| by repeated multiplication in double, inverted if e < 0."""
    r = 1.0
    for _ in range(abs(e)):
        r *= 10.0
    return 1.0 / r if e < 0 else r


def config_eps(mantissa: int, exponent10: int) -> np.float32:
    """The float that encoder_config<..., layer_norm_eps<M, E>>::eps evaluates to."""
    return np.float32(mantissa * _pow10(exponent10))


def eps_option(eps: float) -> Optional[Tuple[int, int]]:
    """(M, E) of layer_norm_eps<M, E> with float32(M * 10^E) == float32(eps) and M as small as
    possible; None when eps is the default 1e-5."""
    if not (math.isfinite(eps) and eps > 0):
        raise ExportError(f"LayerNorm eps must be a positive number, got {eps!r}")
    target = np.float32(eps)
    if target == config_eps(1, -5):
        return None
    best = None
    for e in range(0, -31, -1):
        nearest = int(Decimal(float(target)).scaleb(-e).to_integral_value())
        for m in (nearest - 1, nearest, nearest + 1):
            if 0 < m < 2**31 and config_eps(m, e) == target and (best is None or m < best[0]):
                best = (m, e)
    if best is None:
        raise ExportError(f"LayerNorm eps {eps!r} cannot be written as layer_norm_eps<M, E> "
                          "(M a positive int, E in [-30, 0])")
    return best


def spec_eps32(spec: EncoderSpec) -> np.float32:
    """The epsilon as the C++ config holds it (float)."""
    option = eps_option(spec.eps)
    return config_eps(*option) if option else config_eps(1, -5)


def own_eps32(eps: Optional[float], spec: EncoderSpec) -> Optional[np.float32]:
    """A norm's own epsilon (final_norm_eps, embedding_norm_eps, pooled_norm_eps) as the C++ config
    holds it; None where it is the layers' (as the config leaves its tag out)."""
    if eps is None:
        return None
    option = eps_option(eps)
    own = config_eps(*option) if option else config_eps(1, -5)
    return None if own == spec_eps32(spec) else own


def own_eps_tags(kind: str, eps: Optional[float], spec: EncoderSpec) -> List[str]:
    """[staticformer::KIND<M, E>] for a norm's own epsilon, or [] where it is the layers'."""
    if own_eps32(eps, spec) is None:
        return []
    option = eps_option(eps) or (1, -5)
    return [f"staticformer::{kind}<{option[0]}, {option[1]}>"]


def eps_bits(eps: Optional[np.float32]) -> int:
    """A blob's epsilon field: the float's bits; 0 for None (a model blob's norm at the layers' epsilon)."""
    return 0 if eps is None else int(np.frombuffer(np.float32(eps).astype("<f4").tobytes(), dtype="<u4")[0])


# ---- reading a torch module -----------------------------------------------------------------

def activation_name(act) -> str:
    """'relu', 'gelu', 'gelu_tanh' or 'silu' for an activation given as a string or a callable.

    A callable is recognised by what it computes: F.relu, torch.relu, nn.ReLU(), F.gelu,
    nn.GELU(), nn.GELU(approximate='tanh'), functools.partial(F.gelu, approximate='tanh'),
    F.silu, nn.SiLU(), ...
    """
    if isinstance(act, str):
        if act in ACTIVATIONS:
            return act
        raise ExportError(f"unsupported activation {act!r}: use one of {', '.join(ACTIVATIONS)}")
    probe = torch.linspace(-8.0, 8.0, 2001)
    references = {"relu": F.relu(probe), "gelu": F.gelu(probe),
                  "gelu_tanh": F.gelu(probe, approximate="tanh"), "silu": F.silu(probe)}
    try:
        with torch.no_grad():
            out = act(probe)
    except Exception as e:  # any failure means: not a function we know
        raise ExportError(f"unsupported activation {act!r} ({e})") from None
    for name, ref in references.items():
        if torch.is_tensor(out) and out.shape == ref.shape and torch.equal(out, ref):
            return name
    raise ExportError(f"unsupported activation {act!r}: staticformer has relu, gelu (erf), "
                      "gelu with approximate='tanh' and silu")


def is_rms_norm(norm) -> bool:
    """torch's nn.RMSNorm (torch 2.4) or staticformer_torch.RMSNorm: a module named RMSNorm."""
    return type(norm).__name__ == "RMSNorm"


def _norm_eps(norm, d_model: int, where: str) -> Tuple[float, bool]:
    """(eps, whether norm is an RMSNorm) of a LayerNorm or RMSNorm over d_model features."""
    rms = is_rms_norm(norm)
    if not rms and not isinstance(norm, nn.LayerNorm):
        raise ExportError(f"{where} is {type(norm).__name__}, not a LayerNorm or RMSNorm")
    if getattr(norm, "weight", None) is None:
        raise ExportError(f"{where} has no weight (elementwise_affine off): not supported")
    shape = tuple(getattr(norm, "normalized_shape", norm.weight.shape))
    if shape != (d_model,):
        raise ExportError(f"{where} normalises shape {shape}, expected ({d_model},)")
    if rms and getattr(norm, "bias", None) is not None:
        raise ExportError(f"{where} is an RMSNorm with a bias: not supported")
    eps = getattr(norm, "eps", None)
    return (float(torch.finfo(torch.float32).eps) if eps is None else float(eps)), rms  # nn.RMSNorm's eps None


def _layer_norm_eps(norm, d_model: int, where: str) -> float:
    """The eps of a LayerNorm over d_model features (an RMSNorm is refused)."""
    eps, rms = _norm_eps(norm, d_model, where)
    if rms:
        raise ExportError(f"{where} is an RMSNorm: a LayerNorm is expected here")
    return eps


def _gated(layer, where: str) -> bool:
    """Whether the layer's feed-forward is gated: a linear3 (W3) beside linear1, as
    staticformer_torch.encoder_layer builds it for glu."""
    gate = getattr(layer, "linear3", None)
    if gate is None:
        return False
    if not isinstance(gate, nn.Linear) or (gate.in_features, gate.out_features) != (
            layer.linear1.in_features, layer.linear1.out_features):
        raise ExportError(f"{where}.linear3 is not a Linear of linear1's shape: not a gated feed-forward")
    if (gate.bias is None) != (layer.linear1.bias is None):
        raise ExportError(f"{where}: linear1 and linear3 differ in having a bias")
    return True


def _rotary(layer, where: str) -> tuple:
    """(layout, theta) of the layer's rotary positions: ("none", default) without, else those of
    its `rotary` (staticformer_torch.Rotary, which encoder_layer adds for rotary)."""
    rotary = getattr(layer, "rotary", None)
    if rotary is None:
        return "none", default("rotary_theta")
    layout, theta = getattr(rotary, "layout", None), getattr(rotary, "theta", None)
    if layout not in encoder_schema.ROTARY_LAYOUTS[1:] or not isinstance(theta, int):
        raise ExportError(f"{where}.rotary is {type(rotary).__name__}, not a staticformer_torch.Rotary "
                          "(layout 'halves' or 'interleaved', an integer theta)")
    return layout, theta


def _kv_heads(attn, where: str) -> int:
    """Grouped-query attention's key heads (staticformer_torch.GroupedAttention's kv_heads); 0 for
    multi-head attention."""
    kv = getattr(attn, "kv_heads", attn.num_heads)
    if not isinstance(kv, int) or kv <= 0 or attn.num_heads % kv:
        raise ExportError(f"{where}.self_attn has kv_heads {kv!r}: it must divide num_heads {attn.num_heads}")
    rows = attn.embed_dim + 2 * kv * (attn.embed_dim // attn.num_heads)
    if tuple(attn.in_proj_weight.shape) != (rows, attn.embed_dim):
        raise ExportError(f"{where}.self_attn.in_proj_weight is {tuple(attn.in_proj_weight.shape)}, expected "
                          f"({rows}, {attn.embed_dim}) for {kv} key heads")
    return 0 if kv == attn.num_heads else kv


def note(text: str) -> None:
    """A note on what the export assumes, on stderr; --quiet (note.quiet) silences it."""
    if not note.quiet:
        print(f"staticformer-export: note: {text}", file=sys.stderr)


note.quiet = False


def _layer_options(layer, i: int) -> tuple:
    """(d_model, heads, d_ff, norm_first, activation, eps) of one TransformerEncoderLayer."""
    where = f"layers[{i}]"
    if not isinstance(layer, nn.TransformerEncoderLayer):
        raise ExportError(f"{where} is {type(layer).__name__}, not a TransformerEncoderLayer")
    attn = layer.self_attn
    if not attn._qkv_same_embed_dim:
        raise ExportError(f"{where}.self_attn has separate key/value sizes (kdim/vdim): not supported")
    if attn.bias_k is not None or attn.add_zero_attn:
        raise ExportError(f"{where}.self_attn uses add_bias_kv or add_zero_attn: not supported")
    for lin_name in ("linear1", "linear2"):
        if not isinstance(getattr(layer, lin_name), nn.Linear):
            raise ExportError(f"{where}.{lin_name} is not a Linear: not supported")
    biases = {"self_attn.in_proj_bias": attn.in_proj_bias, "self_attn.out_proj.bias": attn.out_proj.bias,
              "linear1.bias": layer.linear1.bias, "linear2.bias": layer.linear2.bias}
    if len({b is None for b in biases.values()}) > 1:
        missing = [k for k, b in biases.items() if b is None]
        raise ExportError(f"{where} has biases but not {', '.join(missing)}: staticformer's no_bias drops all "
                          "four (attention projections and feed-forward) or none")
    norm_biases = [getattr(n, "bias", None) is None for n in (layer.norm1, layer.norm2)]
    if norm_biases[0] != norm_biases[1]:
        raise ExportError(f"{where}: one LayerNorm has a bias and the other not; no_norm_bias drops both")
    d_model = attn.embed_dim
    eps1, rms1 = _norm_eps(layer.norm1, d_model, f"{where}.norm1")
    eps2, rms2 = _norm_eps(layer.norm2, d_model, f"{where}.norm2")
    if eps1 != eps2:
        raise ExportError(f"{where}: norm1.eps {eps1!r} != norm2.eps {eps2!r}; staticformer uses one epsilon")
    if rms1 != rms2:
        raise ExportError(f"{where}: norm1 and norm2 differ (LayerNorm and RMSNorm); rms_norm replaces both")
    activation = activation_name(layer.activation)
    if activation == "gelu_tanh" and isinstance(layer.activation, nn.GELU) and i == 0:
        note("torch 1.13's fast path (eval, no_grad) runs nn.GELU(approximate='tanh') layers as exact GELU; "
             "staticformer computes the tanh form")
    return (d_model, attn.num_heads, layer.linear1.out_features, bool(layer.norm_first),
            activation, eps1, attn.in_proj_bias is None, norm_biases[0] and not rms1, rms1, _gated(layer, where),
            *_rotary(layer, where), _kv_heads(attn, where))


def spec_from_module(encoder, seq_len: int, model: bool = False) -> EncoderSpec:
    """The EncoderSpec of a torch.nn.TransformerEncoder; refuses what staticformer cannot run. The
    final norm may have an epsilon of its own in a model (model: its blob records it)."""
    if not isinstance(encoder, nn.TransformerEncoder):
        raise ExportError(f"expected a torch.nn.TransformerEncoder, got {type(encoder).__name__} "
                          "(save the encoder itself, or use --state-dict with --prefix)")
    options = [_layer_options(layer, i) for i, layer in enumerate(encoder.layers)]
    if not options:
        raise ExportError("the encoder has no layers")
    fields = ("d_model", "heads", "d_ff", "norm_first", "activation", "eps", "no_bias", "no_norm_bias", "rms_norm",
              "glu", "rotary", "rotary_theta", "kv_heads")
    for i, other in enumerate(options[1:], start=1):
        for field, a, b in zip(fields, options[0], other):
            if a != b:
                raise ExportError(f"layers[{i}] differs from layers[0] in {field} ({b!r} vs {a!r})")
    d_model, heads, d_ff, norm_first, activation, eps, no_bias, no_norm_bias, rms_norm, glu, rotary, theta, kv = options[0]
    if not encoder.layers[0].self_attn.batch_first:
        note("the encoder was built with batch_first=False; the weights are the same, staticformer takes one "
             "sequence laid out [seq_len][d_model]")
    final_norm = encoder.norm is not None
    if final_norm:
        final_eps, final_rms = _norm_eps(encoder.norm, d_model, "norm (the final norm)")
        if final_eps != eps and not model:
            raise ExportError(f"final norm eps {final_eps!r} != layer norm eps {eps!r}: an encoder blob holds one "
                              "epsilon; export the model around the encoder (its final_norm_eps travels in a model "
                              "blob), or give the final norm the layers' eps")
        if final_rms != rms_norm:
            raise ExportError("the final norm and the layers' norms differ (LayerNorm and RMSNorm)")
        if not rms_norm and (getattr(encoder.norm, "bias", None) is None) != no_norm_bias:
            raise ExportError("the final norm and the layers' LayerNorms differ in having a bias")
    spec = EncoderSpec(d_model, heads, d_ff, seq_len, len(options), norm_first, activation,
                       final_norm, eps, final_norm_eps=final_eps if final_norm and final_eps != eps else None,
                       no_bias=no_bias, no_norm_bias=no_norm_bias, rms_norm=rms_norm, glu=glu,
                       rotary=rotary, rotary_theta=theta, kv_heads=kv)
    check_spec(spec)
    return spec


def check_spec(spec: EncoderSpec) -> None:
    for field in ("d_model", "heads", "d_ff", "seq_len", "layers"):
        if getattr(spec, field) <= 0:
            raise ExportError(f"{field} must be positive, got {getattr(spec, field)}")
    if spec.d_model % spec.heads != 0:
        raise ExportError(f"d_model {spec.d_model} is not divisible by heads {spec.heads}")
    if spec.activation not in ACTIVATIONS:
        raise ExportError(f"unknown activation {spec.activation!r}")
    eps_option(spec.eps)  # raises if the epsilon has no layer_norm_eps spelling
    if spec.final_norm_eps is not None:
        eps_option(spec.final_norm_eps)
    problems = encoder_schema.attention_problems(vars(spec))
    if problems:
        raise ExportError("; ".join(problems))


# ---- weights from a state_dict --------------------------------------------------------------

def _take(state: dict, key: str, shape: tuple) -> np.ndarray:
    """The tensor `key` as float32 in C++ layout (2-D tensors transposed)."""
    if key not in state:
        hint = " (layers without biases: pass --no-bias / --no-norm-bias)" if key.endswith("bias") else ""
        raise ExportError(f"missing tensor '{key}'{hint}")
    t = state[key]
    torch_shape = tuple(reversed(shape))
    if not torch.is_tensor(t) or not t.is_floating_point() or tuple(t.shape) != torch_shape:
        got = tuple(t.shape) if torch.is_tensor(t) else type(t).__name__
        raise ExportError(f"tensor '{key}' is {got}, expected a float tensor of shape {torch_shape}")
    a = t.detach().cpu().to(torch.float32).numpy()
    a = np.ascontiguousarray(a.T if a.ndim == 2 else a, dtype=np.float32)
    if not np.isfinite(a).all():
        raise ExportError(f"tensor '{key}' contains inf or nan")
    return a


def extract_state_dict(state_dict: dict, spec: EncoderSpec, prefix: str = "") -> EncoderWeights:
    """The weight arrays of a TransformerEncoder state_dict (keys "layers.<i>.…", "norm.…")."""
    check_spec(spec)
    state = {k[len(prefix):]: v for k, v in state_dict.items() if k.startswith(prefix)}
    used = set()
    layers = [{} for _ in range(spec.layers)]
    final_norm = {} if spec.final_norm else None
    for i, m in encoder_schema.weight_members(spec.layers, spec.final_norm, spec):
        arrays = final_norm if i is None else layers[i]
        shape = m.shape(spec.d_model, spec.d_ff, encoder_schema.kv_dim(spec))  # glu: W1's (W3's below)
        arrays[m.name] = _take(state, m.key(i), shape)
        used.add(m.key(i))
        if spec.glu and m.gate_key:  # W3 (and its bias) beside W1's
            gate_key = m.gate_key if i is None else f"layers.{i}.{m.gate_key}"
            gate = _take(state, gate_key, shape)
            arrays[m.name] = np.ascontiguousarray(np.concatenate([arrays[m.name], gate], axis=-1))
            used.add(gate_key)
    unused = sorted(set(state) - used)
    if unused:
        hints = {"norm.weight": " (a final norm: pass --final-norm)",
                 "bias": " (biases of a configuration with --no-bias or --no-norm-bias)",
                 "bias_k": " (add_bias_kv is not supported)",
                 "linear3.weight": " (a gated feed-forward: pass --glu)",
                 "q_proj_weight": " (separate kdim/vdim are not supported)"}
        hint = "".join(h for k, h in hints.items() if any(u.endswith(k) for u in unused))
        raise ExportError(f"state_dict has tensors this configuration does not use: "
                          f"{', '.join(unused[:6])}{' ...' if len(unused) > 6 else ''}{hint}")
    return EncoderWeights(layers, final_norm)


def extract_module(encoder, seq_len: int) -> Tuple[EncoderSpec, EncoderWeights]:
    """The option set and the weight arrays of a torch.nn.TransformerEncoder."""
    spec = spec_from_module(encoder, seq_len)
    return spec, extract_state_dict(encoder.state_dict(), spec)


def load_module(path) -> nn.Module:
    # Modules pickled before the package existed name their classes staticformer_torch.X.
    from . import staticformer_torch
    sys.modules.setdefault("staticformer_torch", staticformer_torch)
    try:
        obj = torch.load(path, map_location="cpu", weights_only=False)
    except (AttributeError, ModuleNotFoundError) as e:  # pickle finds classes by module and name
        raise ExportError(f"cannot load module from {path}: {e}. {PICKLE_HINT}") from None
    except Exception as e:
        raise ExportError(f"cannot load module from {path}: {e}") from None
    if isinstance(obj, dict):
        raise ExportError(f"{path} holds a state_dict, not a module: use --state-dict and the option flags")
    return obj


PICKLE_HINT = ("torch.save(model) stores the class by its module's name: a class defined in the training "
               "script is '__main__.Name', which no other program has. Define the class in a module file, import "
               "it in the training script and save again (with that module's folder on PYTHONPATH here), or "
               "save model.state_dict() and pass --state-dict")


def load_state_dict(path) -> dict:
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise ExportError(f"cannot load a state_dict from {path} (a whole module? use --module): {e}") from None
    if not isinstance(obj, dict):
        raise ExportError(f"{path} does not hold a state_dict")
    return obj


def infer_dims(state_dict: dict, prefix: str = "") -> Tuple[int, int, int]:
    """(d_model, d_ff, layers) read from the tensor shapes of a state_dict."""
    qkv, ff1 = LAYER_MEMBER["qkv_w"].key(0), LAYER_MEMBER["ff1_w"].key(0)
    try:  # torch shapes [out][in]: qkv [3 d_model][d_model], ff1 [d_ff][d_model]
        d_model = state_dict[prefix + qkv].shape[1]
        d_ff = state_dict[prefix + ff1].shape[0]
    except (KeyError, IndexError, AttributeError):
        raise ExportError(f"no TransformerEncoder tensors under prefix '{prefix}' "
                          f"(expected e.g. {qkv})") from None
    pattern = re.compile(re.escape(prefix) + r"layers\.(\d+)\.")
    layers = 1 + max(int(m.group(1)) for m in map(pattern.match, state_dict) if m)
    return int(d_model), int(d_ff), layers


# ---- C++ header -----------------------------------------------------------------------------

CPP_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast
continue co_await co_return co_yield decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while xor xor_eq""".split())


def check_name(name: str) -> None:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in CPP_KEYWORDS:
        raise ExportError(f"--name {name!r} is not a C++ identifier")


def eps_tags(spec: EncoderSpec) -> List[str]:
    """[the layer_norm_eps<M, E> option tag], or [] for the default epsilon; then the final norm's
    final_norm_eps<M, E>, where it has its own."""
    eps = eps_option(spec.eps)
    return (([] if eps is None else [f"staticformer::layer_norm_eps<{eps[0]}, {eps[1]}>"]) +
            own_eps_tags("final_norm_eps", spec.final_norm_eps, spec))


def config_options(spec: EncoderSpec) -> List[str]:
    """The option tags of the encoder_config, defaults left out."""
    return encoder_schema.option_tags(spec) + eps_tags(spec)


def config_type(spec: EncoderSpec) -> str:
    """e.g. 'staticformer::encoder_config<64, 4, 256, 32, 2, staticformer::pre_norm>'."""
    return encoder_schema.config_type(spec, eps_tags(spec))


def config_using(name: str, spec: EncoderSpec) -> str:
    return f"using {name}_config = {config_type(spec)};"


def half_bits(a: np.ndarray, what: str = "weights") -> np.ndarray:
    """The IEEE binary16 bit patterns (uint16) nearest to float32 array a: numpy's float16
    conversion, round to nearest, ties to even. Refuses values that overflow to infinity."""
    with np.errstate(over="ignore"):
        h = np.asarray(a, dtype=np.float32).astype(np.float16)
    if np.isinf(h).any():
        worst = float(np.abs(np.asarray(a, dtype=np.float32)).max())
        raise ExportError(f"{what}: |value| up to {worst:g} does not fit binary16 (largest 65504): "
                          "export with --precision f32")
    return h.view(np.uint16)


def precision_arrays(weights: "EncoderWeights", precision: str):
    """(C++ member path, torch key, array) in struct order, each array as stored in the given
    precision: float32, or uint16 binary16 bit patterns."""
    if precision not in ("f32", "f16"):
        raise ExportError(f"precision {precision!r}: use f32 or f16 here (int8: export_int8)")
    for path, key, a in weights.members():
        yield path, key, (a if precision == "f32" else half_bits(a, key))


def hex_half(bits) -> str:
    """A binary16 bit pattern as a C++ uint16 literal, e.g. 0x3c00."""
    return f"0x{int(bits):04x}"


def hex_float(x) -> str:
    """An exact C++ float literal, e.g. -0x1.99999ap-4f (float.hex of a float32 is exact)."""
    v = float(np.float32(x))
    mantissa, exponent = v.hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def _braced(values: np.ndarray, indent: str, per_line: int = 8) -> List[str]:
    """`{a, b, ...},` over lines of `per_line` numbers (floats, or uint16 binary16 bits)."""
    literal = hex_half if values.dtype == np.uint16 else hex_float
    if values.dtype == np.uint16:
        per_line = 12
    literals = [literal(v) for v in values]
    lines = [", ".join(literals[i:i + per_line]) for i in range(0, len(literals), per_line)]
    return [indent + ("{" if i == 0 else " ") + line + ("}," if i == len(lines) - 1 else ",")
            for i, line in enumerate(lines)]


def _member_lines(label: str, key: str, a: np.ndarray, indent: str) -> List[str]:
    dims = "".join(f"[{n}]" for n in a.shape)
    source = f"{key}, transposed" if a.ndim == 2 else key
    lines = [f"{indent}// {label}{dims} <- {source}"]
    if a.ndim == 1:
        return lines + _braced(a, indent)
    lines.append(indent + "{")
    for row in a:
        lines += _braced(row, indent + "    ")
    return lines + [indent + "},"]


def describe(spec: EncoderSpec) -> str:
    return config_type(spec).replace("staticformer::", "")


def encoder_initializer(spec: EncoderSpec, weights: EncoderWeights, precision: str, indent: str,
                        key_prefix: str = "") -> List[str]:
    """The members of encoder_weights' initializer (layers, final norm), one level at `indent`."""
    arrays = {path: a for path, _, a in precision_arrays(weights, precision)}
    i1, i2, i3 = indent + "    ", indent + "        ", indent + "            "
    out = [f"{indent}{{  // layer[{spec.layers}]"]
    for i in range(len(weights.layers)):
        out.append(f"{i1}{{  // layer {i}")
        for m in LAYER_MEMBERS:
            if m.path(i) in arrays:
                out += _member_lines(m.name, key_prefix + m.key(i), arrays[m.path(i)], i2)
            else:
                out += [f"{i2}{{}},  // {m.name}: none ({'no_bias' if m.role == 'bias' else 'no beta'})"]
        out.append(f"{i1}}},")
    out.append(f"{indent}}},")
    if weights.final_norm is None:
        out += [f"{indent}// final_norm: none (the encoder has no final LayerNorm)", f"{indent}{{}},"]
    else:
        out.append(f"{indent}{{  // final_norm")
        for m in FINAL_NORM_MEMBERS:
            if m.path(None) in arrays:
                out += _member_lines(m.name, key_prefix + m.key(None), arrays[m.path(None)], i1)
            else:
                out += [f"{i1}{{}},  // {m.name}: none (no beta)"]
        out.append(f"{indent}}},")
    return out


def header_text(name: str, spec: EncoderSpec, weights: EncoderWeights, source: str,
                precision: str = "f32") -> str:
    check_name(name)
    out = [
        f"// {name}: staticformer encoder weights ({precision}), {weights.parameter_count():,} parameters.",
        f"// Generated by tools/export_pytorch.py from {source}; re-export rather than edit.",
        f"// {describe(spec)}",
        "// Matrices are w[in][out], the transpose of torch's Linear.weight.",
    ]
    if precision == "f16":
        out.append("// Every parameter is an IEEE binary16 bit pattern (0x3c00 = 1.0), widened to float exactly.")
    out += [
        "#pragma once",
        "",
        "#include <staticformer/staticformer.hpp>",
        "",
        config_using(name, spec),
        "",
        f"alignas(staticformer::weights_alignment) inline constexpr staticformer::encoder_weights<{name}_config, staticformer::{precision}> {name} = {{",
    ]
    out += encoder_initializer(spec, weights, precision, "    ")
    out.append("};")
    return "\n".join(out) + "\n"


def write_header(path, name: str, spec: EncoderSpec, weights: EncoderWeights, source: str,
                 precision: str = "f32") -> int:
    """Writes the C++ header; returns its size in bytes."""
    data = header_text(name, spec, weights, source, precision).encode("ascii")
    Path(path).write_bytes(data)
    return len(data)


# ---- blob -----------------------------------------------------------------------------------

BLOB_MAGIC = b"SFWB"
BLOB_VERSION = 3  # blob.hpp blob::version (2: the int8 payload in 64-byte units; 3: the int16 stream)
BLOB_HEADER_BYTES = 64
BYTE_ORDER_MARK = 0x01020304
# Header bytes [0, 60): magic, version, header size, byte-order mark, d_model, heads, d_ff,
# seq_len, layers, options, eps bits, precision, payload size (u64), payload CRC-32.
HEADER_FIELDS = struct.Struct("<4s11IQI")


def payload_bytes(weights: EncoderWeights, precision: str = "f32") -> bytes:
    """The bytes of encoder_weights<cfg, precision>: every array little-endian, in order, as
    float32 (f32) or binary16 bit patterns (f16)."""
    element = "<f4" if precision == "f32" else "<u2"
    arrays = {path: a for path, _, a in precision_arrays(weights, precision)}
    # An absent member (no_bias, no_norm_bias) occupies one element, as an empty struct does.
    parts = [np.ascontiguousarray(arrays[path], dtype=element).tobytes() if path in arrays
             else bytes(np.dtype(element).itemsize) for path, _, _ in weights.members(absent=True)]
    if weights.final_norm is None:
        # The empty final_norm member still occupies one byte, padded to the element's alignment.
        parts.append(bytes(np.dtype(element).itemsize))
    return b"".join(parts)


def options_code(spec: EncoderSpec) -> int:
    return ((1 if spec.norm_first else 0) | (2 if spec.final_norm else 0) | (4 if spec.causal else 0) |
            (ACTIVATIONS.index(spec.activation) << 4) | (0x100 if spec.no_bias else 0) |
            (0x200 if spec.no_norm_bias or spec.rms_norm else 0) | (0x400 if spec.rms_norm else 0) |
            (0x800 if spec.glu else 0) | (ROTARY_LAYOUTS.index(spec.rotary) << 12) |
            (theta_code(spec.rotary_theta) << 16 if spec.rotary != "none" else 0))


def heads_code(spec: EncoderSpec) -> int:
    """The blob's heads field: heads, and grouped-query attention's kv_heads in bits 16..31 (blob.hpp)."""
    return spec.heads | (spec.kv_heads << 16 if spec.kv_heads and spec.kv_heads != spec.heads else 0)


def blob_bytes(spec: EncoderSpec, weights: EncoderWeights, precision: str = "f32") -> bytes:
    if own_eps32(spec.final_norm_eps, spec) is not None:
        raise ExportError("an encoder blob holds one LayerNorm epsilon: the final norm's own "
                          f"{spec.final_norm_eps!r} travels in a model blob (or a --header)")
    payload = payload_bytes(weights, precision)
    head = HEADER_FIELDS.pack(BLOB_MAGIC, BLOB_VERSION, BLOB_HEADER_BYTES, BYTE_ORDER_MARK,
                              spec.d_model, heads_code(spec), spec.d_ff, spec.seq_len, spec.layers,
                              options_code(spec), eps_bits(spec_eps32(spec)), PRECISIONS.index(precision),
                              len(payload), zlib.crc32(payload))
    head += struct.pack("<I", zlib.crc32(head))
    assert len(head) == BLOB_HEADER_BYTES
    return head + payload


def write_blob(path, spec: EncoderSpec, weights: EncoderWeights, precision: str = "f32") -> int:
    """Writes the weights blob; returns its size in bytes."""
    data = blob_bytes(spec, weights, precision)
    Path(path).write_bytes(data)
    return len(data)


def export(spec: EncoderSpec, weights: EncoderWeights, name: str, source: str,
           header: Optional[str] = None, blob: Optional[str] = None, precision: str = "f32") -> str:
    """Writes the header and/or blob and returns a one-line summary."""
    check_name(name)
    # Both outputs or neither: check the whole conversion before writing anything.
    payload = payload_bytes(weights, precision)
    summary = f"{name}: {describe(spec)}, {weights.parameter_count():,} parameters, {precision} ({len(payload):,} bytes)"
    if header:
        summary += f", header {write_header(header, name, spec, weights, source, precision):,} bytes"
    if blob:
        summary += f", blob {write_blob(blob, spec, weights, precision):,} bytes"
    return summary


# ---- int8: calibration and quantisation by the library's C++ -----------------------------

@dataclass
class Calibration:
    """Calibration samples as the C++ quantiser reads them (zero-padded to the model's rows or
    tokens), each one's valid length, and its key padding mask if the file has one."""
    samples: np.ndarray
    lengths: np.ndarray           # int32 [count]
    masks: Optional[np.ndarray]   # uint8 [count, tokens], 1: padding (torch's True)

    def quantiser_args(self, tmp: Path) -> List[str]:
        """The files of the lengths and masks, written to tmp, as the quantiser's arguments."""
        self.lengths.astype("<i4").tofile(tmp / "lengths.bin")
        if self.masks is None:
            return ["--lengths", str(tmp / "lengths.bin")]
        self.masks.astype(np.uint8).tofile(tmp / "masks.bin")
        return ["--lengths", str(tmp / "lengths.bin"), "--masks", str(tmp / "masks.bin")]


def read_calibration(path) -> Tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
    """(inputs, lengths, key_padding_mask) of a calibration file: a .npy holds the inputs alone, a
    .npz 'inputs' and, optionally, 'lengths' (valid tokens per sample) and 'key_padding_mask'
    (bool [count, tokens], True where a token is padding, as torch's src_key_padding_mask)."""
    try:
        data = np.load(path)
    except Exception as e:
        raise ExportError(f"cannot read calibration samples {path}: {e}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        return data, None, None
    unknown = set(data.files) - {"inputs", "lengths", "key_padding_mask"}
    if "inputs" not in data.files or unknown:
        raise ExportError(f"{path}: a calibration .npz holds 'inputs' and optionally 'lengths' and "
                          f"'key_padding_mask', not {sorted(data.files)}")
    return data["inputs"], data.get("lengths"), data.get("key_padding_mask")


def calibration_extents(path, inputs: np.ndarray, samples: np.ndarray, lengths, mask, tokens: int) -> Calibration:
    """A Calibration of samples (inputs padded to `tokens`), checking the lengths (default: the
    tokens the inputs have) and the mask ([count, up to tokens] bools, padded with False)."""
    count, given = samples.shape[0], inputs.shape[1] if inputs.ndim > 1 else 1
    if lengths is None:
        lengths = np.full(count, given, dtype=np.int32)
    lengths = np.asarray(lengths)
    if lengths.shape != (count,) or not np.issubdtype(lengths.dtype, np.integer) or \
            lengths.min() < 1 or lengths.max() > given:
        raise ExportError(f"{path}: lengths must be {count} integers in 1..{given}")
    masks = None
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != np.bool_ or mask.ndim != 2 or mask.shape[0] != count or mask.shape[1] > tokens:
            raise ExportError(f"{path}: key_padding_mask must be bool [{count}, up to {tokens}], not "
                              f"{mask.dtype} {list(mask.shape)}")
        masks = np.zeros((count, tokens), dtype=np.uint8)
        masks[:, :mask.shape[1]] = mask
    return Calibration(samples, lengths.astype(np.int32), masks)


def calibration_samples(path, spec: EncoderSpec) -> Calibration:
    """[count, seq_len, d_model] float32 samples (zero-padded), their lengths and masks."""
    a, lengths, mask = read_calibration(path)
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3 or a.shape[2] != spec.d_model or not 1 <= a.shape[1] <= spec.seq_len or a.shape[0] < 1:
        raise ExportError(f"{path}: calibration samples must have shape [count, rows <= {spec.seq_len}, "
                          f"{spec.d_model}], not {list(a.shape)}")
    if not np.isfinite(a).all():
        raise ExportError(f"{path}: calibration samples must be finite")
    out = np.zeros((a.shape[0], spec.seq_len, spec.d_model), dtype="<f4")
    out[:, :a.shape[1], :] = a
    return calibration_extents(path, a, out, lengths, mask, spec.seq_len)


def integer_precision(precision: str) -> str:
    """precision, checked: int8 or a16w8 (int8 weights, int16 activations)."""
    if precision not in INTEGER_PRECISIONS:
        raise ExportError(f"precision {precision!r}: the quantiser writes int8 or a16w8")
    return precision


def run_quantiser(f32_header: str, call: str, calibration: Calibration, args: List[str],
                  header: Optional[str], blob: Optional[str]) -> str:
    """Compiles a program around quant::<call> (quantize_tool.hpp) with the f32 weights' header,
    runs it on the calibration samples (written raw, with their lengths and masks) and lets it
    write the int8 header and / or blob; its report goes to stdout and is returned."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "model_f32.hpp").write_text(f32_header)
        calibration.samples.tofile(t / "calibration.bin")
        args = calibration.quantiser_args(t) + args
        try:
            exe = cpp.compile_program('#include "model_f32.hpp"\n#include "quantize_tool.hpp"\n'
                                      f"int main(int argc, char** argv) {{ return staticformer::quant::{call}; }}\n",
                                      t, "-O2", "quantiser")
        except RuntimeError as e:
            raise ExportError(str(e)) from None
        run = [str(exe), "--calibration", str(t / "calibration.bin")] + args
        if header:
            run += ["--header", str(Path(header).resolve())]
        if blob:
            run += ["--blob", str(Path(blob).resolve())]
        sys.stdout.flush()
        done = subprocess.run(run, stdout=subprocess.PIPE, text=True)
        print(done.stdout, end="", flush=True)
        if done.returncode != 0:
            raise ExportError("quantisation failed")
        return done.stdout


def export_int8(spec: EncoderSpec, weights: EncoderWeights, name: str, source: str, calibration,
                method: str = "min_max", percentile: float = 99.99,
                header: Optional[str] = None, blob: Optional[str] = None, report: Optional[dict] = None,
                announce_blob: bool = True, precision: str = "int8") -> str:
    """Quantises with the library's C++ quantiser (quant::tool_main) and writes the int8 header
    and/or blob; its report goes to stdout (and to report["calibration"] if report is given).
    Returns a one-line summary (naming the blob if announce_blob)."""
    check_name(name)
    samples = calibration_samples(calibration, spec)
    text = run_quantiser(header_text(name, spec, weights, source, "f32"),
                         f"tool_main<{name}_config, staticformer::{integer_precision(precision)}>({name}, argc, argv)",
                         samples, ["--method", method, "--percentile", repr(percentile),
                                   "--name", name, "--config", config_using(name, spec), "--source", source],
                         header, blob)
    if report is not None:
        report["calibration"] = text
    summary = f"{name}: {describe(spec)}, {precision}, calibrated on {len(samples.lengths)} samples ({method})"
    if header:
        summary += f", header {Path(header).stat().st_size:,} bytes"
    if blob and announce_blob:
        summary += f", blob {Path(blob).stat().st_size:,} bytes"
    return summary
