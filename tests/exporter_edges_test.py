#!/usr/bin/env python3
"""The exporter's and the classifier module's edges, as a user meets them: option values checked
with the allowed ones named, dropout for training that eval and the export leave out, a bare
nn.TransformerEncoderLayer exported as a one-layer encoder, --quiet silencing every note, the
hint for a module pickled from a training script's __main__, and the export's self-check
(python/staticformer_export/export_verify.py): right exports pass it in every precision, wrong ones (two layers
swapped, a transposed projection, causal attention dropped) fail it; a16w8 exports above int8's
accuracy, their headers equal to their blobs; and int8 calibration with
each sample's length and key padding mask, so that padding is never calibrated as data. Run with
/usr/bin/python3 (torch)."""

import contextlib
import dataclasses
import io
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
EXPORTER = ROOT / "tools" / "export_pytorch.py"
sys.path.insert(0, str(ROOT / "python"))  # the checkout's staticformer_export package
from staticformer_export import cli, encoder_export, export_verify, model_export  # noqa: E402
from staticformer_export.staticformer_torch import TransformerClassifier  # noqa: E402

from checks import check, failures  # noqa: E402  (tests/checks.py)


def refused(make, *words) -> bool:
    """make() raises ValueError or TypeError whose message has every word."""
    try:
        make()
    except (ValueError, TypeError) as e:
        return all(w in str(e) for w in words)
    return False


def blob_of(tmp: Path, module: nn.Module, name: str, *extra) -> bytes:
    """The f32 blob the exporter writes for module (in this process, --quiet, unchecked)."""
    torch.save(module, tmp / f"{name}.pt")
    argv = ["--module", str(tmp / f"{name}.pt"), "--name", name, "--blob", str(tmp / f"{name}.bin"), "--quiet",
            "--no-verify", *extra]
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(argv) == 0, f"export {argv} failed"
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


def exported(tmp: Path, module: nn.Module, *extra) -> tuple:
    """(exit status, stdout, stderr) of the exporter, in this process, on module saved to a file."""
    torch.save(module, tmp / "checked.pt")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["--module", str(tmp / "checked.pt"), "--name", "checked", "--quiet",
                                      "--header", str(tmp / "checked.hpp"), *extra])
    return status, out.getvalue(), err.getvalue()


def largest_error(stdout: str) -> float:
    m = re.search(r"verify: \S+ through the reference backend .* largest error (\S+) x max", stdout)
    return float(m.group(1)) if m else float("inf")


def check_verified(tmp: Path) -> float:
    """Right exports pass the self-check, in each precision; its numbers are printed. Returns the
    int8 encoder's verified SQNR (check_a16w8 compares with it)."""
    torch.manual_seed(11)
    layer = nn.TransformerEncoderLayer(24, 3, 40, batch_first=True, activation=nn.GELU(approximate="tanh"))
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(24), enable_nested_tensor=False).eval()
    np.save(tmp / "cal.npy", np.random.default_rng(5).standard_normal((24, 9, 24)).astype(np.float32))
    for precision, extra in (("f32", ()), ("f16", ()), ("f32", ("--causal",)),
                             ("int8", ("--calibration", str(tmp / "cal.npy")))):
        status, out, err = exported(tmp, encoder, "--seq-len", "9", "--precision", precision, *extra)
        if precision == "int8":
            ok = status == 0 and re.search(r"verify: int8 against torch on 4 calibration samples: SQNR [0-9.]+ dB", out)
            int8_sqnr = verified_sqnr(out, "int8") if status == 0 else -math.inf
        else:
            ok = status == 0 and largest_error(out) < 1e-6
        last = (out + err).strip().splitlines()[-1:]
        check(bool(ok), f"encoder {precision} {' '.join(extra[:1])}: verified ({last})")
    for extra in ({"rotary": "interleaved", "kv_heads": 1, "glu": True, "activation": "silu", "norm_first": True},
                  {"no_bias": True, "no_norm_bias": True}):  # torch's fast path fails on bias=False
        status, out, err = exported(tmp, classifier(**extra).eval())
        check(status == 0 and largest_error(out) < 1e-6, f"classifier {extra}: verified ({largest_error(out):.2g})")
    return int8_sqnr


def verified_sqnr(out: str, precision: str) -> float:
    m = re.search(rf"verify: {precision} against torch on \d+ calibration samples: SQNR ([0-9.]+) dB", out)
    return float(m.group(1)) if m else -math.inf


def header_equals_blob(tmp: Path, what: str, name: str) -> bool:
    """The exported header's constexpr weights, written as a blob by the library, equal the blob."""
    source = (f'#include "{name}.hpp"\n#include <cstdio>\n#include <vector>\n'
              f"int main() {{ std::vector<unsigned char> b(staticformer::blob::{what}<{name}_config, staticformer::a16w8>);\n"
              f"  if (staticformer::write_blob({name}, b.data(), b.size()) != staticformer::status::ok) return 1;\n"
              f'  std::FILE* f = std::fopen("{tmp / name}.out", "wb"); std::fwrite(b.data(), 1, b.size(), f);\n'
              "  std::fclose(f); return 0; }\n")
    from staticformer_export import cpp
    exe = cpp.compile_program(source, tmp, "-O0", "header check")
    return subprocess.run([str(exe)], cwd=tmp).returncode == 0 and \
        (tmp / f"{name}.out").read_bytes() == (tmp / f"{name}.sfw").read_bytes()


def check_a16w8(tmp: Path, encoder_int8_sqnr: float) -> None:
    """--precision a16w8: encoders and models export and the self-check reports an SQNR at least
    3 dB above int8's on the same calibration samples (int16 activations remove the activations'
    noise; the int8 weights' remains, which dominates these small layers: 16 to 40 inputs); the
    model's header (its encoder's initialiser inside) equals its blob. The encoder is
    check_verified's, on the same calibration file: its int8 SQNR comes from there."""
    torch.manual_seed(11)
    layer = nn.TransformerEncoderLayer(24, 3, 40, batch_first=True, activation=nn.GELU(approximate="tanh"))
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(24), enable_nested_tensor=False).eval()
    status, out, err = exported(tmp, encoder, "--seq-len", "9", "--precision", "a16w8", "--calibration",
                                str(tmp / "cal.npy"))
    sqnr = verified_sqnr(out, "a16w8") if status == 0 else -math.inf
    check(sqnr >= encoder_int8_sqnr + 3.0, f"encoder a16w8: verified, SQNR {sqnr:.1f} dB (int8 {encoder_int8_sqnr:.1f} dB)")
    model = classifier().eval()
    np.save(tmp / "model_cal.npy", np.random.default_rng(6).standard_normal((24, 8, 3)).astype(np.float32))
    sqnr = {}
    for precision in ("int8", "a16w8"):
        status, out, err = exported(tmp, model, "--precision", precision, "--blob", str(tmp / "checked.sfw"),
                                    "--calibration", str(tmp / "model_cal.npy"))
        sqnr[precision] = verified_sqnr(out, precision) if status == 0 else -math.inf
    check(sqnr["a16w8"] >= sqnr["int8"] + 3.0,
          f"model a16w8: verified, SQNR {sqnr['a16w8']:.1f} dB (int8 {sqnr['int8']:.1f} dB)")
    check("staticformer::a16w8> checked = {" in (tmp / "checked.hpp").read_text() and
          header_equals_blob(tmp, "model_size", "checked"), "model a16w8: the header equals the blob")


def check_wrong_exports_fail(tmp: Path) -> None:
    """Each wrong reading of the weights is caught: exit 2, the worst output named."""
    torch.manual_seed(12)
    layer = nn.TransformerEncoderLayer(24, 3, 40, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    with torch.no_grad():
        for p in encoder.parameters():  # the copies of the layer differ
            p.normal_(0.0, 0.3)
    right = cli.extract_module  # as the command line calls it

    def swapped(module, seq_len):
        spec, w = right(module, seq_len)
        w.layers.reverse()
        return spec, w

    def transposed(module, seq_len):
        spec, w = right(module, seq_len)
        w.layers[0]["out_w"] = np.ascontiguousarray(w.layers[0]["out_w"].T)
        return spec, w

    for what, wrong in (("two layers swapped", swapped), ("a transposed output projection", transposed)):
        cli.extract_module = wrong
        try:
            status, out, err = exported(tmp, encoder, "--seq-len", "7")
        finally:
            cli.extract_module = right
        check(status == 2 and "the export does not compute the module" in err and "row" in err,
              f"{what}: the export fails ({err.strip()[:160]})")
    status, out, err = exported(tmp, encoder, "--seq-len", "7", "--blob", str(tmp / "plain.sfwb"))
    spec = dataclasses.replace(encoder_export.spec_from_module(encoder, 7), causal=True)
    config = encoder_export.config_using("checked", spec)
    try:
        export_verify.verify_encoder(encoder, spec, config, "checked", "f32", tmp / "plain.sfwb")
        caught = False
    except export_verify.VerifyError:
        caught = True
    check(status == 0 and caught, "a causal check of a non-causal export fails")

    right_model = model_export.extract_model

    def swapped_model(module, seq_len=None, parts=None):
        spec, w = right_model(module, seq_len, parts)
        w.encoder.layers.reverse()
        return spec, w

    model = classifier().eval()
    with torch.no_grad():
        for p in model.encoder.parameters():  # the copies of the layer differ
            p.normal_(0.0, 0.3)
    model_export.extract_model = swapped_model
    try:
        status, out, err = exported(tmp, model)
    finally:
        model_export.extract_model = right_model
    check(status == 2 and "logits of sample" in err,
          f"a model with two layers swapped: the export fails ({err.strip()[:160]})")


def check_calibration_extents(tmp: Path) -> None:
    """A .npz with lengths: what lies past them is never read (garbage there gives the bytes of
    zeros there); the report counts the samples and the tokens seen (valid, not masked)."""
    torch.manual_seed(13)
    model = classifier().eval()
    g = np.random.default_rng(8)
    x = g.standard_normal((16, 8, 3)).astype(np.float32)
    lengths = g.integers(2, 9, 16)
    mask = g.random((16, 8)) < 0.25
    zero, junk = x.copy(), x.copy()
    for i, n in enumerate(lengths):
        zero[i, n:], junk[i, n:] = 0.0, 1e4
    blobs, reports = {}, {}
    for name, arrays in (("zero", dict(inputs=zero, lengths=lengths)), ("junk", dict(inputs=junk, lengths=lengths)),
                         ("masked", dict(inputs=zero, lengths=lengths, key_padding_mask=mask))):
        np.savez(tmp / f"{name}.npz", **arrays)
        status, out, err = exported(tmp, model, "--precision", "int8", "--calibration", str(tmp / f"{name}.npz"),
                                    "--blob", str(tmp / f"{name}.sfwm"), "--no-verify")
        blobs[name], reports[name] = (tmp / f"{name}.sfwm").read_bytes() if status == 0 else b"", out
    check(blobs["zero"] and blobs["zero"] == blobs["junk"], "calibration never reads past each sample's length")
    seen = int(lengths.sum())
    kept = int(sum((~mask[i, :n]).sum() for i, n in enumerate(lengths)))
    check(f"calibrated on 16 samples, {seen} tokens (valid)\n" in reports["zero"],
          f"the report counts {seen} valid tokens")
    check(f"calibrated on 16 samples, {kept} tokens (valid, not masked)" in reports["masked"],
          f"the report counts {kept} valid, kept tokens")
    np.savez(tmp / "bad.npz", inputs=zero, lengths=lengths + 1)
    status, out, err = exported(tmp, model, "--precision", "int8", "--calibration", str(tmp / "bad.npz"))
    check(status == 2 and "lengths must be 16 integers in 1..8" in err, "lengths past the inputs are refused")


# ---- modules written the way people write them: other names, other layouts ----------------------

class IMUClassifier(nn.Module):
    """A 6-axis sensor window: projection, CLS and learned positions as parameters, an encoder,
    a LayerNorm on the CLS row, a head."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 32)
        self.pos = nn.Parameter(torch.randn(1, 33, 32) * 0.1)
        self.cls = nn.Parameter(torch.randn(1, 1, 32))
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.1), 2)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 8)

    def forward(self, x):
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.proj(x)], dim=1) + self.pos
        return self.head(self.norm(self.enc(h)[:, 0]))


class TokenMeanClassifier(nn.Module):
    """Scaled embeddings, a sinusoid buffer sliced to the input's length, a list of pre-norm
    layers, a norm, mean pooling, dropout."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 24)
        pos, i = torch.arange(16.0, dtype=torch.float64)[:, None], torch.arange(0, 24, 2, dtype=torch.float64)
        table = torch.zeros(16, 24, dtype=torch.float64)
        table[:, 0::2], table[:, 1::2] = torch.sin(pos / 10000 ** (i / 24)), torch.cos(pos / 10000 ** (i / 24))
        self.register_buffer("pe", table.float())
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(24, 3, 48, batch_first=True, norm_first=True)
                                     for _ in range(2)])
        self.ln, self.drop, self.out = nn.LayerNorm(24), nn.Dropout(0.1), nn.Linear(24, 4)

    def forward(self, ids):
        h = self.drop(self.emb(ids) * math.sqrt(24) + self.pe[: ids.shape[1]])
        for layer in self.layers:
            h = layer(h)
        return self.out(self.ln(h).mean(dim=1))


class PatchClassifier(nn.Module):
    """ViT-style: Conv2d patches, CLS, learned positions, an encoder with its own final norm."""

    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, 16, kernel_size=4, stride=4)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 16))
        self.pos_embed = nn.Parameter(torch.randn(1, 17, 16) * 0.1)
        layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True, norm_first=True, activation="gelu")
        self.blocks = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16))
        self.fc = nn.Linear(16, 5)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(img.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.fc(self.blocks(x)[:, 0])


class SensorMeanClassifier(nn.Module):
    """Norms with epsilons of their own around torch's layers at 1e-5: an embedding LayerNorm at
    1e-12 (BERT's), the encoder's final norm and a norm of the mean-pooled row at 1e-6 (timm's
    fc_norm)."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(5, 24)
        self.pos = nn.Parameter(torch.randn(1, 12, 24) * 0.1)
        self.emb_ln = nn.LayerNorm(24, eps=1e-12)
        layer = nn.TransformerEncoderLayer(24, 4, 40, batch_first=True, norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(24, eps=1e-6))
        self.fc_norm, self.classifier = nn.LayerNorm(24, eps=1e-6), nn.Linear(24, 3)

    def forward(self, x):
        h = self.emb_ln(self.inp(x) + self.pos)
        return self.classifier(self.fc_norm(self.encoder(h).mean(dim=1)))


class Untraceable(IMUClassifier):
    def forward(self, x):
        if x.shape[1] > 32:  # Python control flow on the input: torch.fx cannot trace it
            raise ValueError("a window of at most 32 frames")
        return super().forward(x)


class Unsupported(IMUClassifier):
    def forward(self, x):
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.proj(x)], dim=1) + self.pos
        return self.head(torch.tanh(self.enc(h)[:, 0]))


def check_own_modules(tmp: Path) -> None:
    """Modules of the user's own export as they are, recognised from their operations, and verify
    themselves; an operation the library does not run is refused by name."""
    torch.manual_seed(14)
    for module, want in ((IMUClassifier(), "feature_input<6>, learned_positions, cls_token, cls_pooling, pooled_norm"),
                         (SensorMeanClassifier(), "final_norm, final_norm_eps<1, -6>>, feature_input<5>, "
                          "learned_positions, embedding_norm, embedding_norm_eps<1, -12>, mean_pooling, pooled_norm, "
                          "pooled_norm_eps<1, -6>"),
                         (TokenMeanClassifier(), "token_input<30>, scale_embedding, sinusoidal_positions, mean_pooling"),
                         (PatchClassifier(), "patch_input<3, 16, 16, 4>, learned_positions, cls_token, cls_pooling")):
        status, out, err = exported(tmp, module.eval())
        check(status == 0 and want in out and largest_error(out) < 1e-6,
              f"{type(module).__name__}: exported as {want}, verified ({largest_error(out):.2g}) {err.strip()[:200]}")
    encoder = SensorMeanClassifier().encoder.eval()
    status, out, err = exported(tmp, encoder, "--seq-len", "12")
    check(status == 2 and "final norm eps 1e-06 != layer norm eps 1e-05" in err and "model" in err,
          f"an encoder alone whose final norm has its own epsilon: refused, the model named ({err.strip()[:160]})")
    status, out, err = exported(tmp, Unsupported().eval())
    check(status == 2 and "call_function tanh" in err, f"an unsupported operation is named ({err.strip()[:160]})")
    module = Untraceable().eval()
    status, out, err = exported(tmp, module)
    check(status == 2 and "torch.fx cannot trace" in err and "--parts" in err, "an untraceable forward: --parts named")
    named = "front=proj,cls=cls,positions=pos,encoder=enc,final_norm=norm,head=head"
    status, out, err = exported(tmp, module, "--parts", named + ",pooling=cls")
    check(status == 0 and largest_error(out) < 1e-6, f"--parts: exported and verified ({largest_error(out):.2g})")
    status, out, err = exported(tmp, module, "--parts", named + ",pooling=mean")
    check(status == 2 and "does not compute the module" in err, "--parts naming the wrong pooling: the check fails")


def main() -> int:
    os.environ.pop("STATICFORMER_PROGRESS", None)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        check_options()
        check_dropout(tmp)
        check_one_layer(tmp)
        check_quiet(tmp)
        check_pickle_hint(tmp)
        check_a16w8(tmp, check_verified(tmp))
        check_wrong_exports_fail(tmp)
        check_calibration_extents(tmp)
        check_own_modules(tmp)
    print("exporter edges:", "FAILED" if failures else "all as documented")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
