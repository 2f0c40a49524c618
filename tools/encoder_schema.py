"""The encoder's weight layout and reference configurations, written once for every Python tool.

export_pytorch.py, footprint.py, make_goldens.py and make_demo_model.py read these; they must
match staticformer::layer_weights / encoder_weights in C++. Standard library only (footprint.py
runs without numpy).
"""

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

ACTIVATIONS = ("relu", "gelu", "gelu_tanh")  # index = activation code in the blob
DEFAULT_EPS = 1e-5


@dataclass(frozen=True)
class EncoderSpec:
    """Dimensions and options of a staticformer encoder_config."""
    d_model: int
    heads: int
    d_ff: int
    seq_len: int
    layers: int
    norm_first: bool = False
    activation: str = "relu"  # one of ACTIVATIONS
    final_norm: bool = False
    eps: float = DEFAULT_EPS
    causal: bool = False  # row i attends to rows 0..i (staticformer::causal)


@dataclass(frozen=True)
class Member:
    """One array of the weights. Matrices are stored w[in][out]: torch's Linear.weight transposed."""
    name: str       # C++ member name
    torch_key: str  # torch state_dict key; a layer's under "layers.<i>."
    role: str       # "matrix", "bias", "gamma" or "beta"
    shape: Callable[[int, int], Tuple[int, ...]]  # C++ shape from (d_model, d_ff)

    def path(self, layer: Optional[int]) -> str:
        """C++ member path in encoder_weights; layer None: a member of the final norm."""
        return f"final_norm.{self.name}" if layer is None else f"layer[{layer}].{self.name}"

    def key(self, layer: Optional[int]) -> str:
        """torch state_dict key; layer None: a member of the final norm."""
        return self.torch_key if layer is None else f"layers.{layer}.{self.torch_key}"


# The members of one encoder layer, in struct order.
LAYER_MEMBERS = (
    Member("qkv_w", "self_attn.in_proj_weight", "matrix", lambda d, f: (d, 3 * d)),
    Member("qkv_b", "self_attn.in_proj_bias", "bias", lambda d, f: (3 * d,)),
    Member("out_w", "self_attn.out_proj.weight", "matrix", lambda d, f: (d, d)),
    Member("out_b", "self_attn.out_proj.bias", "bias", lambda d, f: (d,)),
    Member("ff1_w", "linear1.weight", "matrix", lambda d, f: (d, f)),
    Member("ff1_b", "linear1.bias", "bias", lambda d, f: (f,)),
    Member("ff2_w", "linear2.weight", "matrix", lambda d, f: (f, d)),
    Member("ff2_b", "linear2.bias", "bias", lambda d, f: (d,)),
    Member("norm1_gamma", "norm1.weight", "gamma", lambda d, f: (d,)),
    Member("norm1_beta", "norm1.bias", "beta", lambda d, f: (d,)),
    Member("norm2_gamma", "norm2.weight", "gamma", lambda d, f: (d,)),
    Member("norm2_beta", "norm2.bias", "beta", lambda d, f: (d,)),
)
LAYER_MEMBER = {m.name: m for m in LAYER_MEMBERS}
# The final LayerNorm after the last layer (configurations with final_norm), after the layers.
FINAL_NORM_MEMBERS = (
    Member("gamma", "norm.weight", "gamma", lambda d, f: (d,)),
    Member("beta", "norm.bias", "beta", lambda d, f: (d,)),
)


def weight_members(layers: int, final_norm: bool) -> Iterator[Tuple[Optional[int], Member]]:
    """(layer index, or None for the final norm; member) of every array of encoder_weights, in
    struct order."""
    for i in range(layers):
        for m in LAYER_MEMBERS:
            yield i, m
    if final_norm:
        for m in FINAL_NORM_MEMBERS:
            yield None, m


def option_tags(spec: EncoderSpec) -> List[str]:
    """The encoder_config option tags of spec's flags, defaults left out. The epsilon's tag is not
    among them: finding layer_norm_eps<M, E> needs float32 rounding (export_pytorch.eps_option)."""
    tags = []
    if spec.norm_first:
        tags.append("staticformer::pre_norm")
    if spec.activation != "relu":
        tags.append(f"staticformer::{spec.activation}")
    if spec.final_norm:
        tags.append("staticformer::final_norm")
    if spec.causal:
        tags.append("staticformer::causal")
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
