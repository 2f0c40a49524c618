#!/usr/bin/env python3
"""Writes model/: a small seeded token classifier (untrained: the example checks bytes, not
accuracy; each layer drawn on its own) exported by tools/export_pytorch.py in f32, f16, int8 and a16w8,
each with its C API (--c-api cmodel_<precision>). Deterministic. Run with /usr/bin/python3
(torch) from anywhere:

    /usr/bin/python3 firmware_examples/c_classifier/make_model.py
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

HERE = Path(__file__).resolve().parent
TOOLS = HERE.parent.parent / "tools"
sys.path.insert(0, str(HERE.parent.parent / "python"))  # the checkout's staticformer_export package
from staticformer_export.staticformer_torch import TransformerClassifier  # noqa: E402


def main() -> int:
    torch.manual_seed(23)
    model = TransformerClassifier(d_model=16, heads=2, d_ff=32, layers=2, seq_len=17, input="tokens", vocab=17,
                                  positions="sinusoidal", cls_token=True, pooling="cls", classes=4,
                                  norm_first=True, activation="gelu", final_norm=True).eval()
    # nn.TransformerEncoder deep-copies one layer: draw every parameter of each layer anew, so
    # that no two layers are equal (tests/distinct_layers_test.py), and no bias or LayerNorm
    # parameter is 0 or 1 (the byte checks cover them too).
    with torch.no_grad():
        for layer in model.encoder.layers:
            for name, p in layer.named_parameters():
                if name.startswith("norm") and name.endswith("weight"):
                    p.uniform_(0.5, 1.5)
                elif p.dim() >= 2:
                    nn.init.xavier_uniform_(p)
                else:
                    p.normal_(0.0, 0.2)
    out = HERE / "model"
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(model, Path(tmp) / "cmodel.pt")
        np.save(Path(tmp) / "calibration.npy", np.random.default_rng(23).integers(0, 17, size=(64, 16)))
        for precision in ("f32", "f16", "int8", "a16w8"):
            name = f"cmodel_{precision}"
            cmd = [sys.executable, str(TOOLS / "export_pytorch.py"), "--module", str(Path(tmp) / "cmodel.pt"),
                   "--name", name, "--header", str(out / f"{name}.hpp"), "--c-api", name, "--precision", precision]
            if precision in ("int8", "a16w8"):
                cmd += ["--calibration", str(Path(tmp) / "calibration.npy")]
            subprocess.run(cmd, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
