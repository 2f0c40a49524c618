"""TransformerClassifier: a PyTorch model staticformer runs as it is, to train and export without glue.

    from staticformer_export import TransformerClassifier
    model = TransformerClassifier(d_model=32, heads=4, d_ff=64, layers=2, seq_len=17,
                                  input="tokens", vocab=17, positions="sinusoidal",
                                  pooling="mean", classes=10)
    ... train it (model(x) gives logits; model(x, valid_len) for sequences shorter than seq_len;
        model(x, key_padding_mask=input_ids == pad_id) for padding anywhere; dropout=0.1 among
        the options drops out as torch's TransformerEncoderLayer does, in training only) ...
    torch.save(model, "model.pt")            # or torch.save(model.state_dict(), "model_sd.pt")
    python3 tools/export_pytorch.py --module model.pt --name digits --header digits.hpp

The state_dict carries the configuration too (get_extra_state), so either file exports alone.
What it computes is staticformer's model_config (include/staticformer/model_config.hpp):

    rows = [CLS] + front(x)        input "tokens" (nn.Embedding, optionally * sqrt(d_model)),
                                   "features" (nn.Linear) or "patches" (nn.Conv2d, kernel = stride)
    rows = rows + positions[row]   "sinusoidal" (the table below), "learned" (a parameter) or "none"
    rows = LayerNorm(rows)         embedding_norm=True (its eps: embedding_norm_eps, default eps)
    rows = nn.TransformerEncoder(rows)   causal=True adds generate_square_subsequent_mask;
                                   key_padding_mask hides tokens' keys (src_key_padding_mask);
                                   rms_norm=True: RMSNorm (below) for the encoder's LayerNorms;
                                   rotary="halves" / "interleaved": Rotary (below) turns the
                                   queries and keys of every layer (theta: rotary_theta);
                                   kv_heads: GroupedAttention (below), grouped-query attention
    out  = rows | rows[0] | mean(kept rows)    pooling "none", "cls" or "mean" (kept: valid, not
                                   masked; a causal row with no key to attend gets a zero context
                                   in staticformer, NaN in torch: it is a masked row)
    out  = LayerNorm(out)          pooled_norm=True: the pooled row alone (its eps: pooled_norm_eps)
    out  = Linear(out)             classes > 0

The options, their allowed values and defaults are encoder_schema.py's (MODEL_OPTIONS,
ENCODER_OPTIONS), the C++ ones: an option left out is off ("none", False, 0), as in
model_config; input has no default. A bad value raises ValueError naming the allowed values.

The sinusoidal table is computed in float64 and rounded once to float32, as staticformer's
compile-time table is: PE(pos, 2i) = sin(pos / 10000^(2i / d)), PE(pos, 2i + 1) = cos(...).
Needs torch (1.13 or later).
"""

import functools
import json
import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Optional

import torch
from torch import nn

from .encoder_schema import (ACTIVATIONS, ENCODER_OPTIONS, INPUTS, MODEL_OPTIONS, POOLINGS, POSITIONS,  # noqa: F401
                            default, model_problems, option_problems, attention_problems)

# The options, their allowed values and defaults are encoder_schema's (ENCODER_OPTIONS,
# MODEL_OPTIONS): those of staticformer's model_config and encoder_config.
TORCH_ACTIVATIONS = {"relu": "relu", "gelu": "gelu",
                     "gelu_tanh": functools.partial(nn.functional.gelu, approximate="tanh"),
                     "silu": nn.functional.silu}
assert tuple(TORCH_ACTIVATIONS) == ACTIVATIONS
DIMENSIONS = ("d_model", "heads", "d_ff", "layers", "seq_len")  # required, positive


@dataclass(frozen=True)
class ClassifierConfig:
    """A TransformerClassifier's configuration: the encoder's dimensions, then MODEL_OPTIONS and
    ENCODER_OPTIONS (encoder_schema) with their defaults. Checked when made: a bad value raises
    ValueError naming the allowed ones."""
    d_model: int
    heads: int
    d_ff: int
    layers: int
    seq_len: int               # encoder rows, the CLS token included
    input: str                 # one of INPUTS (no default, as in C++)
    vocab: int = default("vocab")            # tokens
    features: int = default("features")      # features
    image: tuple = default("image")          # patches: (channels, height, width)
    patch: int = default("patch")            # patches
    scale_embedding: bool = default("scale_embedding")
    positions: str = default("positions")    # one of POSITIONS
    cls_token: bool = default("cls_token")
    embedding_norm: bool = default("embedding_norm")
    embedding_norm_eps: Optional[float] = default("embedding_norm_eps")  # None: eps
    pooling: str = default("pooling")        # one of POOLINGS
    pooled_norm: bool = default("pooled_norm")  # a LayerNorm of the pooled row (mean pooling: of the mean)
    pooled_norm_eps: Optional[float] = default("pooled_norm_eps")        # None: eps
    classes: int = default("classes")
    norm_first: bool = default("norm_first")
    activation: str = default("activation")  # one of ACTIVATIONS
    final_norm: bool = default("final_norm")
    eps: float = default("eps")
    final_norm_eps: Optional[float] = default("final_norm_eps")  # None: eps
    causal: bool = default("causal")
    no_bias: bool = default("no_bias")            # linear layers of the encoder without biases
    no_norm_bias: bool = default("no_norm_bias")  # the encoder's LayerNorms without beta
    rms_norm: bool = default("rms_norm")          # RMSNorm in place of the encoder's LayerNorms
    glu: bool = default("glu")                    # gated feed-forward: linear2(act(linear1 x) * linear3 x)
    rotary: str = default("rotary")               # rotary positions on queries and keys: "halves", "interleaved"
    rotary_theta: int = default("rotary_theta")   # their base theta
    kv_heads: int = default("kv_heads")           # grouped-query attention's key heads (0: heads)
    # Training only, as torch's TransformerEncoderLayer applies it (attention weights, both sublayer
    # outputs, the feed-forward's hidden layer); eval runs and the export leave it out.
    dropout: float = 0.0

    def __post_init__(self):
        if isinstance(self.image, list):
            object.__setattr__(self, "image", tuple(self.image))
        values = asdict(self)
        problems = [f"{n}={values[n]!r} is not allowed: use a positive integer" for n in DIMENSIONS
                    if isinstance(values[n], bool) or not isinstance(values[n], int) or values[n] <= 0]
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)) or not 0 <= self.dropout < 1:
            problems.append(f"dropout={self.dropout!r} is not allowed: use a probability 0 <= p < 1")
        if not problems and self.d_model % self.heads:
            problems.append(f"d_model {self.d_model} is not divisible by heads {self.heads}")
        problems += option_problems(values, ENCODER_OPTIONS)
        problems += attention_problems(values)
        problems += model_problems(values, self.seq_len if not problems else None)
        if problems:
            raise ValueError("TransformerClassifier: " + "; ".join(problems))


def classifier_config(**options) -> ClassifierConfig:
    """ClassifierConfig(**options), with a message naming the known options for an unknown one
    and the allowed values for a missing one."""
    names = [f.name for f in fields(ClassifierConfig)]
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise TypeError(f"TransformerClassifier: unknown option {', '.join(unknown)}; the options are "
                        f"{', '.join(names)}")
    missing = [f"{n} is required: use a positive integer" for n in DIMENSIONS if n not in options]
    missing += [f"{o.name} is required: use {o.allowed()}" for o in MODEL_OPTIONS if o.required and o.name not in options]
    if missing:
        raise TypeError("TransformerClassifier: " + "; ".join(missing))
    return ClassifierConfig(**options)


def config_json(c: ClassifierConfig) -> str:
    return json.dumps(asdict(c), sort_keys=True)


def config_from_json(text: str) -> ClassifierConfig:
    options = json.loads(text)
    if not isinstance(options, dict):
        raise ValueError(f"not a configuration: {text!r}")
    return classifier_config(**options)


def sinusoid_table(rows: int, d_model: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i / d)), PE(pos, 2i + 1) = cos(...), float64 -> float32."""
    pos = torch.arange(rows, dtype=torch.float64).unsqueeze(1)
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos * torch.exp(-(i / d_model) * math.log(10000.0))
    table = torch.zeros(rows, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.to(torch.float32)


class RMSNorm(nn.Module):
    """torch's nn.RMSNorm (torch 2.4) in plain ops: x / sqrt(mean(x^2) + eps) * weight."""

    def __init__(self, d: int, eps: float):
        super().__init__()
        self.normalized_shape = (d,)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))
        self.register_parameter("bias", None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


class Rotary(nn.Module):
    """Rotary positions of queries or keys [..., rows, head_dim]: pair (a, b) of row pos turned by
    pos * theta^(-2i / head_dim), a' = a cos - b sin, b' = b cos + a sin. Pairs (i, i + head_dim/2)
    for layout "halves" (GPT-NeoX, Llama), (2i, 2i + 1) for "interleaved" (GPT-J). The angles
    in float64, cos and sin rounded once to float32, as staticformer's compile-time tables are."""

    def __init__(self, head_dim: int, layout: str, theta: int):
        super().__init__()
        self.head_dim, self.layout, self.theta = head_dim, layout, theta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pairs = self.head_dim // 2
        w = float(self.theta) ** (-torch.arange(pairs, dtype=torch.float64) / pairs)
        angle = torch.arange(x.shape[-2], dtype=torch.float64).unsqueeze(1) * w
        cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
        a, b = (x[..., :pairs], x[..., pairs:]) if self.layout == "halves" else (x[..., 0::2], x[..., 1::2])
        turned = (a * cos - b * sin, b * cos + a * sin)
        return torch.cat(turned, dim=-1) if self.layout == "halves" else torch.stack(turned, dim=-1).flatten(-2)


def attention(attn, x: torch.Tensor, rotary=None, attn_mask=None, key_padding_mask=None) -> torch.Tensor:
    """Self-attention on x [batch, rows, d_model] with attn's in_proj_weight / in_proj_bias (the
    query's rows, then the key's and the value's, kv_heads * head_dim each) and out_proj, written
    out as nn.MultiheadAttention's math path: rotary (a Rotary, or None) turns the queries and keys,
    and each key and value head serves num_heads / kv_heads query heads."""
    b, n, d = x.shape
    h = attn.num_heads
    kv = getattr(attn, "kv_heads", h)
    dh = d // h
    q, k, v = nn.functional.linear(x, attn.in_proj_weight, attn.in_proj_bias).split([d, kv * dh, kv * dh], dim=-1)
    q = q.reshape(b, n, h, dh).transpose(1, 2)
    k, v = (t.reshape(b, n, kv, dh).transpose(1, 2).repeat_interleave(h // kv, dim=1) for t in (k, v))
    if rotary is not None:
        q, k = rotary(q), rotary(k)
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    if attn_mask is not None:
        scores = scores.masked_fill(attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    if key_padding_mask is not None:
        scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    weights = nn.functional.dropout(scores.softmax(dim=-1), attn.dropout, attn.training)
    context = weights @ v
    return attn.out_proj(context.transpose(1, 2).reshape(b, n, d))


class GroupedAttention(nn.Module):
    """Grouped-query self-attention (kv_heads key and value heads, each shared by heads / kv_heads
    query heads; kv_heads 1: multi-query), laid out as nn.MultiheadAttention is: in_proj_weight
    [d_model + 2 kv_heads head_dim, d_model] (query, key, value rows), in_proj_bias, out_proj.
    Called as a MultiheadAttention (batch_first), it returns (output, None)."""

    def __init__(self, d_model: int, heads: int, kv_heads: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        self.embed_dim, self.num_heads, self.kv_heads = d_model, heads, kv_heads
        self.batch_first, self._qkv_same_embed_dim = True, True
        self.bias_k = self.bias_v = None
        self.add_zero_attn, self.dropout = False, dropout
        rows = d_model + 2 * kv_heads * (d_model // heads)
        self.in_proj_weight = nn.Parameter(torch.empty(rows, d_model))
        nn.init.xavier_uniform_(self.in_proj_weight)
        self.in_proj_bias = nn.Parameter(torch.zeros(rows)) if bias else None
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, attn_mask=None, key_padding_mask=None, need_weights=False,
                **_):
        return attention(self, query, None, attn_mask, key_padding_mask), None


def self_attention(layer: nn.TransformerEncoderLayer, x: torch.Tensor, attn_mask=None,
                   key_padding_mask=None) -> torch.Tensor:
    """The layer's self-attention on x [batch, rows, d_model] (batch_first), as its self_attn
    computes it; a layer with a `rotary` (encoder_layer's rotary) turns the queries and keys first."""
    rotary = getattr(layer, "rotary", None)
    if rotary is None:
        def attend():
            return layer.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                   need_weights=False)[0]
        if layer.self_attn.in_proj_bias is None and not torch.is_grad_enabled():
            with torch.enable_grad():  # torch 1.13's fast path (eval, no_grad) fails on bias=False: the math path
                return attend().detach()
        return attend()
    return attention(layer.self_attn, x, rotary, attn_mask, key_padding_mask)


def run_encoder(encoder: nn.TransformerEncoder, x: torch.Tensor, attn_mask=None, key_padding_mask=None,
                attend=None) -> torch.Tensor:
    """nn.TransformerEncoder's math path, layer by layer, as its forward() computes it (dropout1 and
    dropout2 are identities in eval), and with what it does not know: RMSNorm (its fast-path checks
    read the LayerNorms' biases), glu, rotary positions and grouped-query attention. x: [batch,
    rows, d_model]. attend(layer, x), if given, replaces the layer's self-attention."""
    if attend is None:
        def attend(layer, x):
            return self_attention(layer, x, attn_mask, key_padding_mask)
    for layer in encoder.layers:
        if layer.norm_first:
            x = x + layer.dropout1(attend(layer, layer.norm1(x)))
            x = x + layer.dropout2(feed_forward(layer, layer.norm2(x)))
        else:
            x = layer.norm1(x + layer.dropout1(attend(layer, x)))
            x = layer.norm2(x + layer.dropout2(feed_forward(layer, x)))
    return x if encoder.norm is None else encoder.norm(x)


def norm_of(c, eps: Optional[float] = None) -> nn.Module:
    """An encoder norm of c's options: RMSNorm (rms_norm), or a LayerNorm, without bias for
    no_norm_bias; its epsilon eps (None: c.eps)."""
    eps = c.eps if eps is None else eps
    if c.rms_norm:
        return RMSNorm(c.d_model, eps)
    norm = nn.LayerNorm(c.d_model, eps=eps)
    if c.no_norm_bias:
        norm.register_parameter("bias", None)
    return norm


def encoder_layer(c) -> nn.TransformerEncoderLayer:
    """One nn.TransformerEncoderLayer of c's options (a ClassifierConfig or an EncoderSpec):
    no_bias rebuilds its attention and feed-forward linear layers with bias=False, no_norm_bias
    drops its LayerNorms' bias (torch 2.1's bias=False does both at once), rms_norm makes them
    RMSNorms, glu adds linear3 (W3, see feed_forward), rotary a Rotary (see self_attention), kv_heads
    makes self_attn a GroupedAttention. (Run it
    by its parts, as TransformerClassifier.encode does: torch's fast path takes LayerNorms only.)"""
    d, p = c.d_model, getattr(c, "dropout", 0.0)
    layer = nn.TransformerEncoderLayer(d, c.heads, c.d_ff, dropout=p, activation=TORCH_ACTIVATIONS[c.activation],
                                       layer_norm_eps=c.eps, batch_first=True, norm_first=c.norm_first)
    if c.no_bias:
        layer.self_attn = nn.MultiheadAttention(d, c.heads, dropout=p, bias=False, batch_first=True)
        layer.linear1 = nn.Linear(d, c.d_ff, bias=False)
        layer.linear2 = nn.Linear(c.d_ff, d, bias=False)
    if c.kv_heads and c.kv_heads != c.heads:
        layer.self_attn = GroupedAttention(d, c.heads, c.kv_heads, bias=not c.no_bias, dropout=p)
    if c.no_norm_bias or c.rms_norm:
        layer.norm1, layer.norm2 = norm_of(c), norm_of(c)
    if c.glu:
        layer.linear3 = nn.Linear(d, c.d_ff, bias=not c.no_bias)
    if c.rotary != "none":
        layer.rotary = Rotary(d // c.heads, c.rotary, c.rotary_theta)
    return layer


def feed_forward(layer: nn.TransformerEncoderLayer, x: torch.Tensor) -> torch.Tensor:
    """The layer's feed-forward: linear2(act(linear1 x)), or gated (glu, a linear3):
    linear2(act(linear1 x) * linear3 x); its dropout on the hidden layer when training."""
    h = layer.activation(layer.linear1(x))
    if getattr(layer, "linear3", None) is not None:
        h = h * layer.linear3(x)
    return layer.linear2(layer.dropout(h))


class TransformerClassifier(nn.Module):
    """See the module's docstring; keyword arguments are ClassifierConfig's fields."""

    def __init__(self, **kwargs):
        super().__init__()
        c = classifier_config(**kwargs)  # checked: see ClassifierConfig
        self.config = c
        d = c.d_model
        if c.input == "tokens":
            self.embedding = nn.Embedding(c.vocab, d)
        elif c.input == "features":
            self.projection = nn.Linear(c.features, d)
        else:
            self.projection = nn.Conv2d(c.image[0], d, kernel_size=c.patch, stride=c.patch)
        if c.cls_token:
            self.cls = nn.Parameter(torch.zeros(1, 1, d))
        if c.positions == "learned":
            self.positions = nn.Parameter(torch.zeros(1, c.seq_len, d))
        elif c.positions == "sinusoidal":
            self.register_buffer("sinusoids", sinusoid_table(c.seq_len, d), persistent=False)
        if c.embedding_norm:
            self.embedding_norm = nn.LayerNorm(d, eps=c.eps if c.embedding_norm_eps is None else c.embedding_norm_eps)
        layer = encoder_layer(c)
        final = norm_of(c, c.final_norm_eps) if c.final_norm else None
        self.encoder = nn.TransformerEncoder(layer, c.layers, norm=final, enable_nested_tensor=False)
        if c.pooled_norm:
            self.pooled_norm = nn.LayerNorm(d, eps=c.eps if c.pooled_norm_eps is None else c.pooled_norm_eps)
        if c.classes:
            self.head = nn.Linear(d, c.classes)

    # The configuration travels with the state_dict, as JSON text (torch.load(weights_only=True)
    # reads strings, not floats).
    def get_extra_state(self):
        return config_json(self.config)

    def set_extra_state(self, state):  # dropout, a training setting, may differ
        if replace(config_from_json(state), dropout=self.config.dropout) != self.config:
            raise ValueError(f"state_dict of another configuration: {state}")

    def encode(self, h: torch.Tensor, kept: Optional[torch.Tensor]) -> torch.Tensor:
        """self.encoder's layers on rows h whose keys `kept` says (None: all), written out as
        nn.TransformerEncoderLayer computes them, with one rule of staticformer's: a row with no
        key to attend (causal, before the first kept key) gets a zero context, where torch's
        softmax over no key gives NaN, which the next layer's values spread to every row."""
        n = h.shape[1]
        causal = self.config.causal
        mask = nn.Transformer.generate_square_subsequent_mask(n).to(h.device) if causal else None
        padding = None if kept is None else ~kept
        no_keys = None
        if causal and kept is not None:  # row i attends the kept keys of rows 0..i
            no_keys = (kept.cumsum(dim=1) == 0).unsqueeze(2)

        def attend(layer, x):
            a = self_attention(layer, x, mask, padding)
            if no_keys is None:
                return a
            return torch.where(no_keys, layer.self_attn.out_proj(torch.zeros_like(a[:, :1])), a)
        return run_encoder(self.encoder, h, attend=attend)

    def forward(self, x: torch.Tensor, valid_len: Optional[torch.Tensor] = None,
                key_padding_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """x: token ids [batch, tokens], features [batch, tokens, features] or images
        [batch, channels, height, width]; valid_len: real tokens per sequence (the rest padding);
        key_padding_mask: bool [batch, tokens], True where a token is padding (anywhere), as
        src_key_padding_mask: its key gets no attention and mean pooling leaves its row out."""
        c = self.config
        if c.input == "tokens":
            h = self.embedding(x)
            if c.scale_embedding:
                h = h * math.sqrt(c.d_model)
        elif c.input == "features":
            h = self.projection(x)
        else:
            h = self.projection(x).flatten(2).transpose(1, 2)
        if c.cls_token:
            h = torch.cat([self.cls.expand(h.shape[0], -1, -1), h], dim=1)
        n = h.shape[1]
        if c.positions == "learned":
            h = h + self.positions[:, :n]
        elif c.positions == "sinusoidal":
            h = h + self.sinusoids[:n]
        if c.embedding_norm:
            h = self.embedding_norm(h)
        rows = torch.arange(n, device=h.device).unsqueeze(0)
        valid = None if valid_len is None else rows < (valid_len.to(h.device) + int(c.cls_token)).unsqueeze(1)
        kept = valid
        if key_padding_mask is not None:  # the CLS row's key is always kept
            hidden = key_padding_mask.to(device=h.device, dtype=torch.bool)
            if c.cls_token:
                hidden = torch.cat([torch.zeros_like(hidden[:, :1]), hidden], dim=1)
            kept = ~hidden if kept is None else kept & ~hidden
        h = self.encode(h, kept)
        if valid is not None:  # padded rows: exactly zero (masked_fill, not a product: they may be NaN)
            h = h.masked_fill(~valid.unsqueeze(2), 0.0)
        if c.pooling == "none":
            return h
        if c.pooling == "cls":
            h = h[:, 0]
        elif kept is None:
            h = h.mean(dim=1)
        else:
            h = h.masked_fill(~kept.unsqueeze(2), 0.0).sum(dim=1) / kept.sum(dim=1, keepdim=True)
        if c.pooled_norm:
            h = self.pooled_norm(h)
        return self.head(h) if c.classes else h
