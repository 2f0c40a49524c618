"""A user's own nn.Module, read from its operations rather than its names: torch.fx traces its
forward (the encoder and its layers kept whole) and the graph must be, in order,

    front       nn.Embedding (times a constant: scale_embedding), nn.Linear (features), or
                nn.Conv2d then .flatten(2).transpose(1, 2) (patches)
    CLS         torch.cat([P.expand(...), rows], dim=1), P a [1, 1, d] parameter
    positions   rows + Q (or Q[:, :n]), Q a parameter (learned) or the sinusoid table (a buffer)
    norm        an nn.LayerNorm (embedding norm)
    encoder     an nn.TransformerEncoder, or nn.TransformerEncoderLayer modules one after another
    norm        an nn.LayerNorm on every row (final norm)
    pooling     rows[:, 0] (cls pooling) or rows.mean(dim=1) (mean pooling)
    norm        an nn.LayerNorm on the pooled row (pooled_norm)
    head        an nn.Linear

each part optional but the front and the encoder; nn.Dropout anywhere (an identity in eval).
What else the forward does is refused with the operation's name. The parts become a
TransformerClassifier-shaped (spec, state keys) pair for model_export."""

import operator
from dataclasses import dataclass, field
from typing import List, Optional

import torch.fx as fx
from torch import nn


class ImportError_(Exception):
    """The module computes something the library does not run; the message says what."""


class _Tracer(fx.Tracer):
    proxy_buffer_attributes = True  # a position buffer sliced by the input's length stays in the graph

    def is_leaf_module(self, m: nn.Module, name: str) -> bool:
        return isinstance(m, (nn.TransformerEncoder, nn.TransformerEncoderLayer)) or super().is_leaf_module(m, name)


@dataclass
class Parts:
    """What the trace found: module and parameter names in the user's module."""
    input: str = ""                 # "tokens", "features", "patches"
    front: str = ""                 # the Embedding / Linear / Conv2d
    scale_embedding: bool = False
    scale: float = 1.0              # the embedding's factor (scale_embedding: sqrt(d_model))
    cls: str = ""                   # the CLS parameter
    positions: str = ""             # "learned" or "sinusoidal"
    positions_key: str = ""
    embedding_norm: str = ""
    layers: List[str] = field(default_factory=list)  # TransformerEncoderLayer names, in order
    encoder: str = ""               # the TransformerEncoder, if one
    final_norm: str = ""
    pooling: str = "none"
    pooled_norm: str = ""
    head: str = ""


def _describe(n: fx.Node) -> str:
    target = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", str(n.target))
    return f"{n.op} {target} (node {n.name})"


def _refuse(n: fx.Node, what: str) -> None:
    raise ImportError_(f"the forward's {_describe(n)} is not {what}. The library runs: a token, feature or "
                       "patch front, CLS, positions, LayerNorms, the encoder, cls or mean pooling and a Linear "
                       "head, in that order (module_import.py); rewrite the forward that way, or export "
                       "the encoder alone")


def trace(module: nn.Module) -> fx.Graph:
    try:
        return _Tracer().trace(module)
    except Exception as e:  # data-dependent control flow, unsupported Python
        raise ImportError_(f"torch.fx cannot trace {type(module).__name__}.forward: {e}. Name its parts instead: "
                           "--parts front=NAME,encoder=NAME,pooling=cls|mean|none and, if it has them, cls=, "
                           "positions=, embedding_norm=, final_norm=, pooled_norm=, head=, scale_embedding=true") from None


def _is_attr(n) -> Optional[str]:
    """The parameter or buffer a node reads (get_attr, or a slice of one), else None."""
    if isinstance(n, fx.Node) and n.op == "call_function" and n.target is operator.getitem:
        n = n.args[0]
    return n.target if isinstance(n, fx.Node) and n.op == "get_attr" else None


def _helper(n: fx.Node, x: fx.Node) -> bool:
    """Nodes that compute shapes or read parameters: x.shape, x.size(...), shape[i], get_attr."""
    if n.op == "get_attr":
        return True
    if n.op == "call_function" and getattr(n.target, "__name__", "") == "getattr" and n.args[1] == "shape":
        return True
    if n.op == "call_method" and n.target == "size":
        return True
    if n.op == "call_function" and getattr(n.target, "__name__", "") == "getitem":
        base = n.args[0]
        return isinstance(base, fx.Node) and (base.op == "get_attr" or _helper(base, x)) and base is not x
    return n.op == "call_method" and n.target == "expand" and isinstance(n.args[0], fx.Node) and \
        n.args[0].op == "get_attr"


class _Walk:
    """The recognition, node by node; `rows` is the node that carries the model's rows."""

    def __init__(self, gm: fx.GraphModule):
        self.gm, self.p, self.rows, self.x = gm, Parts(), None, None
        self.stage = "front"  # front, embedded, encoded, pooled, head

    def module(self, n: fx.Node) -> None:
        m = self.gm.get_submodule(n.target)
        if isinstance(m, nn.Dropout):
            self.rows = n
        elif self.stage == "front" and isinstance(m, (nn.Embedding, nn.Linear, nn.Conv2d)):
            self.p.input = {nn.Embedding: "tokens", nn.Linear: "features", nn.Conv2d: "patches"}[type(m)]
            self.p.front, self.rows, self.stage = n.target, n, "embedded"
        elif isinstance(m, nn.LayerNorm) and self.stage in ("embedded", "encoded", "pooled"):
            self.norm(n)
        elif isinstance(m, (nn.TransformerEncoder, nn.TransformerEncoderLayer)) and self.stage in ("embedded",
                                                                                                    "encoded"):
            if isinstance(m, nn.TransformerEncoder):
                if self.p.encoder or self.p.layers:
                    _refuse(n, "a second encoder")
                self.p.encoder = n.target
            else:
                if self.p.encoder or self.p.final_norm:
                    _refuse(n, "a layer after the encoder")
                self.p.layers.append(n.target)
            self.rows, self.stage = n, "encoded"
        elif isinstance(m, nn.Linear) and self.stage in ("pooled",) and not self.p.head:
            self.p.head, self.rows, self.stage = n.target, n, "head"
        else:
            _refuse(n, f"a part the library has here ({type(m).__name__} after the {self.stage} rows)")

    def norm(self, n: fx.Node) -> None:
        if self.stage == "embedded":
            if self.p.embedding_norm:
                _refuse(n, "a second embedding norm")
            self.p.embedding_norm = n.target
        elif self.stage == "encoded":
            if self.p.final_norm or (self.p.encoder and self.gm.get_submodule(self.p.encoder).norm is not None):
                _refuse(n, "a second final norm")
            self.p.final_norm = n.target
        else:
            if self.p.pooled_norm:
                _refuse(n, "a second norm of the pooled row")
            self.p.pooled_norm = n.target
        self.rows = n

    def function(self, n: fx.Node) -> None:
        name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
        args = list(n.args)
        if name == "cat" and self.stage == "embedded" and not self.p.positions and not self.p.cls:
            parts, dim = args[0], args[1] if len(args) > 1 else n.kwargs.get("dim", 0)
            if len(parts) == 2 and parts[1] is self.rows and dim == 1 and parts[0].op == "call_method" and \
                    parts[0].target == "expand" and _is_attr(parts[0].args[0]):
                self.p.cls, self.rows = _is_attr(parts[0].args[0]), n
                return
        elif name in ("add", "iadd") and self.stage == "embedded" and not self.p.positions:
            other = args[1] if args[0] is self.rows else args[0]
            key = _is_attr(other)
            if key is not None and self.rows in args:
                self.p.positions_key, self.rows = key, n
                self.p.positions = "learned" if key in dict(self.gm.named_parameters()) else "sinusoidal"
                return
        elif name in ("mul", "imul") and self.p.input == "tokens" and self.rows is self._front_node() and \
                isinstance(args[1 if args[0] is self.rows else 0], (int, float)):
            self.p.scale = float(args[1 if args[0] is self.rows else 0])
            self.p.scale_embedding, self.rows = True, n
            return
        elif name in ("flatten", "transpose") and self.p.input == "patches" and self.stage == "embedded":
            if (name, tuple(args[1:])) in (("flatten", (2,)), ("transpose", (1, 2))):
                self.rows = n
                return
        elif name == "getitem" and self.stage == "encoded" and self._first_row(args[1]):
            self.p.pooling, self.rows, self.stage = "cls", n, "pooled"
            return
        elif name == "mean" and self.stage == "encoded" and (args[1:] == [1] or n.kwargs.get("dim") == 1):
            self.p.pooling, self.rows, self.stage = "mean", n, "pooled"
            return
        _refuse(n, f"what the library computes after the {self.stage} rows")

    def _front_node(self) -> Optional[fx.Node]:
        for n in self.gm.graph.nodes:
            if n.op == "call_module" and n.target == self.p.front:
                return n
        return None

    @staticmethod
    def _first_row(index) -> bool:
        """rows[:, 0] or rows[:, 0, :]."""
        if not isinstance(index, tuple) or len(index) not in (2, 3) or index[1] != 0:
            return False
        return all(isinstance(i, slice) and i == slice(None) for i in index[:1] + index[2:])


def recognise(module: nn.Module) -> Parts:
    """The parts of module's forward (see the module's docstring), or ImportError_ naming the
    operation that is not one of them."""
    gm = fx.GraphModule(module, trace(module))
    walk = _Walk(gm)
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            if walk.x is None:
                walk.x = n
            elif n.users:
                _refuse(n, "an input the library takes (one sequence or image; lengths and masks are the library's "
                           "own arguments)")
        elif n.op == "output":
            if n.args[0] is not walk.rows:
                _refuse(n, "the rows the forward computed last")
        elif _helper(n, walk.rows):
            continue
        elif n.op == "call_module":
            if walk.stage != "front" and walk.rows not in n.args:
                _refuse(n, "applied to the model's rows")
            walk.module(n)
        else:
            walk.function(n)
    if not walk.p.front or not (walk.p.encoder or walk.p.layers):
        raise ImportError_(f"{type(module).__name__}: no input front (Embedding, Linear, Conv2d) and encoder found")
    return walk.p


MAPPING_KEYS = ("front", "cls", "positions", "embedding_norm", "encoder", "final_norm", "pooling", "pooled_norm",
                "head", "scale_embedding")


def from_mapping(module: nn.Module, text: str) -> Parts:
    """Parts named by the user where tracing cannot decide (--parts), "key=name,..." with keys
    MAPPING_KEYS: front, encoder (an nn.TransformerEncoder, or a ModuleList of its layers) and
    pooling ("cls", "mean", "none") name what they are; the others are optional."""
    given = dict(item.split("=", 1) for item in text.split(",") if "=" in item)
    unknown = sorted(set(given) - set(MAPPING_KEYS)) + [i for i in text.split(",") if "=" not in i]
    if unknown or "front" not in given or "encoder" not in given:
        raise ImportError_(f"--parts {text!r}: give front=NAME,encoder=NAME and optionally "
                           f"{', '.join(k for k in MAPPING_KEYS if k not in ('front', 'encoder'))} "
                           f"({'not: ' + ', '.join(unknown) if unknown else 'front and encoder are required'})")
    p, kinds = Parts(), {nn.Embedding: "tokens", nn.Linear: "features", nn.Conv2d: "patches"}
    named = dict(module.named_modules())
    tensors = dict(module.named_parameters()) | dict(module.named_buffers())
    for key in ("front", "encoder", "embedding_norm", "final_norm", "pooled_norm", "head"):
        if key in given and given[key] not in named:
            raise ImportError_(f"--parts {key}={given[key]}: {type(module).__name__} has no submodule of that name")
    for key in ("cls", "positions"):
        if key in given and given[key] not in tensors:
            raise ImportError_(f"--parts {key}={given[key]}: {type(module).__name__} has no parameter or buffer "
                               "of that name")
    p.front, p.input = given["front"], kinds.get(type(named[given["front"]]), "")
    if not p.input:
        raise ImportError_(f"--parts front={p.front} is a {type(named[p.front]).__name__}, not an Embedding, "
                           "Linear or Conv2d")
    encoder = named[given["encoder"]]
    if isinstance(encoder, nn.TransformerEncoder):
        p.encoder = given["encoder"]
    else:
        p.layers = [f"{given['encoder']}.{i}" for i in range(len(encoder))]
    p.cls, p.positions_key = given.get("cls", ""), given.get("positions", "")
    p.positions = "" if not p.positions_key else ("learned" if p.positions_key in dict(module.named_parameters())
                                                  else "sinusoidal")
    p.embedding_norm, p.final_norm, p.pooled_norm, p.head = (given.get(k, "") for k in ("embedding_norm", "final_norm",
                                                                                         "pooled_norm", "head"))
    p.pooling = given.get("pooling", "none")
    p.scale_embedding = given.get("scale_embedding", "false") == "true"
    p.scale = float(named[p.front].embedding_dim) ** 0.5 if p.scale_embedding else 1.0
    return p
