#!/usr/bin/env python3
"""Write the demo model: examples/demo/demo_model.hpp and examples/demo/demo_model.sfwb.

A seeded random torch.nn.TransformerEncoder in the tiny reference configuration
(python/staticformer_export/encoder_schema.py: d_model 64, 4 heads, d_ff 256, 2 layers, pre-norm, GELU, final
LayerNorm) is saved with torch.save and exported for its seq_len, 32, by
tools/encoder_export.py, as the C++ header `demo_model` (with `demo_model_config`) and as a
weights blob. Every layer's weight matrices and feed-forward biases are drawn on their own
(tests/distinct_layers_test.py). Run with the Python that has torch (1.13 or later):

    /usr/bin/python3 tools/make_demo_model.py      (make demo-model)

The output is deterministic: running it twice gives byte-identical files.
"""

import math
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent / "python"))  # the checkout's staticformer_export package
from staticformer_export import encoder_export  # noqa: E402  (the exporter, reused)
from staticformer_export.encoder_schema import REFERENCE_CONFIGS  # noqa: E402

SEED = 2024
SPEC = REFERENCE_CONFIGS["tiny"]
OUT = TOOLS.parent / "examples" / "demo"


def build_encoder() -> nn.TransformerEncoder:
    torch.manual_seed(SEED)
    layer = nn.TransformerEncoderLayer(SPEC.d_model, SPEC.heads, SPEC.d_ff, dropout=0.0,
                                       activation=SPEC.activation, layer_norm_eps=SPEC.eps,
                                       batch_first=True, norm_first=SPEC.norm_first)
    final = nn.LayerNorm(SPEC.d_model, eps=SPEC.eps) if SPEC.final_norm else None
    encoder = nn.TransformerEncoder(layer, SPEC.layers, norm=final).eval()
    with torch.no_grad():  # TransformerEncoder deep-copies one layer: re-draw so layers differ
        for p in encoder.parameters():
            if p.dim() == 2:
                nn.init.xavier_uniform_(p)
        for layer in encoder.layers:  # and the feed-forward biases, as nn.Linear draws them
            for linear in (layer.linear1, layer.linear2):
                bound = 1.0 / math.sqrt(linear.in_features)
                nn.init.uniform_(linear.bias, -bound, bound)
    return encoder


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "demo_model.pt"
        torch.save(build_encoder(), saved)
        spec, weights = encoder_export.extract_module(encoder_export.load_module(saved), SPEC.seq_len)
    source = f"a seeded random encoder (/usr/bin/python3 tools/make_demo_model.py, seed {SEED})"
    print(encoder_export.export(spec, weights, "demo_model", source,
                                header=OUT / "demo_model.hpp", blob=OUT / "demo_model.sfwb"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
