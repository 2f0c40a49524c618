#!/usr/bin/env python3
"""Checks that the encoder and model options are written once for Python, in
python/staticformer_export/encoder_schema.py (ENCODER_OPTIONS, MODEL_OPTIONS: name, allowed values, default), and that
they are C++'s:

  - the defaults and allowed values parsed from include/staticformer/model_config.hpp and
    config.hpp equal the schema's (and the parse does fail on a header whose default differs);
  - EncoderSpec, ModelSpec (python/staticformer_export/model_export.py) and ClassifierConfig
    (python/staticformer_export/staticformer_torch.py) take every option and its default from the schema, and the
    exporter's blob codes, the classifier's activations and the goldens generator's flags
    (tools/make_goldens.py) are the schema's;
  - a bad option gives a message listing the allowed values (TransformerClassifier, ModelSpec).

The C++ checks need only the standard library; the rest needs torch (without it: exit 77,
skipped, after the C++ checks). Run with /usr/bin/python3."""

import dataclasses
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))  # the checkout's staticformer_export package
from staticformer_export import encoder_schema as schema  # noqa: E402

from checks import check, failures  # noqa: E402  (tests/checks.py)


# ---- the C++ defaults ---------------------------------------------------------------------------

def _statement(text: str, pattern: str) -> str:
    """The C++ statement (up to its ';') that starts with pattern; '' when there is none."""
    m = re.search(pattern + r"[^;]*;", text)
    return m.group(0) if m else ""


def _enum(text: str, name: str) -> tuple:
    m = re.search(r"enum class " + name + r"\s*\{([^}]*)\}", text)
    return tuple(v.strip() for v in m.group(1).split(",") if v.strip()) if m else ()


def _fallback(text: str, member: str, kind: str) -> str:
    """The value of `static constexpr <kind> <member> = c1 ? a : c2 ? b : <fallback>;` when no
    option is given: its last alternative."""
    statement = _statement(text, r"static constexpr " + kind + r"\s+" + member + r"\s*=")
    values = re.findall(r"(?<!:):(?!:)\s*" + kind + r"::(\w+)", statement)
    return values[-1] if values else ""


def _flag(text: str, member: str, tag: str):
    """A flag `static constexpr bool <member> = detail::count_of<<tag>, Options...> == N;` when
    the option is left out (count 0): N == 0 (a further `&& ...` term, another option's, aside).
    None when not found."""
    m = re.search(r"static constexpr bool " + member + r"\s*=\s*detail::count_of<" + tag +
                  r", Options\.\.\.>\s*==\s*(\d)\s*(?:&&[^;]*)?;", text)
    return None if m is None else m.group(1) == "0"


def cpp_model_defaults(text: str) -> dict:
    """MODEL_OPTIONS' names -> (allowed values or None, default) as model_config.hpp says."""
    out = {}
    signature = re.search(r"template <(.*?)>\s*struct model_config\b", text)
    params = dict(re.findall(r"class\s+(?:\.\.\.\s*)?(\w+)(\s*=\s*[^,]+)?", signature.group(1))) if signature else {}
    out["input"] = (tuple(k for k in _enum(text, "input_kind")),
                    schema.REQUIRED if params.get("Input") == "" else params.get("Input", "missing"))
    # Where the input is not of their kind, input_traits gives its dimensions as 0.
    zeros = set(re.findall(r"\b(vocab|features|channels|height|width|patch) = 0\b", text))
    for name in ("vocab", "features", "patch"):
        out[name] = (None, 0 if name in zeros else "not 0")
    out["image"] = (None, (0, 0, 0) if {"channels", "height", "width"} <= zeros else "not 0")
    for name, member, tag in (("scale_embedding", "scales_embedding", "scale_embedding"),
                              ("cls_token", "has_cls", "cls_token"),
                              ("embedding_norm", "has_embedding_norm", "embedding_norm"),
                              ("pooled_norm", "has_pooled_norm", "pooled_norm")):
        out[name] = (None, _flag(text, member, tag))
    for name in ("embedding_norm_eps", "pooled_norm_eps"):  # None: the encoder's epsilon when the tag is absent
        member = name.replace("_norm", "")
        own = re.search(rf"{member} = {member}_option::count \? {member}_option::value : (\w+)::eps;", text)
        out[name] = (None, None if own and own.group(1) == "Encoder" else "not the encoder's")
    out["positions"] = (_enum(text, "positions_kind"), _fallback(text, "positions", "positions_kind"))
    out["pooling"] = (_enum(text, "pooling_kind"), _fallback(text, "pooling", "pooling_kind"))
    head = re.search(r"find_option<detail::is_head, classifier_head<(\d+)>, Options\.\.\.>", text)
    out["classes"] = (None, int(head.group(1)) if head else None)
    return out


def _float32(x: float) -> bytes:
    return struct.pack("<f", x)


def cpp_encoder_defaults(text: str) -> dict:
    """ENCODER_OPTIONS' names -> (allowed values or None, default) as config.hpp says."""
    out = {"norm_first": (None, _flag(text, "norm_first", "pre_norm")),
           "final_norm": (None, _flag(text, "has_final_norm", "final_norm")),
           "causal": (None, _flag(text, "is_causal", "causal")),
           # has_bias is true without the tag: the option's default (no tag) is no_bias = False
           "no_bias": (None, not _flag(text, "has_bias", "no_bias")),
           "no_norm_bias": (None, not _flag(text, "has_norm_bias", "no_norm_bias")),
           "rms_norm": (None, _flag(text, "is_rms_norm", "rms_norm")),
           "glu": (None, _flag(text, "is_gated", "glu")),
           "activation": (_enum(text, "activation_kind"), _fallback(text, "activation", "activation_kind"))}
    # rotary: the layout of is_rotary<void> (no rotary option), theta the rotary tag's default
    layout = re.search(r"struct is_rotary<void>\s*\{[^}]*rotary_layout::(\w+);", text)
    out["rotary"] = (_enum(text, "rotary_layout"), layout.group(1) if layout else None)
    theta = re.search(r"template <int Theta = (\d+)>\s*struct rotary \{\};", text)
    out["rotary_theta"] = (None, int(theta.group(1)) if theta else None)
    # kv_heads: as many as heads without the option, which the schema's 0 says
    kv = re.search(r"find_option<detail::is_kv_heads, staticformer::kv_heads<(\w+)>, Options\.\.\.>", text)
    out["kv_heads"] = (None, 0 if kv and kv.group(1) == "Heads" else kv.group(1) if kv else None)
    eps = re.search(r"find_option<detail::is_eps, layer_norm_eps<(\d+), (-?\d+)>, Options\.\.\.>", text)
    if eps is None:
        out["eps"] = (None, None)
    else:  # float(M * pow10(E)), pow10 by repeated multiplication in double as config.hpp does
        mantissa, exponent = int(eps.group(1)), int(eps.group(2))
        out["eps"] = (None, mantissa * (1.0 / 10.0 ** -exponent if exponent < 0 else 10.0 ** exponent))
    own = re.search(r"final_eps = final_eps_option::count \? final_eps_option::value : (\w+);", text)
    out["final_norm_eps"] = (None, None if own and own.group(1) == "eps" else "not the layers'")
    return out


def differences(cpp: dict, options) -> list:
    """Where the C++ (allowed values, default) and the schema's options differ."""
    out = []
    for o in options:
        if o.name not in cpp:
            out.append(f"{o.name}: not found in C++")
            continue
        allowed, default = cpp[o.name]
        if allowed is not None and allowed != o.choices:
            out.append(f"{o.name}: C++ allows {allowed}, the schema {o.choices}")
        same = (_float32(default) == _float32(o.default) if o.kind == "positive" and isinstance(default, float)
                else default == o.default and type(default) is type(o.default))
        if not same:
            out.append(f"{o.name}: C++ default {default!r}, the schema's {o.default!r}")
    return out


model_hpp = (ROOT / "include" / "staticformer" / "model_config.hpp").read_text()
config_hpp = (ROOT / "include" / "staticformer" / "config.hpp").read_text()
cpp_model, cpp_encoder = cpp_model_defaults(model_hpp), cpp_encoder_defaults(config_hpp)
print("C++ model_config defaults:", {k: v[1] for k, v in cpp_model.items()})
print("C++ encoder_config defaults:", {k: v[1] for k, v in cpp_encoder.items()})
diff = differences(cpp_model, schema.MODEL_OPTIONS)
check(not diff, "model_config.hpp's defaults and allowed values == MODEL_OPTIONS'" + "".join("\n       " + d for d in diff))
diff = differences(cpp_encoder, schema.ENCODER_OPTIONS)
check(not diff, "config.hpp's defaults and allowed values == ENCODER_OPTIONS'" + "".join("\n       " + d for d in diff))
check(set(cpp_model) == {o.name for o in schema.MODEL_OPTIONS} and
      set(cpp_encoder) == {o.name for o in schema.ENCODER_OPTIONS}, "every schema option is compared with C++")

# The comparison fails on headers whose defaults differ (each edit must change the text).
M, E = (model_hpp, cpp_model_defaults, schema.MODEL_OPTIONS), (config_hpp, cpp_encoder_defaults, schema.ENCODER_OPTIONS)
MUTATIONS = [  # (header, option, text, its replacement)
    (M, "positions", ": positions_kind::none;", ": positions_kind::learned;"),
    (M, "pooling", ": pooling_kind::none;", ": pooling_kind::mean;"),
    (M, "pooling", "enum class pooling_kind { none, cls, mean }", "enum class pooling_kind { none, mean, cls }"),
    (M, "cls_token", "count_of<cls_token, Options...> == 1;", "count_of<cls_token, Options...> == 0;"),
    (M, "classes", "classifier_head<0>, Options...>", "classifier_head<2>, Options...>"),
    (M, "input", "class Input,", "class Input = token_input<2>,"),
    (E, "activation", ": activation_kind::relu;", ": activation_kind::gelu;"),
    (E, "eps", "layer_norm_eps<1, -5>, Options", "layer_norm_eps<1, -6>, Options"),
    (E, "final_norm_eps", "final_eps_option::value : eps;", "final_eps_option::value : 1e-6f;"),
    (M, "pooled_norm", "count_of<pooled_norm, Options...> == 1;", "count_of<pooled_norm, Options...> == 0;"),
    (M, "pooled_norm_eps", "pooled_eps_option::value : Encoder::eps;", "pooled_eps_option::value : 1e-6f;"),
    (E, "norm_first", "count_of<pre_norm, Options...> == 1;", "count_of<pre_norm, Options...> == 0;"),
    (E, "rotary", "layout = rotary_layout::none;", "layout = rotary_layout::halves;"),
    (E, "kv_heads", "staticformer::kv_heads<Heads>, Options", "staticformer::kv_heads<1>, Options"),
    (E, "rotary_theta", "template <int Theta = 10000>\nstruct rotary {};", "template <int Theta = 500000>\nstruct rotary {};"),
]
for (text, parse, options), name, old, new in MUTATIONS:
    changed = text.replace(old, new)
    found = [d for d in differences(parse(changed), options) if d.startswith(name + ":")]
    check(changed != text and found, f"a header with {new.strip(':; ')!r} fails the comparison ({name})")

# ---- the schema's own messages (no torch) -------------------------------------------------------

problems = schema.model_problems({"input": "pixels"})
check(problems == ["input='pixels' is not allowed: use one of 'tokens', 'features', 'patches'"],
      f"model_problems names the allowed inputs: {problems}")
problems = schema.option_problems({"activation": "swish"}, schema.ENCODER_OPTIONS)
check(problems == ["activation='swish' is not allowed: use one of 'relu', 'gelu', 'gelu_tanh', 'silu'"],
      f"option_problems names the allowed activations: {problems}")
check(schema.model_problems({}) == ["input is required: use one of 'tokens', 'features', 'patches'"],
      "the input is required (no default, as in C++)")

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIPPED the users' checks: /usr/bin/python3 has no torch (apt-get install python3-torch)")
    sys.exit(1 if failures else 77)

# ---- the users take their defaults from the schema ------------------------------------------------

sys.path.insert(0, str(ROOT / "tools"))
import make_goldens  # noqa: E402
from staticformer_export import model_export, staticformer_torch  # noqa: E402
from staticformer_export.encoder_export import ExportError  # noqa: E402


def field_defaults(cls) -> dict:
    return {f.name: schema.REQUIRED if f.default is dataclasses.MISSING else f.default for f in dataclasses.fields(cls)}


for cls, options in ((schema.EncoderSpec, schema.ENCODER_OPTIONS), (model_export.ModelSpec, schema.MODEL_OPTIONS),
                     (staticformer_torch.ClassifierConfig, schema.MODEL_OPTIONS + schema.ENCODER_OPTIONS)):
    got = field_defaults(cls)
    want = {o.name: o.default for o in options}
    wrong = {n: (got.get(n, "no such field"), d) for n, d in want.items() if got.get(n, "no such field") != d}
    check(not wrong, f"{cls.__name__}'s defaults are the schema's ({len(want)} options)" +
          "".join(f"\n       {n}: {g!r}, the schema's {d!r}" for n, (g, d) in wrong.items()))

# Made with only what has no default: every option at the schema's default.
enc = schema.EncoderSpec(8, 2, 16, 4, 1)
spec = model_export.ModelSpec(enc, "tokens", vocab=5)
config = staticformer_torch.ClassifierConfig(8, 2, 16, 1, 4, "tokens", vocab=5)
for what, obj, options in (("EncoderSpec(...)", enc, schema.ENCODER_OPTIONS),
                           ("ModelSpec(...)", spec, schema.MODEL_OPTIONS[2:]),
                           ("ClassifierConfig(...)", config, schema.MODEL_OPTIONS[2:] + schema.ENCODER_OPTIONS)):
    check(all(getattr(obj, o.name) == o.default for o in options), f"{what} holds the schema's defaults")
exported = model_export.classifier_spec(config)
check(exported == spec and exported.encoder == enc, "the exporter's ModelSpec of a default ClassifierConfig is the default ModelSpec")

check(model_export.INPUTS is schema.INPUTS and model_export.POSITIONS is schema.POSITIONS and
      model_export.POOLINGS is schema.POOLINGS, "the exporter's blob codes are the schema's choices")
check(tuple(staticformer_torch.TORCH_ACTIVATIONS) == schema.ACTIVATIONS and
      make_goldens.TORCH_ACTIVATIONS is staticformer_torch.TORCH_ACTIVATIONS,
      "the classifier's and the goldens' torch activations are the schema's")
s = schema.EncoderSpec(24, 3, 40, 7, 3, norm_first=True, activation="gelu", final_norm=True, eps=1e-6, causal=True)
flags = make_goldens.state_dict_option_flags(s)
check(flags == ["--norm-first", "--activation", "gelu", "--final-norm", "--eps", "1e-06", "--causal", "--rotary", "none",
                "--rotary-theta", "10000", "--kv-heads", "0"],
      f"the goldens' state_dict flags state every schema option: {flags}")

# ---- a bad option's message lists the allowed values -------------------------------------------


def message(make, exception) -> str:
    try:
        make()
    except exception as e:
        return str(e)
    return "(no error)"


base = dict(d_model=8, heads=2, d_ff=16, layers=1, seq_len=4, input="tokens", vocab=5)
for name, value in (("activation", "tanh"), ("input", "pixels"), ("positions", "rotary"), ("pooling", "max")):
    o = schema.ENCODER_OPTION.get(name) or schema.MODEL_OPTION[name]
    text = message(lambda: staticformer_torch.TransformerClassifier(**dict(base, **{name: value})), ValueError)
    check(all(repr(c) in text for c in o.choices) and repr(value) in text,
          f"TransformerClassifier({name}={value!r}): {text}")
for activation in schema.ACTIVATIONS:  # every activation the schema names builds (silu was a bare KeyError)
    text = message(lambda: staticformer_torch.TransformerClassifier(**dict(base, activation=activation)), Exception)
    check(text == "(no error)", f"TransformerClassifier(activation={activation!r}): {text}")
text = message(lambda: staticformer_torch.TransformerClassifier(**dict(base, cls_token="yes")), ValueError)
check("True or False" in text, f"TransformerClassifier(cls_token='yes'): {text}")
text = message(lambda: staticformer_torch.TransformerClassifier(**{k: v for k, v in base.items() if k != "input"}), TypeError)
check("'tokens', 'features', 'patches'" in text, f"TransformerClassifier() without input: {text}")
text = message(lambda: staticformer_torch.TransformerClassifier(**dict(base, activaton="gelu")), TypeError)
check("activation" in text and "activaton" in text, f"TransformerClassifier(activaton=...): {text}")
text = message(lambda: staticformer_torch.config_from_json('{"d_model": 8, "heads": 2, "d_ff": 16, "layers": 1, '
                                                           '"seq_len": 4, "input": "tokens", "vocab": 5, "pooling": "max"}'),
               ValueError)
check("'none', 'cls', 'mean'" in text, f"a state_dict's configuration with pooling 'max': {text}")
text = message(lambda: model_export.ModelSpec(enc, "tokens", vocab=5, positions="rotary"), ExportError)
check("'none', 'sinusoidal', 'learned'" in text, f"ModelSpec(positions='rotary'): {text}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
