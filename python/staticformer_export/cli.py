"""Export a PyTorch Transformer encoder to staticformer weights.

Turns a torch.nn.TransformerEncoder (batch_first=True) into
  * a C++ header that defines  NAME_config  (a staticformer::encoder_config) and  NAME
    (an inline constexpr staticformer::encoder_weights<NAME_config, staticformer::f32>, at a
    64-byte boundary: staticformer::weights_alignment), and/or
  * a weights blob (.sfwb) in the format described in include/staticformer/blob.hpp.

From a whole module saved with torch.save(encoder, "model.pt"), which carries its own options:

    python3 staticformer-export --module model.pt --seq-len 32 --name my_model \\
        --header my_model.hpp --blob my_model.sfwb

From a state_dict saved with torch.save(encoder.state_dict(), "sd.pt"), stating the options
(--d-model, --d-ff and --layers are read from the tensor shapes when omitted; --prefix strips
a key prefix such as "encoder." when the encoder is part of a larger model):

    python3 staticformer-export --state-dict sd.pt --heads 4 --norm-first \\
        --activation gelu --final-norm --eps 1e-5 --seq-len 32 --name my_model --blob my_model.sfwb

--precision f16 stores every parameter as IEEE binary16 instead: half the bytes, a header with
staticformer::encoder_weights<NAME_config, staticformer::f16> (uint16 bit patterns such as
0x3c00 = 1.0) and a blob with precision 1:

    python3 staticformer-export --module model.pt --seq-len 32 --name my_model \\
        --precision f16 --header my_model_f16.hpp --blob my_model_f16.sfwb

The float32 weights are rounded by numpy's float16 conversion (round to nearest, ties to even:
the same bits as staticformer::math::float_to_half, which tests/parity_test.cpp checks); a
parameter beyond the binary16 range (|w| >= 65520 rounds to infinity) is refused.

--precision int8 quantises: int8 weights per output channel, int8 activations and an int16
residual stream (the encoder's input and output rows, zero point 0) with scales chosen on
calibration inputs you supply (a float32 .npy of shape [count, seq_len, d_model], or
[count, rows, d_model] with rows <= seq_len real rows per sample), by min-max or a percentile:

    python3 staticformer-export --module model.pt --seq-len 32 --name my_model \
        --precision int8 --calibration samples.npy --calibration-method percentile \
        --header my_model_int8.hpp --blob my_model_int8.sfwb

The quantisation is the library's own C++ (include/staticformer/quant/): this script writes the
f32 weights as a header, compiles a small program around quant::tool_main() (quantize_tool.hpp)
with the C++ compiler ($CXX, default c++) and runs it; it prints the per-layer report (scales, zero points,
clipped share of each tensor) and the int8 output's SQNR against f32 on the calibration inputs.
--precision a16w8 does the same with int8 weights and int16 activations (docs/int8.md).

--c-api PREFIX (with --header) also writes PREFIX.h, a C header, and PREFIX.cpp, its extern "C"
functions (c_api.py). Every export prints a report per layer: parameters, weight and
workspace bytes, MACs and estimated Cortex-M instructions (export_report.py); --report-json
FILE writes it as JSON, --quiet silences it and the progress lines.

Layers without biases (MultiheadAttention(bias=False), Linear(bias=False), LayerNorms without
bias: torch's bias=False) export as no_bias / no_norm_bias; from a state_dict, say so with
--no-bias / --no-norm-bias. RMSNorm modules (torch's nn.RMSNorm, staticformer_torch.RMSNorm) in
place of the LayerNorms export as rms_norm (--rms-norm from a state_dict); a layer with a
linear3 beside linear1 (staticformer_torch.encoder_layer's glu) as glu (--glu); a layer with a
staticformer_torch.Rotary as rotary (--rotary halves|interleaved, --rotary-theta N); a
staticformer_torch.GroupedAttention as kv_heads (--kv-heads N). Anything
staticformer does not compute (some biases but not others, separate key/value dimensions, add_bias_kv, LayerNorms with different epsilons, an unknown
activation, ...) is refused with a message and exit status 2. Needs torch (1.13 or later) and numpy.

The command is staticformer-export (the package's entry point; python3 -m staticformer_export;
staticformer-export in the checkout), with the same arguments everywhere. The pieces are
importable: encoder_export.py (encoders), model_export.py (whole models).
"""

import argparse
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from torch import nn

from . import c_api, encoder_schema, export_report, export_verify, model_export
from .encoder_export import (INTEGER_PRECISIONS, PRECISIONS, ExportError, calibration_samples, check_name, config_using, describe, export,
                             export_int8, extract_module, extract_state_dict, infer_dims, load_module, load_state_dict,
                             note, write_blob)
from .encoder_schema import ACTIVATIONS, DEFAULT_EPS, ENCODER_OPTIONS, EncoderSpec, default
from .staticformer_torch import encoder_layer, norm_of

# ---- command line ---------------------------------------------------------------------------

STATE_DICT_FLAGS = ("d_model", "heads", "d_ff", "layers", "norm_first", "activation",
                    "final_norm", "eps", "final_norm_eps", "no_bias", "no_norm_bias", "rms_norm", "glu", "rotary", "rotary_theta",
                    "kv_heads", "prefix")


def add_c_api_arguments(p) -> None:
    """--c-api and its options (c_api.py)."""
    p.add_argument("--c-api", metavar="PREFIX",
                   help="also write a C API: PREFIX.h (C99/C11/C++) and PREFIX.cpp (extern \"C\" functions "
                        "around --header's C++), beside --header or in --c-api-dir (c_api.py)")
    p.add_argument("--c-api-dir", help="directory of the --c-api files (default: --header's)")
    p.add_argument("--c-api-batch", type=int, default=8, metavar="N",
                   help="the most inputs of one PREFIX_forward_batch_ws call (default 8; sizes its workspace)")
    p.add_argument("--c-api-workers", type=int, default=4, metavar="W",
                   help="the most threads PREFIX_forward_batch_ws splits a call across (default 4)")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="staticformer-export", description=__doc__.split("\n\n")[0],
                                epilog="Exit status 2 means the model or the arguments are not supported.")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--module", help="a TransformerEncoder, torchvision VisionTransformer or "
                        "staticformer_torch.TransformerClassifier saved with torch.save(module, path)")
    source.add_argument("--state-dict", help="the state_dict of one of those, saved with torch.save")
    p.add_argument("--seq-len", type=int,
                   help="sequence length of the C++ encoder (required for an encoder; a model's default: its own)")
    p.add_argument("--causal", action="store_true",
                   help="an encoder run with torch's generate_square_subsequent_mask (staticformer::causal)")
    p.add_argument("--name", required=True, help="C++ name of the weights (and NAME_config)")
    p.add_argument("--header", help="C++ header to write")
    p.add_argument("--blob", help="weights blob (.sfwb) to write")
    p.add_argument("--precision", choices=PRECISIONS, default="f32",
                   help="weight storage: f32 (default), f16 (IEEE binary16, half the bytes), int8 "
                        "(quantised, needs --calibration) or a16w8 (int8 weights, int16 activations: "
                        "about 15 dB more accurate than int8, needs --calibration)")
    p.add_argument("--calibration", help="int8: calibration inputs, a .npy: an encoder's float32 [count, rows, "
                   "d_model]; a model's token ids [count, tokens], features [count, tokens, features] or "
                   "images [count, channels, height, width]")
    p.add_argument("--calibration-method", choices=("min_max", "percentile"), default="min_max",
                   help="int8: how activation ranges are chosen (default min_max)")
    p.add_argument("--percentile", type=float, default=99.99,
                   help="int8 with --calibration-method percentile: the percentile kept (default 99.99)")
    add_c_api_arguments(p)
    p.add_argument("--report-json", metavar="FILE", help="also write the export report (export_report.py) as JSON")
    p.add_argument("--quiet", action="store_true", help="no export report on stdout, no progress on stderr")
    p.add_argument("--parts", metavar="KEY=NAME,...",
                   help="a module of your own that torch.fx cannot trace: which submodule or parameter is which, "
                        "e.g. front=proj,cls=cls,positions=pos,encoder=enc,final_norm=norm,pooling=cls,pooled_norm=ln,head=head "
                        "(encoder: an nn.TransformerEncoder or a ModuleList of its layers; pooling cls, mean or "
                        "none; scale_embedding=true)")
    p.add_argument("--no-verify", action="store_true",
                   help="skip the self-check: the exported weights run by the library's reference backend "
                        "against the torch module (f32 / f16: largest error at most 1e-4 x max(1, max|torch|); "
                        "int8: SQNR and arg-max agreement printed)")
    g = p.add_argument_group("options of a --state-dict export (a module carries its own)")
    g.add_argument("--d-model", type=int, help="default: from the tensor shapes")
    g.add_argument("--heads", type=int, help="required with --state-dict")
    g.add_argument("--d-ff", type=int, help="default: from the tensor shapes")
    g.add_argument("--layers", type=int, help="default: from the tensor keys")
    g.add_argument("--norm-first", action="store_true", default=None, help="pre-norm layers")
    g.add_argument("--activation", choices=ACTIVATIONS, help=f"default: {default('activation')}")
    g.add_argument("--final-norm", action="store_true", default=None, help="a LayerNorm after the last layer")
    g.add_argument("--eps", type=float, help=f"LayerNorm epsilon, default: {DEFAULT_EPS:g}")
    g.add_argument("--final-norm-eps", type=float, help="the final norm's own epsilon (header only: an encoder "
                   "blob holds one epsilon); default: --eps")
    g.add_argument("--no-bias", action="store_true", default=None,
                   help="linear layers without biases (torch bias=False)")
    g.add_argument("--no-norm-bias", action="store_true", default=None, help="LayerNorms without bias (beta)")
    g.add_argument("--glu", action="store_true", default=None,
                   help="a gated feed-forward: W3 under the layers' linear3 (staticformer::glu)")
    g.add_argument("--rms-norm", action="store_true", default=None,
                   help="RMSNorm (weight only) in place of every LayerNorm, --eps its eps")
    g.add_argument("--rotary", choices=encoder_schema.ROTARY_LAYOUTS,
                   help="rotary positions on queries and keys: 'halves' pairs (i, i + head_dim/2) as GPT-NeoX / "
                        "Llama, 'interleaved' (2i, 2i + 1) as GPT-J; default: none")
    g.add_argument("--rotary-theta", type=int, help=f"the rotary base, default: {default('rotary_theta')}")
    g.add_argument("--kv-heads", type=int, help="grouped-query attention: key and value heads (dividing --heads; "
                   "in_proj_weight then has d_model + 2 kv_heads head_dim rows); default: as many as --heads")
    g.add_argument("--prefix", help="key prefix of the encoder in the state_dict, e.g. 'encoder.'")
    args = p.parse_args(argv)
    if not args.header and not args.blob:
        p.error("nothing to write: give --header and/or --blob")
    if args.c_api and not args.header:
        p.error("--c-api wraps the C++ header: give --header too")
    if (args.precision in INTEGER_PRECISIONS) != (args.calibration is not None):
        p.error("--calibration goes with --precision int8 or a16w8 (and they need it)")
    if not 50.0 < args.percentile <= 100.0:
        p.error("--percentile must lie in (50, 100]")
    if args.module:
        given = [f"--{f.replace('_', '-')}" for f in STATE_DICT_FLAGS if getattr(args, f) is not None]
        if given:
            p.error(f"{', '.join(given)}: for --state-dict only; a module carries its own options")
    return args


def is_model_state(state: dict) -> bool:
    """A TransformerClassifier's state_dict (it carries its configuration) or a ViT's."""
    return "_extra_state" in state or "conv_proj.weight" in state


def export_model_main(args, module, state, progress) -> int:
    """A whole model (model_export.py): header and / or model blob."""
    if args.causal:
        raise ExportError("--causal: a TransformerClassifier carries its own causal option")
    try:
        if module is not None:
            spec, weights = model_export.extract_model(module, args.seq_len, args.parts)
            source = f"{Path(args.module).name} (a saved {type(module).__name__})"
        else:
            spec, weights = model_export.extract_model_state(state, args.heads, args.seq_len)
            source = f"{Path(args.state_dict).name} (a model state_dict)"
        progress(f"extracted {spec.encoder.layers} layers")
        calibration = {}
        config = (config_using(f"{args.name}_encoder", spec.encoder) +
                  f"\nusing {args.name}_config = {model_export.model_config_type(args.name, spec)};")
        with tempfile.TemporaryDirectory() as tmp:
            blob = args.blob or str(Path(tmp) / "checked.sfwb")
            if args.precision in INTEGER_PRECISIONS:
                progress(f"{args.precision}: calibrating and quantising (the C++ quantiser on {args.calibration})")
                print(model_export.export_int8(spec, weights, args.name, source, args.calibration,
                                               args.calibration_method, args.percentile, args.header, blob,
                                               calibration, announce_blob=bool(args.blob), precision=args.precision))
            else:
                print(model_export.export(spec, weights, args.name, source, args.header, args.blob, args.precision))
                if not args.blob:
                    Path(blob).write_bytes(model_export.blob_bytes(spec, weights, args.precision))
            torch_module = module if module is not None else model_export.module_of_state(state)
            if not args.no_verify and torch_module is not None:
                progress("verify: the export through the reference backend against torch")
                samples = (model_export.model_calibration(args.calibration, spec)
                           if args.precision in INTEGER_PRECISIONS else None)
                print(export_verify.verify_model(torch_module.eval(), model_export.torch_runner(torch_module),
                                                 spec, config, args.name, args.precision, Path(blob), samples,
                                                 full_only=not model_export.takes_lengths(torch_module)))
            elif not args.no_verify:
                note("not verified: a ViT state_dict gives no module to compare with (export the saved module)")
        c_api_main(args, True, model_export.describe(spec), progress)
        report_main(args, model_export.describe(spec), export_report.model_parts(spec, weights), config, True,
                    calibration.get("calibration"), progress)
    except export_verify.VerifyError as e:
        raise ExportError(f"verify: {e}") from None
    return 0


def verify_encoder_export(args, module, state, spec: EncoderSpec, blob: str) -> None:
    """Checks an encoder export (export_verify.py) against the saved module, or against a module
    rebuilt from the state_dict with the options given (which checks the reading of the tensors,
    not the options)."""
    if module is None:
        final = norm_of(spec) if spec.final_norm else None
        module = nn.TransformerEncoder(encoder_layer(spec), spec.layers, norm=final, enable_nested_tensor=False)
        prefix = args.prefix or ""
        own = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
        missing, _ = module.load_state_dict(own, strict=False)
        if missing:
            note(f"not verified: the state_dict has no {missing[0]} for the options given")
            return
    samples = calibration_samples(args.calibration, spec) if args.precision in INTEGER_PRECISIONS else None
    print(export_verify.verify_encoder(module.eval(), spec, config_using(args.name, spec), args.name, args.precision,
                                       Path(blob), samples))


def report_main(args, description: str, parts: list, config: str, model: bool, calibration, progress) -> None:
    """The export report: printed unless --quiet, written as JSON with --report-json."""
    if args.quiet and not args.report_json:
        return
    progress("report: sizes from the C++ compiler")
    try:
        text = export_report.report(args.name, description, args.precision, parts, config, model,
                                    args.report_json, calibration)
    except RuntimeError as e:
        raise ExportError(str(e)) from None
    if not args.quiet:
        print(text)


def c_api_main(args, model: bool, description: str, progress) -> None:
    """--c-api: PREFIX.h and PREFIX.cpp around the C++ header just written."""
    if not args.c_api:
        return
    progress("C API: sizes from the C++ compiler")
    out_dir = args.c_api_dir or str(Path(args.header).resolve().parent)
    try:
        print(c_api.write_c_api(args.c_api, out_dir, args.header, args.name, args.precision, model, description,
                                args.c_api_batch, args.c_api_workers))
    except (ValueError, RuntimeError) as e:
        raise ExportError(str(e)) from None


def main(argv=None) -> int:
    args = parse_args(argv)
    progress = export_report.Progress(args.quiet)
    note.quiet = args.quiet
    if not args.quiet:  # the C++ quantiser's progress lines (quantize_tool.hpp)
        os.environ.setdefault("STATICFORMER_PROGRESS", "1")
    try:
        check_name(args.name)
        progress(f"loading {args.module or args.state_dict}")
        module = load_module(args.module) if args.module else None
        saved = type(module).__name__
        if isinstance(module, nn.TransformerEncoderLayer):  # one layer of an encoder: a one-layer encoder
            module = nn.TransformerEncoder(module, 1, enable_nested_tensor=False)
        state = None if module is not None else load_state_dict(args.state_dict)
        if not isinstance(module, nn.TransformerEncoder) and (module is not None or is_model_state(state)):
            return export_model_main(args, module, state, progress)
        if args.seq_len is None:
            raise ExportError("an encoder export needs --seq-len")
        if args.module:
            spec, weights = extract_module(module, args.seq_len)
            spec = replace(spec, causal=args.causal)
            source = f"{Path(args.module).name} (a saved torch.nn.{saved})"
        else:
            prefix = args.prefix or ""
            if args.heads is None:
                raise ExportError("--state-dict needs --heads")
            d_model, d_ff, layers = infer_dims(state, prefix)
            # the options given; encoder_schema's defaults for the others
            options = {o.name: getattr(args, o.name) for o in ENCODER_OPTIONS if getattr(args, o.name) is not None}
            spec = EncoderSpec(d_model=d_model if args.d_model is None else args.d_model,
                               heads=args.heads,
                               d_ff=d_ff if args.d_ff is None else args.d_ff,
                               seq_len=args.seq_len,
                               layers=layers if args.layers is None else args.layers,
                               **options)
            weights = extract_state_dict(state, spec, prefix)
            source = f"{Path(args.state_dict).name} (a TransformerEncoder state_dict)"
        progress(f"extracted {spec.layers} layers")
        calibration = {}
        with tempfile.TemporaryDirectory() as tmp:
            blob = args.blob or str(Path(tmp) / "checked.sfwb")
            if args.precision in INTEGER_PRECISIONS:
                progress(f"{args.precision}: calibrating and quantising (the C++ quantiser on {args.calibration})")
                print(export_int8(spec, weights, args.name, source, args.calibration, args.calibration_method,
                                  args.percentile, args.header, blob, calibration, announce_blob=bool(args.blob),
                                  precision=args.precision))
            else:
                print(export(spec, weights, args.name, source, args.header, args.blob, args.precision))
                if not args.blob:
                    write_blob(blob, spec, weights, args.precision)
            if not args.no_verify:
                progress("verify: the export through the reference backend against torch")
                verify_encoder_export(args, module, state, spec, blob)
        c_api_main(args, False, describe(spec), progress)
        report_main(args, describe(spec), export_report.encoder_parts(spec, weights), config_using(args.name, spec),
                    False, calibration.get("calibration"), progress)
    except export_verify.VerifyError as e:
        print(f"staticformer-export: error: verify: {e}", file=sys.stderr)
        return 2
    except ExportError as e:
        print(f"staticformer-export: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
