"""Whole models for staticformer: what export_pytorch.py does for encoders, for models.

Reads torchvision's VisionTransformer and staticformer_torch.TransformerClassifier (a module, or
their state_dict), and writes staticformer::model_weights<NAME_config, P> as a C++ header and as
a model blob (.sfwm: the format is include/staticformer/blob.hpp's model_header). The struct
order is model_weights.hpp's: encoder, input, cls, embedding_norm, head (the pooled row's norm,
then the classifier), positions (absent parts are empty members: one byte each in the payload).
"""

import math
import struct
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, List, Optional, Tuple

import numpy as np
import torch
from torch import nn

from . import encoder_export as ep
from . import module_import
from .encoder_schema import (ENCODER_OPTIONS, INPUTS, MODEL_OPTIONS, POOLINGS, POSITIONS, EncoderSpec, default,
                            model_problems)
from .staticformer_torch import ClassifierConfig, TransformerClassifier, config_from_json, sinusoid_table


@dataclass(frozen=True)
class ModelSpec:
    """A staticformer model_config: the encoder and its front and back (encoder_schema's
    MODEL_OPTIONS, with their defaults: those of C++). Checked when made: ExportError."""
    encoder: EncoderSpec
    input: str                      # one of INPUTS (index = input kind in the blob); no default
    vocab: int = default("vocab")
    features: int = default("features")  # per token (patches: channels * patch^2)
    image: Tuple[int, int, int] = default("image")  # channels, height, width
    patch: int = default("patch")
    scale_embedding: bool = default("scale_embedding")
    positions: str = default("positions")  # one of POSITIONS (index = code in the blob)
    cls_token: bool = default("cls_token")
    embedding_norm: bool = default("embedding_norm")
    embedding_norm_eps: Optional[float] = default("embedding_norm_eps")  # None: the encoder's eps
    pooling: str = default("pooling")      # one of POOLINGS (index = code in the blob)
    pooled_norm: bool = default("pooled_norm")
    pooled_norm_eps: Optional[float] = default("pooled_norm_eps")        # None: the encoder's eps
    classes: int = default("classes")

    def __post_init__(self):
        problems = model_problems({o.name: getattr(self, o.name) for o in MODEL_OPTIONS}, self.encoder.seq_len)
        if problems:
            raise ep.ExportError("; ".join(problems))

    @property
    def input_tokens(self) -> int:
        return self.encoder.seq_len - int(self.cls_token)


# A part of model_weights: (C++ member, [(field, torch key, array)]); no fields: an empty member.
Part = Tuple[str, List[Tuple[str, str, np.ndarray]]]


@dataclass
class ModelWeights:
    encoder: ep.EncoderWeights
    parts: List[Part]  # input, cls, embedding_norm, head, positions, in struct order

    def parameter_count(self) -> int:
        return self.encoder.parameter_count() + sum(a.size for _, fields in self.parts for _, _, a in fields)


# ---- extraction -------------------------------------------------------------------------------

def _array(t: torch.Tensor, key: str, shape: tuple) -> np.ndarray:
    """A float tensor as float32 of the given shape (no transposition)."""
    a = t.detach().cpu().to(torch.float32).numpy().reshape(shape)
    if not np.isfinite(a).all():
        raise ep.ExportError(f"tensor '{key}' contains inf or nan")
    return np.ascontiguousarray(a, dtype=np.float32)


def _get(state: dict, key: str) -> torch.Tensor:
    if key not in state:
        raise ep.ExportError(f"missing tensor '{key}'")
    return state[key]


def _parts(spec: ModelSpec, state: dict, keys: dict) -> List[Part]:
    """The parts after the encoder from a state_dict; keys names each part's tensors."""
    d = spec.encoder.d_model
    if spec.input == "tokens":
        k = keys["table"]
        table = _get(state, k)
        if tuple(table.shape) != (spec.vocab, d):
            raise ep.ExportError(f"tensor '{k}' is {tuple(table.shape)}, expected ({spec.vocab}, {d})")
        front = [("table", k, _array(table, k, (spec.vocab, d)))]
    else:
        kw, kb = keys["w"], keys["b"]
        w = _get(state, kw)
        if w.numel() != spec.features * d or w.shape[0] != d:
            raise ep.ExportError(f"tensor '{kw}' is {tuple(w.shape)}, expected {d} x {spec.features} values")
        # torch: [out][in] (Linear) or [out][channels][dy][dx] (Conv2d): in order (ch, dy, dx)
        front = [("w", kw, _array(w, kw, (d, spec.features)).T.copy()), ("b", kb, _array(_get(state, kb), kb, (d,)))]
    parts: List[Part] = [("input", front)]
    parts.append(("cls", [("token", keys["cls"], _array(_get(state, keys["cls"]), keys["cls"], (d,)))]
                  if spec.cls_token else []))
    parts.append(("embedding_norm", [("gamma", keys["norm"] + ".weight", _array(_get(state, keys["norm"] + ".weight"), "", (d,))),
                                     ("beta", keys["norm"] + ".bias", _array(_get(state, keys["norm"] + ".bias"), "", (d,)))]
                  if spec.embedding_norm else []))
    head = []
    if spec.pooled_norm:
        kg, kb = keys["pooled_norm"] + ".weight", keys["pooled_norm"] + ".bias"
        head += [("norm_gamma", kg, _array(_get(state, kg), kg, (d,))), ("norm_beta", kb, _array(_get(state, kb), kb, (d,)))]
    if spec.classes:
        kw, kb = keys["head"] + ".weight", keys["head"] + ".bias"
        head += [("w", kw, _array(_get(state, kw), kw, (spec.classes, d)).T.copy()),
                 ("b", kb, _array(_get(state, kb), kb, (spec.classes,)))]
    parts.append(("head", head))
    if spec.positions == "learned":
        k = keys["positions"]
        t = _get(state, k)
        rows = t.numel() // d
        if rows < spec.encoder.seq_len:
            raise ep.ExportError(f"'{k}' has {rows} rows, fewer than seq_len {spec.encoder.seq_len}")
        parts.append(("positions", [("table", k, _array(t, k, (rows, d))[: spec.encoder.seq_len])]))
    else:
        parts.append(("positions", []))
    return parts


def classifier_spec(c: ClassifierConfig, seq_len: Optional[int] = None) -> ModelSpec:
    enc = EncoderSpec(c.d_model, c.heads, c.d_ff, seq_len or c.seq_len, c.layers,
                      **{o.name: getattr(c, o.name) for o in ENCODER_OPTIONS})
    if c.positions == "learned" and enc.seq_len > c.seq_len:
        raise ep.ExportError(f"--seq-len {enc.seq_len}: the model learned positions for {c.seq_len} rows only")
    options = {o.name: getattr(c, o.name) for o in MODEL_OPTIONS}
    options["image"] = tuple(c.image)
    if c.input == "patches":  # ModelSpec's features: the values of one patch
        options["features"] = c.image[0] * c.patch * c.patch
    return ModelSpec(enc, **options)  # checks the image's seq_len (its patches, plus one with a CLS token)


def extract_classifier(state: dict, config: ClassifierConfig, seq_len: Optional[int] = None) -> Tuple[ModelSpec, ModelWeights]:
    spec = classifier_spec(config, seq_len)
    ep.check_spec(spec.encoder)
    encoder_state = {k: v for k, v in state.items() if k.startswith("encoder.")}
    encoder = ep.extract_state_dict(encoder_state, spec.encoder, "encoder.")
    front = {"table": "embedding.weight"} if spec.input == "tokens" else {"w": "projection.weight", "b": "projection.bias"}
    keys = dict(front, cls="cls", norm="embedding_norm", pooled_norm="pooled_norm", head="head", positions="positions")
    return spec, ModelWeights(encoder, _parts(spec, state, keys))


def _vit_state(state: dict, layers: int) -> dict:
    """torchvision ViT encoder keys renamed to nn.TransformerEncoder's."""
    names = {"ln_1": "norm1", "ln_2": "norm2", "self_attention": "self_attn", "mlp.0": "linear1", "mlp.3": "linear2",
             "mlp.linear_1": "linear1", "mlp.linear_2": "linear2"}
    out = {}
    for i in range(layers):
        prefix = f"encoder.layers.encoder_layer_{i}."
        for k, v in state.items():
            if k.startswith(prefix):
                rest = k[len(prefix):]
                for a, b in names.items():
                    if rest.startswith(a + "."):
                        rest = b + rest[len(a):]
                        break
                out[f"layers.{i}.{rest}"] = v
    for k in ("weight", "bias"):
        out[f"norm.{k}"] = _get(state, f"encoder.ln.{k}")
    return out


def vit_spec(heads: int, state: dict, eps: float = 1e-6, final_eps: Optional[float] = None) -> ModelSpec:
    """The model of a torchvision VisionTransformer's state_dict (heads are not in its tensors)."""
    conv = _get(state, "conv_proj.weight")
    if conv.dim() != 4:
        raise ep.ExportError("conv_proj is not one Conv2d (conv_stem_configs are not supported)")
    d, channels, patch = int(conv.shape[0]), int(conv.shape[1]), int(conv.shape[2])
    seq_len = int(_get(state, "encoder.pos_embedding").shape[1])
    side = int(round((seq_len - 1) ** 0.5)) * patch
    layers = len({k.split(".")[2] for k in state if k.startswith("encoder.layers.")})
    mlp = _get(state, f"encoder.layers.encoder_layer_0.{'mlp.0' if 'encoder.layers.encoder_layer_0.mlp.0.weight' in state else 'mlp.linear_1'}.weight")
    if "heads.pre_logits.weight" in state:
        raise ep.ExportError("ViT with representation_size (a pre-logits layer) is not supported")
    classes = int(_get(state, "heads.head.weight").shape[0])
    enc = EncoderSpec(d, heads, int(mlp.shape[0]), seq_len, layers, norm_first=True, activation="gelu",
                      final_norm=True, eps=eps, final_norm_eps=final_eps)
    return ModelSpec(enc, "patches", features=channels * patch * patch, image=(channels, side, side), patch=patch,
                     positions="learned", cls_token=True, pooling="cls", classes=classes)


def extract_vit_state(state: dict, heads: int, eps: float = 1e-6,
                      final_eps: Optional[float] = None) -> Tuple[ModelSpec, ModelWeights]:
    spec = vit_spec(heads, state, eps, final_eps)
    ep.check_spec(spec.encoder)
    encoder = ep.extract_state_dict(_vit_state(state, spec.encoder.layers), spec.encoder)
    keys = {"w": "conv_proj.weight", "b": "conv_proj.bias", "cls": "class_token", "head": "heads.head",
            "positions": "encoder.pos_embedding"}
    return spec, ModelWeights(encoder, _parts(spec, state, keys))


def extract_vit(vit: nn.Module) -> Tuple[ModelSpec, ModelWeights]:
    if getattr(vit, "representation_size", None) is not None:
        raise ep.ExportError("ViT with representation_size (a pre-logits layer) is not supported")
    if not isinstance(vit.conv_proj, nn.Conv2d):
        raise ep.ExportError("conv_proj is not one Conv2d (conv_stem_configs are not supported)")
    blocks = list(vit.encoder.layers)
    eps = {ep._layer_norm_eps(m, vit.hidden_dim, n) for b in blocks for n, m in (("ln_1", b.ln_1), ("ln_2", b.ln_2))}
    if len(eps) != 1:
        raise ep.ExportError(f"layers' LayerNorms with different epsilons {sorted(eps)}: the layers share one")
    final_eps = ep._layer_norm_eps(vit.encoder.ln, vit.hidden_dim, "encoder.ln")
    for i, b in enumerate(blocks):
        act = b.mlp[1]
        if not isinstance(act, nn.GELU) or act.approximate != "none":
            raise ep.ExportError(f"encoder_layer_{i}: the MLP's activation is not nn.GELU()")
    layer_eps = eps.pop()
    return extract_vit_state(vit.state_dict(), blocks[0].num_heads, layer_eps,
                             final_eps if final_eps != layer_eps else None)


def is_vit(obj) -> bool:
    return type(obj).__name__ == "VisionTransformer" and hasattr(obj, "conv_proj") and hasattr(obj, "class_token")


def extract_model(obj, seq_len: Optional[int] = None, parts: Optional[str] = None) -> Tuple[ModelSpec, ModelWeights]:
    """A saved module: a VisionTransformer, a TransformerClassifier, or a module of the user's
    own whose forward module_import.py recognises (or whose parts `parts` names)."""
    if isinstance(obj, TransformerClassifier):
        return extract_classifier(obj.state_dict(), obj.config, seq_len)
    if is_vit(obj):
        if seq_len not in (None, obj.seq_length):
            raise ep.ExportError(f"a ViT's seq_len is its patches plus the CLS token: {obj.seq_length}")
        return extract_vit(obj)
    if not isinstance(obj, nn.Module):
        raise ep.ExportError(f"{type(obj).__name__} is not a module")
    try:
        found = module_import.from_mapping(obj, parts) if parts else module_import.recognise(obj)
        return extract_user_module(obj, found, seq_len)
    except module_import.ImportError_ as e:
        raise ep.ExportError(f"{type(obj).__name__}: {e}") from None


def _user_encoder(module: nn.Module, p) -> nn.TransformerEncoder:
    """The recognised encoder as one nn.TransformerEncoder (its layers and final norm shared)."""
    if p.encoder:
        found = module.get_submodule(p.encoder)
        layers, final = list(found.layers), found.norm
    else:
        layers, final = [module.get_submodule(n) for n in p.layers], None
    if p.final_norm:
        final = module.get_submodule(p.final_norm)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 1, 8), 1, enable_nested_tensor=False)
    encoder.layers, encoder.norm = nn.ModuleList(layers), final
    return encoder


def _user_rows(module: nn.Module, p, d: int, seq_len: Optional[int]) -> Tuple[int, str]:
    """(seq_len, positions): the position table's rows, a buffer equal to the sinusoid table being
    'sinusoidal' (any other table is exported as learned)."""
    if not p.positions:
        if seq_len is None:
            raise ep.ExportError("the module adds no position table: give --seq-len")
        return seq_len, "none"
    table = module.get_parameter(p.positions_key) if p.positions == "learned" else module.get_buffer(p.positions_key)
    rows = table.numel() // d
    kind = "learned"
    if p.positions == "sinusoidal" and torch.allclose(table.reshape(rows, d).float(), sinusoid_table(rows, d),
                                                       rtol=0, atol=1e-6):
        kind = "sinusoidal"
    return (seq_len or rows), kind


def extract_user_module(module: nn.Module, p, seq_len: Optional[int] = None) -> Tuple[ModelSpec, ModelWeights]:
    """The ModelSpec and weights of the parts module_import.recognise found (p), read from the
    user's own names."""
    encoder = _user_encoder(module, p)
    d = encoder.layers[0].self_attn.embed_dim
    rows, positions = _user_rows(module, p, d, seq_len)
    enc = ep.spec_from_module(encoder, rows, model=True)
    front = module.get_submodule(p.front)
    options = dict(input=p.input, positions=positions, cls_token=bool(p.cls), embedding_norm=bool(p.embedding_norm),
                   pooling=p.pooling, pooled_norm=bool(p.pooled_norm),
                   classes=module.get_submodule(p.head).out_features if p.head else 0)
    if p.input == "tokens":
        options["vocab"] = front.num_embeddings
        if p.scale_embedding and abs(p.scale - math.sqrt(d)) > 1e-6 * math.sqrt(d):
            raise ep.ExportError(f"the embedding is scaled by {p.scale}, not sqrt(d_model) = {math.sqrt(d):.7g}")
        options["scale_embedding"] = p.scale_embedding
    elif p.input == "features":
        options["features"] = front.in_features
    else:
        if front.kernel_size != front.stride or front.kernel_size[0] != front.kernel_size[1]:
            raise ep.ExportError(f"{p.front}: a patch front is a square Conv2d with kernel_size == stride")
        side = math.isqrt(enc.seq_len - int(bool(p.cls))) * front.kernel_size[0]
        options.update(image=(front.in_channels, side, side), patch=front.kernel_size[0],
                       features=front.in_channels * front.kernel_size[0] ** 2)
    for option, name in (("embedding_norm", p.embedding_norm), ("pooled_norm", p.pooled_norm)):
        if name:  # a LayerNorm with a bias (module_import checks), its own epsilon where it differs
            eps = ep._layer_norm_eps(module.get_submodule(name), d, name)
            options[option + "_eps"] = eps if eps != enc.eps else None
    spec = ModelSpec(enc, **options)
    keys = {"table": f"{p.front}.weight", "w": f"{p.front}.weight", "b": f"{p.front}.bias", "cls": p.cls,
            "norm": p.embedding_norm, "pooled_norm": p.pooled_norm, "head": p.head, "positions": p.positions_key}
    state = module.state_dict()
    return spec, ModelWeights(ep.extract_state_dict(encoder.state_dict(), enc), _parts(spec, state, keys))


def torch_runner(obj) -> Callable:
    """run(module, x, lengths): the module's outputs as the library's model gives them (logits, the
    pooled row, or every row with padding zero); lengths count tokens. Only a TransformerClassifier
    takes them: other modules run whole sequences (takes_lengths)."""
    if isinstance(obj, TransformerClassifier):
        return lambda m, x, lengths: m(x, valid_len=lengths)
    return lambda m, x, lengths: m(x)


def takes_lengths(obj) -> bool:
    return isinstance(obj, TransformerClassifier)


def module_of_state(state: dict) -> Optional[nn.Module]:
    """The TransformerClassifier a state_dict carries the configuration of, its weights loaded;
    None for another state_dict (a ViT's: its torchvision constructor is not known here)."""
    if "_extra_state" not in state:
        return None
    module = TransformerClassifier(**asdict(config_from_json(state["_extra_state"])))
    module.load_state_dict(state)
    return module.eval()


def extract_model_state(state: dict, heads: Optional[int], seq_len: Optional[int] = None) -> Tuple[ModelSpec, ModelWeights]:
    """A state_dict: a TransformerClassifier's (it carries its configuration) or a ViT's (--heads)."""
    if "_extra_state" in state:
        try:
            config = config_from_json(state["_extra_state"])
        except (TypeError, ValueError) as e:
            raise ep.ExportError(f"a state_dict with an unknown _extra_state: {e}") from None
        return extract_classifier(state, config, seq_len)
    if "conv_proj.weight" in state and "class_token" in state:
        if heads is None:
            raise ep.ExportError("a VisionTransformer state_dict needs --heads")
        return extract_vit_state(state, heads)
    raise ep.ExportError("not a model state_dict")


# ---- C++ header ---------------------------------------------------------------------------------

def model_config_type(name: str, spec: ModelSpec) -> str:
    s = "staticformer::"
    if spec.input == "tokens":
        front = f"{s}token_input<{spec.vocab}>"
    elif spec.input == "features":
        front = f"{s}feature_input<{spec.features}>"
    else:
        front = f"{s}patch_input<{spec.image[0]}, {spec.image[1]}, {spec.image[2]}, {spec.patch}>"
    opts = [f"{name}_encoder_config", front]
    opts += [f"{s}scale_embedding"] * spec.scale_embedding
    opts += [f"{s}{spec.positions}_positions"] * (spec.positions != default("positions"))
    opts += [f"{s}cls_token"] * spec.cls_token + [f"{s}embedding_norm"] * spec.embedding_norm
    opts += ep.own_eps_tags("embedding_norm_eps", spec.embedding_norm_eps, spec.encoder)
    opts += [f"{s}{spec.pooling}_pooling"] * (spec.pooling != default("pooling"))
    opts += [f"{s}pooled_norm"] * spec.pooled_norm + ep.own_eps_tags("pooled_norm_eps", spec.pooled_norm_eps, spec.encoder)
    opts += [f"{s}classifier_head<{spec.classes}>"] * (spec.classes > 0)
    return f"{s}model_config<{', '.join(opts)}>"


def _stored(a: np.ndarray, key: str, precision: str) -> np.ndarray:
    return a if precision == "f32" else ep.half_bits(a, key)


def describe(spec: ModelSpec) -> str:
    return model_config_type("m", spec).replace("staticformer::", "").replace("m_encoder_config", ep.describe(spec.encoder))


def header_text(name: str, spec: ModelSpec, weights: ModelWeights, source: str, precision: str = "f32") -> str:
    ep.check_name(name)
    out = [
        f"// {name}: staticformer model weights ({precision}), {weights.parameter_count():,} parameters.",
        f"// Generated by tools/export_pytorch.py from {source}; re-export rather than edit.",
        f"// {describe(spec)}",
        "// Matrices are w[in][out], the transpose of torch's Linear.weight.",
        "#pragma once",
        "",
        "#include <staticformer/staticformer.hpp>",
        "",
        ep.config_using(f"{name}_encoder", spec.encoder),
        f"using {name}_config = {model_config_type(name, spec)};",
        "",
        f"alignas(staticformer::weights_alignment) inline constexpr staticformer::model_weights<{name}_config, "
        f"staticformer::{precision}> {name} = {{",
        "    {  // encoder",
    ]
    out += ep.encoder_initializer(spec.encoder, weights.encoder, precision, "        ", "encoder.")
    out.append("    },")
    for part, fields in weights.parts:
        if not fields:
            out.append(f"    {{}},  // {part}: none")
            continue
        out.append(f"    {{  // {part}")
        for field, key, a in fields:
            out += ep._member_lines(field, key, _stored(a, key, precision), "        ")
        out.append("    },")
    out.append("};")
    return "\n".join(out) + "\n"


# ---- blob -------------------------------------------------------------------------------------

MODEL_MAGIC = b"SFWM"
MODEL_VERSION = 1
MODEL_HEADER_BYTES = 128
# blob.hpp model_header: bytes [0, 56) as the encoder blob's header, then input kind, vocab,
# features, channels, height, width, patch, model options, classes, position rows, the final,
# embedding and pooled norms' own epsilons (0: the layers'), 12 reserved bytes, payload CRC; the
# header CRC over [0, 124) follows.
MODEL_FIELDS = struct.Struct("<4s11IQ13I12xI")


def model_options(spec: ModelSpec) -> int:
    return (int(spec.scale_embedding) | int(spec.cls_token) << 1 | int(spec.embedding_norm) << 2 |
            int(spec.pooled_norm) << 3 | POSITIONS.index(spec.positions) << 4 | POOLINGS.index(spec.pooling) << 8)


def own_eps_fields(spec: ModelSpec) -> List[int]:
    """The header's epsilon fields of the final, the embedding and the pooled row's norm."""
    e = spec.encoder
    return [ep.eps_bits(ep.own_eps32(eps, e) if present else None)
            for present, eps in ((e.final_norm, e.final_norm_eps), (spec.embedding_norm, spec.embedding_norm_eps),
                                 (spec.pooled_norm, spec.pooled_norm_eps))]


def payload_bytes(weights: ModelWeights, precision: str = "f32") -> bytes:
    """model_weights' bytes: the encoder's, then each part (an empty one: one byte), each array
    aligned to its element, the whole padded to the element."""
    size = 4 if precision == "f32" else 2
    out = bytearray(ep.payload_bytes(weights.encoder, precision))
    element = "<f4" if precision == "f32" else "<u2"
    for _, fields in weights.parts:
        if not fields:
            out += b"\0"
            continue
        out += bytes(-len(out) % size)
        for _, key, a in fields:
            out += np.ascontiguousarray(_stored(a, key, precision), dtype=element).tobytes()
    out += bytes(-len(out) % size)
    return bytes(out)


def blob_bytes(spec: ModelSpec, weights: ModelWeights, precision: str = "f32") -> bytes:
    payload = payload_bytes(weights, precision)
    e = spec.encoder
    rows = dict(weights.parts)["positions"][0][2].shape[0] if spec.positions == "learned" else 0
    head = MODEL_FIELDS.pack(MODEL_MAGIC, MODEL_VERSION, MODEL_HEADER_BYTES, ep.BYTE_ORDER_MARK,
                             e.d_model, ep.heads_code(e), e.d_ff, e.seq_len, e.layers, ep.options_code(e),
                             ep.eps_bits(ep.spec_eps32(e)), ep.PRECISIONS.index(precision), len(payload),
                             INPUTS.index(spec.input), spec.vocab, spec.features, *spec.image, spec.patch,
                             model_options(spec), spec.classes, rows, *own_eps_fields(spec), zlib.crc32(payload))
    head += struct.pack("<I", zlib.crc32(head))
    assert len(head) == MODEL_HEADER_BYTES
    return head + payload


def export(spec: ModelSpec, weights: ModelWeights, name: str, source: str, header: Optional[str] = None,
           blob: Optional[str] = None, precision: str = "f32") -> str:
    ep.check_name(name)
    payload = payload_bytes(weights, precision)  # checks the whole conversion before writing
    summary = f"{name}: {describe(spec)}, {weights.parameter_count():,} parameters, {precision} ({len(payload):,} bytes)"
    if header:
        data = header_text(name, spec, weights, source, precision).encode("ascii")
        Path(header).write_bytes(data)
        summary += f", header {len(data):,} bytes"
    if blob:
        data = blob_bytes(spec, weights, precision)
        Path(blob).write_bytes(data)
        summary += f", blob {len(data):,} bytes"
    return summary


# ---- int8: the library's quantiser (quantize_tool.hpp, model_tool_main) ----------------------

def model_calibration(path, spec: ModelSpec) -> "ep.Calibration":
    """The samples as the C++ tool reads them, with their lengths and masks (export_pytorch's
    read_calibration): token ids [count, tokens], features [count, tokens, features] or images
    [count, channels, height, width] (all their patches)."""
    a, lengths, mask = ep.read_calibration(path)
    tokens = spec.input_tokens
    if spec.input == "patches":
        if a.ndim != 4 or tuple(a.shape[1:]) != tuple(spec.image):
            raise ep.ExportError(f"calibration images must be [count, {', '.join(map(str, spec.image))}], got {a.shape}")
        out = np.ascontiguousarray(a, dtype="<f4")
        return ep.calibration_extents(path, np.zeros((len(a), tokens)), out, lengths, mask, tokens)
    if spec.input == "tokens":
        if a.ndim != 2 or not 1 <= a.shape[1] <= tokens or not np.issubdtype(a.dtype, np.integer):
            raise ep.ExportError(f"calibration token ids must be integers [count, 1..{tokens}], got {a.dtype} {a.shape}")
        if a.min() < 0 or a.max() >= spec.vocab:
            raise ep.ExportError(f"calibration token ids must lie in 0..{spec.vocab - 1}")
        out = np.zeros((a.shape[0], tokens), dtype="<i4")
    else:
        if a.ndim != 3 or not 1 <= a.shape[1] <= tokens or a.shape[2] != spec.features:
            raise ep.ExportError(f"calibration features must be [count, 1..{tokens}, {spec.features}], got {a.shape}")
        out = np.zeros((a.shape[0], tokens, spec.features), dtype="<f4")
    out[:, : a.shape[1]] = a
    return ep.calibration_extents(path, a, out, lengths, mask, tokens)


def export_int8(spec: ModelSpec, weights: ModelWeights, name: str, source: str, calibration, method: str = "min_max",
                percentile: float = 99.99, header: Optional[str] = None, blob: Optional[str] = None,
                report: Optional[dict] = None, announce_blob: bool = True, precision: str = "int8") -> str:
    """As export_pytorch.export_int8 (report["calibration"]: the quantiser's report)."""
    ep.check_name(name)
    samples = model_calibration(calibration, spec)
    config = ep.config_using(f"{name}_encoder", spec.encoder) + f"\nusing {name}_config = {model_config_type(name, spec)};"
    call = f"model_tool_main<{name}_config, staticformer::{ep.integer_precision(precision)}>({name}, argc, argv)"
    text = ep.run_quantiser(header_text(name, spec, weights, source, "f32"), call,
                            samples, ["--method", method, "--percentile", repr(percentile),
                                      "--name", name, "--config", config, "--source", source], header, blob)
    if report is not None:
        report["calibration"] = text
    summary = f"{name}: {describe(spec)}, {precision}, calibrated on {len(samples.lengths)} samples ({method})"
    for what, path in (("header", header), ("blob", blob if announce_blob else None)):
        if path:
            summary += f", {what} {Path(path).stat().st_size:,} bytes"
    return summary
