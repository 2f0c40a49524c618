"""The encoder's weight layout, the options of encoders and whole models, and the reference
configurations, written once for every Python tool.

export_pytorch.py, model_export.py, staticformer_torch.py, footprint.py, make_goldens.py and
make_demo_model.py read these; they must match staticformer::layer_weights / encoder_weights,
encoder_config (config.hpp) and model_config (model_config.hpp) in C++, whose defaults
tests/model_schema_test.py compares with the ones here. Standard library only (footprint.py runs
without numpy).
"""

import math
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

# ---- options: name, allowed values and default, once -----------------------------------------


class _Required:
    """The default of an option that has none: C++ needs it (model_config's input)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclass(frozen=True)
class Option:
    """One option of an encoder or a model. kind: "choice" (one of choices, in blob-code order),
    "flag" (True or False), "count" (an integer >= 0), "positive" (a number > 0), "eps" (a number
    > 0, or None: the layers' eps) or "shape" (three integers >= 0)."""
    name: str
    kind: str
    default: object = REQUIRED
    choices: Tuple[str, ...] = ()
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def allowed(self) -> str:
        """The allowed values, as a message says them."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return {"flag": "True or False", "count": "an integer >= 0", "positive": "a number > 0",
                "eps": "a number > 0, or None (the layers' eps)", "shape": "three integers >= 0"}[self.kind]

    def accepts(self, value) -> bool:
        def count(v) -> bool:
            return isinstance(v, int) and not isinstance(v, bool) and v >= 0
        if self.kind == "choice":
            return isinstance(value, str) and value in self.choices
        if self.kind == "flag":
            return isinstance(value, bool)
        if self.kind == "count":
            return count(value)
        if self.kind == "positive" or (self.kind == "eps" and value is not None):
            return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                    and value > 0)
        if self.kind == "eps":
            return True
        return isinstance(value, (tuple, list)) and len(value) == 3 and all(count(v) for v in value)

    def problem(self, value) -> Optional[str]:
        """None, or what is wrong with value, naming the allowed values."""
        return None if self.accepts(value) else f"{self.name}={value!r} is not allowed: use {self.allowed()}"


ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")  # index = activation code in the blob
ROTARY_LAYOUTS = ("none", "halves", "interleaved")    # index = rotary code in the blob
DEFAULT_EPS = 1e-5

# encoder_config's options (config.hpp), in EncoderSpec's order; default: the option left out.
ENCODER_OPTIONS = (
    Option("norm_first", "flag", False, doc="pre-norm layers (staticformer::pre_norm), torch's norm_first"),
    Option("activation", "choice", "relu", ACTIVATIONS, doc="the feed-forward activation"),
    Option("final_norm", "flag", False, doc="a LayerNorm after the last layer (staticformer::final_norm)"),
    Option("eps", "positive", DEFAULT_EPS, doc="the LayerNorm epsilon (staticformer::layer_norm_eps<M, E>)"),
    Option("final_norm_eps", "eps", None, doc="the final norm's own epsilon (staticformer::final_norm_eps<M, E>); "
                                              "None: eps"),
    Option("causal", "flag", False, doc="row i attends to rows 0..i (staticformer::causal)"),
    Option("no_bias", "flag", False, doc="linear layers without biases (staticformer::no_bias), torch's bias=False"),
    Option("no_norm_bias", "flag", False, doc="LayerNorms without beta (staticformer::no_norm_bias)"),
    Option("rms_norm", "flag", False, doc="RMSNorm (no beta) for every LayerNorm, eps as eps (staticformer::rms_norm)"),
    Option("glu", "flag", False, doc="gated feed-forward W2 (act(x W1) * (x W3)): SwiGLU with silu, GeGLU with gelu "
                                     "(staticformer::glu)"),
    Option("rotary", "choice", "none", ROTARY_LAYOUTS,
           doc="rotary positions on queries and keys: pairs (i, i + head_dim/2) as GPT-NeoX / Llama "
               "(staticformer::rotary<theta>) or (2i, 2i + 1) as GPT-J (staticformer::rotary_interleaved<theta>)"),
    Option("rotary_theta", "count", 10000, doc="the rotary base theta: an integer M * 10^E with M < 4096"),
    Option("kv_heads", "count", 0, doc="grouped-query attention: key and value heads, dividing heads; 1: multi-query; "
                                       "0: as many as heads (staticformer::kv_heads<N>)"),
)
ENCODER_OPTION: Dict[str, Option] = {o.name: o for o in ENCODER_OPTIONS}

INPUTS = ("tokens", "features", "patches")       # index = input kind in the model blob
POSITIONS = ("none", "sinusoidal", "learned")    # index = positions code in the model blob
POOLINGS = ("none", "cls", "mean")               # index = pooling code in the model blob

# model_config's input and options (model_config.hpp), in ModelSpec's order. The input has no
# default (model_config's second template argument); its dimensions are 0 where they do not
# apply (input_traits in C++). Every other default is the option left out.
MODEL_OPTIONS = (
    Option("input", "choice", REQUIRED, INPUTS,
           doc="token_input<vocab>, feature_input<features> or patch_input<channels, height, width, patch>"),
    Option("vocab", "count", 0, doc="input 'tokens': token ids 0 .. vocab - 1"),
    Option("features", "count", 0, doc="input 'features': values per token (ModelSpec of patches: channels * patch^2)"),
    Option("image", "shape", (0, 0, 0), doc="input 'patches': (channels, height, width)"),
    Option("patch", "count", 0, doc="input 'patches': the side of a square patch"),
    Option("scale_embedding", "flag", False, doc="token embeddings times sqrt(d_model)"),
    Option("positions", "choice", "none", POSITIONS, doc="added by row index"),
    Option("cls_token", "flag", False, doc="a learned token before the input's (row 0)"),
    Option("embedding_norm", "flag", False, doc="a LayerNorm after the positions (BERT)"),
    Option("embedding_norm_eps", "eps", None, doc="its own epsilon (staticformer::embedding_norm_eps<M, E>); "
                                                  "None: the encoder's eps"),
    Option("pooling", "choice", "none", POOLINGS, doc="the output: every row, row 0 or the mean of the valid rows"),
    Option("pooled_norm", "flag", False, doc="a LayerNorm of the pooled row, before the head"),
    Option("pooled_norm_eps", "eps", None, doc="its own epsilon (staticformer::pooled_norm_eps<M, E>); "
                                               "None: the encoder's eps"),
    Option("classes", "count", 0, doc="a classifier head's logits (classifier_head<classes>); 0: no head"),
)
MODEL_OPTION: Dict[str, Option] = {o.name: o for o in MODEL_OPTIONS}


def default(name: str):
    """The default of an encoder or model option (REQUIRED for one without)."""
    return (ENCODER_OPTION.get(name) or MODEL_OPTION[name]).default


def option_problems(values: Mapping[str, object], options: Sequence[Option]) -> List[str]:
    """What is wrong with the options among values (missing required ones included)."""
    out = []
    for o in options:
        if o.name not in values:
            if o.required:
                out.append(f"{o.name} is required: use {o.allowed()}")
        else:
            problem = o.problem(values[o.name])
            if problem:
                out.append(problem)
    return out


def theta_code(theta: int) -> int:
    """The blob's 16 bits of a rotary theta M * 10^E (M < 4096, bits 0..11; E, bits 12..15), as
    config.hpp's detail::theta_code; 0 where theta has no such form."""
    e = 0
    while theta > 0 and theta % 10 == 0 and theta >= 4096:
        theta, e = theta // 10, e + 1
    return theta | e << 12 if 0 < theta < 4096 and e < 16 else 0


def attention_problems(values: Mapping[str, object]) -> List[str]:
    """What is wrong with values' rotary and kv_heads options for their dimensions, and with a final
    norm's epsilon (config.hpp's rules)."""
    out = []
    if values.get("final_norm_eps") is not None and not values.get("final_norm"):
        out.append("final_norm_eps needs final_norm")
    kv, h = values.get("kv_heads", 0), values.get("heads")
    if isinstance(kv, int) and kv > 0 and isinstance(h, int) and h > 0 and h % kv:
        out.append(f"kv_heads={kv} is not allowed: it must divide heads ({h})")
    if values.get("rotary", "none") == "none":
        return out
    theta = values.get("rotary_theta", default("rotary_theta"))
    if isinstance(theta, int) and (theta <= 1 or not theta_code(theta)):
        out.append(f"rotary_theta={theta!r} is not allowed: use an integer > 1 of the form M * 10^E with M < 4096")
    d, h = values.get("d_model"), values.get("heads")
    if isinstance(d, int) and isinstance(h, int) and h > 0 and d % h == 0 and (d // h) % 2:
        out.append(f"rotary positions turn pairs of dimensions: head_dim {d // h} (d_model / heads) must be even")
    return out


def model_problems(values: Mapping[str, object], seq_len: Optional[int] = None) -> List[str]:
    """What is wrong with a whole model's options (MODEL_OPTIONS' names; image as ClassifierConfig
    gives it): each option alone, then model_config.hpp's rules between them (its static_asserts)."""
    out = option_problems(values, MODEL_OPTIONS)
    if out:
        return out
    v = {o.name: values.get(o.name, o.default) for o in MODEL_OPTIONS}
    if v["input"] == "tokens" and v["vocab"] <= 0:
        out.append("input 'tokens' needs vocab > 0")
    if v["input"] == "features" and v["features"] <= 0:
        out.append("input 'features' needs features > 0")
    if v["input"] == "patches":
        channels, height, width = v["image"]
        if min(channels, height, width, v["patch"]) <= 0:
            out.append("input 'patches' needs image (channels, height, width) and patch > 0")
        elif height % v["patch"] or width % v["patch"]:
            out.append(f"input 'patches': height and width must be multiples of patch {v['patch']}")
        elif seq_len is not None and seq_len - int(v["cls_token"]) != (height // v["patch"]) * (width // v["patch"]):
            out.append("input 'patches': seq_len must be the number of patches (plus one with cls_token)")
    if v["scale_embedding"] and v["input"] != "tokens":
        out.append("scale_embedding applies to input 'tokens' only")
    if v["classes"] and v["pooling"] == "none":
        out.append("a classifier head (classes > 0) needs pooling 'cls' or 'mean'")
    if v["pooled_norm"] and v["pooling"] == "none":
        out.append("pooled_norm needs pooling 'cls' or 'mean'")
    for norm in ("embedding_norm", "pooled_norm"):
        if v[norm + "_eps"] is not None and not v[norm]:
            out.append(f"{norm}_eps needs {norm}")
    if seq_len is not None and seq_len - int(v["cls_token"]) <= 0:
        out.append("seq_len must leave room for one input token after the CLS token")
    return out


@dataclass(frozen=True)
class EncoderSpec:
    """Dimensions and options of a staticformer encoder_config (options: ENCODER_OPTIONS)."""
    d_model: int
    heads: int
    d_ff: int
    seq_len: int
    layers: int
    norm_first: bool = default("norm_first")
    activation: str = default("activation")  # one of ACTIVATIONS
    final_norm: bool = default("final_norm")
    eps: float = default("eps")
    final_norm_eps: Optional[float] = default("final_norm_eps")  # None: eps
    causal: bool = default("causal")  # row i attends to rows 0..i (staticformer::causal)
    no_bias: bool = default("no_bias")            # linear layers without biases
    no_norm_bias: bool = default("no_norm_bias")  # LayerNorms without beta
    rms_norm: bool = default("rms_norm")          # RMSNorm in place of LayerNorm (no beta)
    glu: bool = default("glu")                    # gated feed-forward (torch: the layer's linear3 is W3)
    rotary: str = default("rotary")               # one of ROTARY_LAYOUTS
    rotary_theta: int = default("rotary_theta")
    kv_heads: int = default("kv_heads")           # 0: as many as heads


def kv_dim(spec) -> int:
    """The outputs of the key (and of the value) projection: kv_heads * head_dim (kv_heads 0: heads)."""
    return (spec.kv_heads or spec.heads) * (spec.d_model // spec.heads)


@dataclass(frozen=True)
class Member:
    """One array of the weights. Matrices are stored w[in][out]: torch's Linear.weight transposed."""
    name: str       # C++ member name
    torch_key: str  # torch state_dict key; a layer's under "layers.<i>."
    role: str       # "matrix", "bias", "gamma" or "beta"
    shape: Callable[[int, int, int], Tuple[int, ...]]  # C++ shape from (d_model, d_ff, kv_dim)
    gate_key: Optional[str] = None  # glu: the torch key of the gate's half (W3), stored after this one's

    def shape_of(self, spec: "EncoderSpec") -> Tuple[int, ...]:
        """The C++ shape in spec's weights: glu stores W3 beside W1 (twice the outputs)."""
        shape = self.shape(spec.d_model, spec.d_ff, kv_dim(spec))
        return shape[:-1] + (2 * shape[-1],) if spec.glu and self.gate_key else shape

    def path(self, layer: Optional[int]) -> str:
        """C++ member path in encoder_weights; layer None: a member of the final norm."""
        return f"final_norm.{self.name}" if layer is None else f"layer[{layer}].{self.name}"

    def key(self, layer: Optional[int]) -> str:
        """torch state_dict key; layer None: a member of the final norm."""
        return self.torch_key if layer is None else f"layers.{layer}.{self.torch_key}"

    def present(self, spec: "EncoderSpec") -> bool:
        """Whether spec's weights hold this array: no_bias leaves out biases, no_norm_bias and
        rms_norm betas."""
        return not ((self.role == "bias" and spec.no_bias) or
                    (self.role == "beta" and (spec.no_norm_bias or spec.rms_norm)))


# The members of one encoder layer, in struct order.
LAYER_MEMBERS = (
    Member("qkv_w", "self_attn.in_proj_weight", "matrix", lambda d, f, k: (d, d + 2 * k)),
    Member("qkv_b", "self_attn.in_proj_bias", "bias", lambda d, f, k: (d + 2 * k,)),
    Member("out_w", "self_attn.out_proj.weight", "matrix", lambda d, f, k: (d, d)),
    Member("out_b", "self_attn.out_proj.bias", "bias", lambda d, f, k: (d,)),
    Member("ff1_w", "linear1.weight", "matrix", lambda d, f, k: (d, f), "linear3.weight"),
    Member("ff1_b", "linear1.bias", "bias", lambda d, f, k: (f,), "linear3.bias"),
    Member("ff2_w", "linear2.weight", "matrix", lambda d, f, k: (f, d)),
    Member("ff2_b", "linear2.bias", "bias", lambda d, f, k: (d,)),
    Member("norm1_gamma", "norm1.weight", "gamma", lambda d, f, k: (d,)),
    Member("norm1_beta", "norm1.bias", "beta", lambda d, f, k: (d,)),
    Member("norm2_gamma", "norm2.weight", "gamma", lambda d, f, k: (d,)),
    Member("norm2_beta", "norm2.bias", "beta", lambda d, f, k: (d,)),
)
LAYER_MEMBER = {m.name: m for m in LAYER_MEMBERS}
# The final LayerNorm after the last layer (configurations with final_norm), after the layers.
FINAL_NORM_MEMBERS = (
    Member("gamma", "norm.weight", "gamma", lambda d, f, k: (d,)),
    Member("beta", "norm.bias", "beta", lambda d, f, k: (d,)),
)


def weight_members(layers: int, final_norm: bool, spec: Optional["EncoderSpec"] = None
                   ) -> Iterator[Tuple[Optional[int], Member]]:
    """(layer index, or None for the final norm; member) of every array of encoder_weights, in
    struct order; with spec, only the arrays it holds (Member.present)."""
    for i in range(layers):
        for m in LAYER_MEMBERS:
            if spec is None or m.present(spec):
                yield i, m
    if final_norm:
        for m in FINAL_NORM_MEMBERS:
            if spec is None or m.present(spec):
                yield None, m


def option_tags(spec: EncoderSpec) -> List[str]:
    """The encoder_config option tags of spec's flags, defaults left out. The epsilon's tag is not
    among them: finding layer_norm_eps<M, E> needs float32 rounding (export_pytorch.eps_option)."""
    tags = []
    if spec.norm_first:
        tags.append("staticformer::pre_norm")
    if spec.activation != default("activation"):
        tags.append(f"staticformer::{spec.activation}")
    if spec.final_norm:
        tags.append("staticformer::final_norm")
    if spec.causal:
        tags.append("staticformer::causal")
    if spec.no_bias:
        tags.append("staticformer::no_bias")
    if spec.no_norm_bias:
        tags.append("staticformer::no_norm_bias")
    if spec.rms_norm:
        tags.append("staticformer::rms_norm")
    if spec.glu:
        tags.append("staticformer::glu")
    if spec.rotary != "none":
        kind = "rotary" if spec.rotary == "halves" else "rotary_interleaved"
        tags.append(f"staticformer::{kind}<{spec.rotary_theta}>")
    if spec.kv_heads and spec.kv_heads != spec.heads:
        tags.append(f"staticformer::kv_heads<{spec.kv_heads}>")
    return tags


def config_type(spec: EncoderSpec, eps_tags: Sequence[str] = ()) -> str:
    """e.g. 'staticformer::encoder_config<64, 4, 256, 32, 2, staticformer::pre_norm>'; eps_tags:
    the layer_norm_eps tag, if spec's epsilon is not the default."""
    args = [str(v) for v in (spec.d_model, spec.heads, spec.d_ff, spec.seq_len, spec.layers)]
    return f"staticformer::encoder_config<{', '.join(args + option_tags(spec) + list(eps_tags))}>"


def _reference(d_model: int, heads: int, d_ff: int, seq_len: int, layers: int) -> EncoderSpec:
    return EncoderSpec(d_model, heads, d_ff, seq_len, layers, norm_first=True, activation="gelu",
                       final_norm=True)


# The reference configurations of the benchmarks, the footprint and the demo
# (tests/common/reference_configs.hpp lists them for C++, and a test checks the two agree):
# pre-norm, GELU, final LayerNorm, the default epsilon.
REFERENCE_CONFIGS: Dict[str, EncoderSpec] = {
    "tiny": _reference(64, 4, 256, 32, 2),
    "small": _reference(128, 4, 512, 64, 4),
    "mini": _reference(256, 4, 1024, 128, 4),
    "wide": _reference(384, 12, 1536, 128, 6),
}
