#!/usr/bin/env python3
"""Checks tools/export_pytorch.py's export report (--report-json) where its numbers are exact:
parameters equal torch's sum(p.numel()), per model and per layer; weight bytes equal the payload
of the blob written in each precision (and 4 / 2 bytes per f32 / f16 parameter per layer); MACs
equal a count made here from torch's own weight shapes; the int8 calibration report is carried.
And that the instruction estimates agree with what `make footprint` measured: python/staticformer_export/footprint_costs.json
must be there with every core, precision and configuration the estimates use (M4 / M7 / M55 x f32,
f16, int8-dsp x tiny, small, narrow), each of its measured whole-encoder counts must come back from
python/staticformer_export/kernel_costs.py within 10%, and the report's estimates for the tiny and small encoders must be
kernel_costs' estimates of those configurations. Run with /usr/bin/python3 (torch)."""

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))  # the checkout's staticformer_export package
from staticformer_export import cli, kernel_costs  # noqa: E402
from staticformer_export.staticformer_torch import TransformerClassifier  # noqa: E402

from checks import check, failures  # noqa: E402  (tests/checks.py)


def export(tmp: Path, module: nn.Module, name: str, precision: str, blob_header: int, extra=()) -> tuple:
    """Exports module as a blob in precision with --report-json: (report, blob payload bytes)."""
    torch.save(module, tmp / f"{name}.pt")
    blob = tmp / f"{name}_{precision}.bin"
    argv = ["--module", str(tmp / f"{name}.pt"), "--name", name, "--blob", str(blob), "--precision", precision,
            "--quiet", "--no-verify", "--report-json", str(tmp / f"{name}_{precision}.json"), *extra]
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(argv) == 0, f"export {argv} failed"
    return json.loads((tmp / f"{name}_{precision}.json").read_text()), blob.stat().st_size - blob_header


def torch_macs(encoder: nn.TransformerEncoder, rows: int) -> int:
    """Multiply-adds of one pass over `rows` rows, from the torch module's own weights: every
    matrix of a layer once per row (a glu's linear3 and grouped-query attention's shorter
    in_proj_weight among them), and q.k plus p.v: rows x rows x d_model each."""
    total = 0
    for layer in encoder.layers:
        d = layer.self_attn.embed_dim
        matrices = [layer.self_attn.in_proj_weight, layer.self_attn.out_proj.weight, layer.linear1.weight,
                    layer.linear2.weight] + ([layer.linear3.weight] if hasattr(layer, "linear3") else [])
        total += rows * sum(m.numel() for m in matrices) + 2 * rows * rows * d
    return total


def check_bytes(what: str, reports: dict, payloads: dict, layer_params: list) -> None:
    for p, (report, payload) in zip(reports, zip(reports.values(), payloads.values())):
        check(report["total"]["weight_bytes"][p] == payload, f"{what} {p}: weight bytes {report['total']['weight_bytes'][p]} "
              f"== blob payload {payload}")
    layers = [r for r in reports["f32"]["parts"] if r["part"].startswith("layer ")]
    for p, size in (("f32", 4), ("f16", 2)):
        check(all(r["weight_bytes"][p] == size * n for r, n in zip(layers, layer_params)),
              f"{what} {p}: each layer's bytes == {size} x its parameters")


# What the estimates need from python/staticformer_export/footprint_costs.json, and how close they must come to it.
COSTS_CONFIGS = ("tiny", "small", "narrow")
ESTIMATE_TOLERANCE = 0.10


def check_costs_file() -> None:
    """python/staticformer_export/footprint_costs.json is there, holds every entry the estimates use, and each measured
    whole-encoder count comes back from kernel_costs within ESTIMATE_TOLERANCE."""
    check(kernel_costs.COSTS_FILE.exists(), f"{os.path.relpath(kernel_costs.COSTS_FILE, ROOT)} exists (make footprint writes it)")
    if not kernel_costs.available():
        return
    data = kernel_costs.load()
    for core in kernel_costs.CORES:
        for p in ("f32", "f16", "int8"):
            measured = kernel_costs.measured(core, p)
            missing = [c for c in COSTS_CONFIGS if c not in measured]
            check(not missing, f"costs file: {core} {kernel_costs.MEASURED_PRECISION[p]} measured on "
                  f"{', '.join(COSTS_CONFIGS)}" + (f" (missing {', '.join(missing)})" if missing else ""))
            what = f"{core} {kernel_costs.MEASURED_PRECISION[p]}"
            for config, entry in measured.items():
                kernels = sum(entry["kernels"].values())
                check(kernels == entry["total"], f"costs file: {what} {config}: kernels sum to the total")
                estimate = kernel_costs.estimate(kernel_costs.config_ops(config), core, p)
                check(abs(estimate / entry["total"] - 1) <= ESTIMATE_TOLERANCE,
                      f"{config} {what}: estimate {estimate:,.0f} vs measured {entry['total']:,} "
                      f"({estimate / entry['total'] - 1:+.2%}, within {ESTIMATE_TOLERANCE:.0%})")
    check(set(data["configs"]) >= set(COSTS_CONFIGS), "costs file: the shapes of " + ", ".join(COSTS_CONFIGS))


def check_report_estimates(name: str, report: dict) -> None:
    """The export report's estimates of a reference configuration are kernel_costs' of the same
    configuration in the costs file (the estimate the file was checked against)."""
    for core in kernel_costs.CORES:
        for p in ("f32", "f16", "int8"):
            got = report["total"]["estimated_instructions"][core][p]
            want = round(kernel_costs.estimate(kernel_costs.config_ops(name), core, p))
            check(got == want, f"{name} {core} {p}: the report's estimate {got:,} == kernel_costs' {want:,}")


def main() -> int:
    torch.manual_seed(5)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # A model with a feature projection and a head: every part has MACs or parameters.
        model = TransformerClassifier(d_model=16, heads=2, d_ff=24, layers=3, seq_len=9, input="features",
                                      features=5, positions="learned", cls_token=True, embedding_norm=True,
                                      pooling="cls", classes=3, norm_first=True, final_norm=True).eval()
        np.save(tmp / "calibration.npy", np.random.default_rng(5).standard_normal((6, 8, 5)).astype("f4"))
        reports, payloads = {}, {}
        for p in ("f32", "f16", "int8"):
            extra = ("--calibration", str(tmp / "calibration.npy")) if p == "int8" else ()
            reports[p], payloads[p] = export(tmp, model, "classifier", p, 128, extra)
        r = reports["f32"]
        params = sum(p.numel() for p in model.parameters())
        check(r["total"]["parameters"] == params, f"model parameters {r['total']['parameters']} == torch {params}")
        layer_params = [sum(p.numel() for p in layer.parameters()) for layer in model.encoder.layers]
        got = [x["parameters"] for x in r["parts"] if x["part"].startswith("layer ")]
        check(got == layer_params, f"per-layer parameters {got} == torch {layer_params}")
        check_bytes("model", reports, payloads, layer_params)
        rows = 9
        macs = torch_macs(model.encoder, rows) + 8 * model.projection.weight.numel() + model.head.weight.numel()
        check(r["total"]["macs"] == macs, f"model MACs {r['total']['macs']} == counted from torch {macs}")
        calibration = reports["int8"]["calibration_report"] or ""
        check("SQNR" in calibration, "int8 report carries the calibration report")

        # The modern blocks: a gated feed-forward's third matrix, grouped-query attention's
        # shorter key and value projections (rotary positions add no multiply-add of a matrix).
        modern = TransformerClassifier(d_model=16, heads=4, d_ff=24, layers=2, seq_len=7, input="tokens", vocab=11,
                                       pooling="mean", classes=3, norm_first=True, activation="silu", glu=True,
                                       rms_norm=True, no_bias=True, rotary="halves", kv_heads=2).eval()
        r, _ = export(tmp, modern, "modern", "f32", 128)
        params = sum(p.numel() for p in modern.parameters())
        check(r["total"]["parameters"] == params, f"modern parameters {r['total']['parameters']} == torch {params}")
        macs = torch_macs(modern.encoder, 7) + modern.head.weight.numel()
        check(r["total"]["macs"] == macs, f"modern MACs {r['total']['macs']} == counted from torch {macs}")

        # The reference configurations as plain encoders: bytes and MACs, and the estimates.
        for name, (d, h, ff, s, n) in (("tiny", (64, 4, 256, 32, 2)), ("small", (128, 4, 512, 64, 4))):
            layer = nn.TransformerEncoderLayer(d, h, ff, batch_first=True, norm_first=True, activation="gelu")
            encoder = nn.TransformerEncoder(layer, n, norm=nn.LayerNorm(d), enable_nested_tensor=False).eval()
            reports, payloads = {}, {}
            for p in ("f32", "f16") if name == "tiny" else ("f32",):
                reports[p], payloads[p] = export(tmp, encoder, name, p, 64, ("--seq-len", str(s)))
            r = reports["f32"]
            params = sum(p.numel() for p in encoder.parameters())
            check(r["total"]["parameters"] == params, f"{name} parameters {r['total']['parameters']} == torch {params}")
            check_bytes(name, reports, payloads, [sum(p.numel() for p in x.parameters()) for x in encoder.layers])
            check(r["total"]["macs"] == torch_macs(encoder, s), f"{name} MACs {r['total']['macs']} == counted from torch")
            if kernel_costs.available():
                check_report_estimates(name, r)
    check_costs_file()
    print("export report:", "FAILED" if failures else "every exact number right, estimates near the measured")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
