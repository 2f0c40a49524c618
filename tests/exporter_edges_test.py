#!/usr/bin/env python3
"""The exporter's and the classifier module's edges, as a user meets them: option values checked
with the allowed ones named, dropout for training that eval and the export leave out, a bare
nn.TransformerEncoderLayer exported as a one-layer encoder, --quiet silencing every note, and
the hint for a module pickled from a training script's __main__. Run with /usr/bin/python3 (torch)."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
EXPORTER = ROOT / "tools" / "export_pytorch.py"
sys.path.insert(0, str(ROOT / "tools"))
import export_pytorch  # noqa: E402
from staticformer_torch import TransformerClassifier  # noqa: E402

failures = []


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def refused(make, *words) -> bool:
    """make() raises ValueError or TypeError whose message has every word."""
    try:
        make()
    except (ValueError, TypeError) as e:
        return all(w in str(e) for w in words)
    return False


def blob_of(tmp: Path, module: nn.Module, name: str, *extra) -> bytes:
    """The f32 blob the exporter writes for module (in this process, --quiet)."""
    torch.save(module, tmp / f"{name}.pt")
    argv = ["--module", str(tmp / f"{name}.pt"), "--name", name, "--blob", str(tmp / f"{name}.bin"), "--quiet", *extra]
    with contextlib.redirect_stdout(io.StringIO()):
        assert export_pytorch.main(argv) == 0, f"export {argv} failed"
    return (tmp / f"{name}.bin").read_bytes()


def run_exporter(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXPORTER), *argv], capture_output=True, text=True)


def classifier(**extra) -> TransformerClassifier:
    return TransformerClassifier(d_model=16, heads=4, d_ff=24, layers=2, seq_len=9, input="features", features=3,
                                 cls_token=True, positions="learned", pooling="cls", classes=4, **extra)


def check_options() -> None:
    check(refused(lambda: classifier(activation="swish"), "activation='swish'", "silu", "gelu_tanh"),
          "a bad activation is refused with the allowed values named")
    check(refused(lambda: classifier(dropout=1.0), "dropout=1.0", "0 <= p < 1"), "dropout 1.0 is refused")
    check(refused(lambda: classifier(dropout=True), "dropout=True"), "dropout True is refused")
    check(refused(lambda: classifier(dropuot=0.1), "unknown option dropuot", "dropout"),
          "a misspelt option is refused with the options named")


def check_dropout(tmp: Path) -> None:
    """Dropout changes training passes only: in eval, a model equals its twin without dropout
    (the same state_dict), and both export the same bytes."""
    x = torch.randn(5, 8, 3)
    for extra in ({}, {"rotary": "halves", "kv_heads": 2}):  # MultiheadAttention, and the written-out attention
        torch.manual_seed(7)
        model = classifier(dropout=0.3, **extra)
        twin = classifier(**extra)
        twin.load_state_dict(model.state_dict())
        model.train()
        check(not torch.equal(model(x), model(x)), f"dropout {extra}: two training passes differ")
        model.eval(), twin.eval()
        with torch.no_grad():
            check(torch.equal(model(x), twin(x)), f"dropout {extra}: eval equals the twin without dropout")
        check(blob_of(tmp, model, "dropped") == blob_of(tmp, twin, "kept"), f"dropout {extra}: the same blob")


def check_one_layer(tmp: Path) -> None:
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True, norm_first=True).eval()
    encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).eval()
    check(blob_of(tmp, layer, "layer", "--seq-len", "5") == blob_of(tmp, encoder, "encoder", "--seq-len", "5"),
          "an nn.TransformerEncoderLayer exports as the one-layer encoder of it")


def check_quiet(tmp: Path) -> None:
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32), 1, enable_nested_tensor=False).eval()
    torch.save(encoder, tmp / "seq_first.pt")
    argv = ("--module", str(tmp / "seq_first.pt"), "--name", "m", "--seq-len", "5", "--blob", str(tmp / "m.bin"))
    loud, quiet = run_exporter(*argv), run_exporter(*argv, "--quiet")
    check(loud.returncode == 0 and "note: the encoder was built with batch_first=False" in loud.stderr,
          "a batch_first=False encoder gets its note")
    check(quiet.returncode == 0 and quiet.stderr == "", f"--quiet silences it (stderr {quiet.stderr!r})")


def check_pickle_hint(tmp: Path) -> None:
    script = tmp / "train.py"
    script.write_text("import torch\nfrom torch import nn\n\n\nclass IMUTransformer(nn.Module):\n"
                      "    def __init__(self):\n        super().__init__()\n"
                      "        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)\n\n\n"
                      f"torch.save(IMUTransformer(), {str(tmp / 'imu.pt')!r})\n")
    subprocess.run([sys.executable, str(script)], check=True)
    r = run_exporter("--module", str(tmp / "imu.pt"), "--name", "m", "--blob", str(tmp / "imu.bin"))
    check(r.returncode == 2 and "'__main__.Name'" in r.stderr and "--state-dict" in r.stderr,
          "a module pickled from a script's __main__ is refused with the way out")


def main() -> int:
    os.environ.pop("STATICFORMER_PROGRESS", None)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        check_options()
        check_dropout(tmp)
        check_one_layer(tmp)
        check_quiet(tmp)
        check_pickle_hint(tmp)
    print("exporter edges:", "FAILED" if failures else "all as documented")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
