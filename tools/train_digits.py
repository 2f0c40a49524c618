#!/usr/bin/env python3
"""Train two small classifiers on scikit-learn's digits and export them for staticformer.

    /usr/bin/python3 tools/train_digits.py [--out data/digits]

The data: sklearn.datasets.load_digits() (1797 images, 8x8, pixel values 0..16), split once with
train_test_split(test_size=0.25, random_state=0, stratify=labels): 1347 training and 450 test
images. Both models are seeded and trained with Adam on the training images only:

  vit     torchvision.models.VisionTransformer(image_size=8, patch_size=2, 2 layers, 4 heads,
          hidden 32, MLP 64, 10 classes) with a one-channel conv_proj; input: pixels / 16;
          40 epochs, Adam 3e-3, cosine schedule
  tokens  staticformer_torch.TransformerClassifier: the 64 pixels as tokens of a 17-word
          vocabulary (the pixel value), sinusoidal positions, 2 pre-norm layers, d_model 16,
          2 heads, mean pooling; 40 epochs, Adam with a one-cycle schedule up to 1e-2

Each is exported by tools/export_pytorch.py in f32, f16 and int8 (int8 calibrated on 256
training images), as headers (digits_<model>[_f16|_int8].hpp) and blobs (.sfwm), beside
digits_test.hpp (the 450 test images and labels, as the C++ examples read them) and
torch_results.json (PyTorch's test predictions and accuracy per model). Deterministic: a second
run writes the same files. Needs python3-torch, python3-torchvision and python3-sklearn.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torchvision
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS.parent / "python"))  # the checkout's staticformer_export package
from staticformer_export.staticformer_torch import TransformerClassifier  # noqa: E402

# (epochs, learning rate, schedule) per model.
TRAINING = {"vit": (40, 3e-3, "cosine"), "tokens": (40, 1e-2, "one_cycle")}
CALIBRATION_IMAGES = 256


def data():
    digits = load_digits()
    x = digits.images.astype(np.int64)  # 0..16
    return train_test_split(x, digits.target, test_size=0.25, random_state=0, stratify=digits.target)


def vit_model() -> nn.Module:
    torch.manual_seed(1)
    m = torchvision.models.VisionTransformer(image_size=8, patch_size=2, num_layers=2, num_heads=4, hidden_dim=32,
                                             mlp_dim=64, num_classes=10)
    m.conv_proj = nn.Conv2d(1, 32, kernel_size=2, stride=2)  # one channel: grey levels
    return m


def tokens_model() -> nn.Module:
    torch.manual_seed(2)
    return TransformerClassifier(d_model=16, heads=2, d_ff=32, layers=2, seq_len=64, input="tokens", vocab=17,
                                 positions="sinusoidal", pooling="mean", classes=10, norm_first=True,
                                 activation="gelu", final_norm=True)


def model_input(kind: str, images: np.ndarray) -> torch.Tensor:
    """vit: float images [n, 1, 8, 8] in [0, 1]; tokens: ids [n, 64]."""
    if kind == "vit":
        return torch.tensor(images, dtype=torch.float32).unsqueeze(1) / 16.0
    return torch.tensor(images.reshape(len(images), 64), dtype=torch.int64)


def train(kind: str, model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> nn.Module:
    epochs, lr, schedule = TRAINING[kind]
    gen = torch.Generator().manual_seed(3)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = len(range(0, len(x), 64))
    if schedule == "cosine":  # stepped per epoch
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    else:  # stepped per batch
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        for i in range(0, len(x), 64):
            batch = order[i:i + 64]
            opt.zero_grad()
            loss_fn(model(x[batch]), y[batch]).backward()
            opt.step()
            if schedule == "one_cycle":
                sched.step()
        if schedule == "cosine":
            sched.step()
    return model.eval()


def export(kind: str, model: nn.Module, calibration: np.ndarray, out: Path, tmp: Path) -> None:
    torch.save(model, tmp / f"{kind}.pt")
    np.save(tmp / f"{kind}_calibration.npy", calibration)
    for precision in ("f32", "f16", "int8"):
        name = f"digits_{kind}" + ("" if precision == "f32" else f"_{precision}")
        cmd = [sys.executable, str(TOOLS / "export_pytorch.py"), "--quiet", "--module", str(tmp / f"{kind}.pt"),
               "--name", name, "--header", str(out / f"{name}.hpp"), "--blob", str(out / f"{name}.sfwm")]
        if precision != "f32":
            cmd += ["--precision", precision]
        if precision == "int8":
            cmd += ["--calibration", str(tmp / f"{kind}_calibration.npy")]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def _byte_array(name: str, values) -> list:
    values = [int(v) for v in values]
    lines = [f"inline constexpr std::uint8_t {name}[] = {{"]
    lines += ["    " + ", ".join(map(str, values[i:i + 30])) + "," for i in range(0, len(values), 30)]
    return lines + ["};"]


def test_set_header(images: np.ndarray, labels: np.ndarray, results: dict) -> str:
    lines = ["// The 450 test images of tools/train_digits.py's split of scikit-learn's digits: pixel",
             "// values 0..16, row by row, their labels, and PyTorch's predictions of each trained model.",
             "// Generated by /usr/bin/python3 tools/train_digits.py (make digits); regenerate rather than edit.",
             "#pragma once", "", "#include <cstdint>", "",
             f"inline constexpr int digits_test_count = {len(images)};",
             "inline constexpr std::uint8_t digits_test_images[][64] = {"]
    for img in images.reshape(len(images), 64):
        lines.append("    {" + ", ".join(str(int(v)) for v in img) + "},")
    lines.append("};")
    lines += _byte_array("digits_test_labels", labels)
    for kind in ("vit", "tokens"):
        lines += _byte_array(f"digits_torch_{kind}", results[kind]["predictions"])
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=TOOLS.parent / "data" / "digits")
    p.add_argument("--models", default="vit,tokens",
                   help="the models to train (the others' results are kept from OUT/torch_results.json)")
    args = p.parse_args()
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    args.out.mkdir(parents=True, exist_ok=True)
    x_train, x_test, y_train, y_test = data()
    previous = args.out / "torch_results.json"
    results = json.loads(previous.read_text()) if previous.exists() else {}
    results.update({"train_images": len(x_train), "test_images": len(x_test)})
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make in (("vit", vit_model), ("tokens", tokens_model)):
            if kind not in args.models.split(","):
                continue
            start = time.time()
            model = train(kind, make(), model_input(kind, x_train), torch.tensor(y_train))
            with torch.no_grad():
                logits = model(model_input(kind, x_test))
            predictions = logits.argmax(dim=1).numpy()
            accuracy = float((predictions == y_test).mean())
            calibration = model_input(kind, x_train[:CALIBRATION_IMAGES]).numpy()
            export(kind, model, calibration, args.out, Path(tmp))
            results[kind] = {"accuracy": accuracy, "predictions": [int(v) for v in predictions]}
            print(f"{kind:7s} test accuracy {100 * accuracy:.2f}% ({time.time() - start:.0f} s)")
    (args.out / "digits_test.hpp").write_text(test_set_header(x_test, y_test, results))
    (args.out / "torch_results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
