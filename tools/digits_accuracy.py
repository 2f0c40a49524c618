#!/usr/bin/env python3
"""The digits accuracy table: the trained models of tools/train_digits.py in every precision, on
the host and under QEMU on Cortex-M4 and Cortex-M55 (firmware_examples/digits_classifier).

    /usr/bin/python3 tools/digits_accuracy.py [--build build/digits] [--cores m4,m55]

Builds the example for each target, runs every image (the QEMU ones through ports/cortex-m/run.sh)
and prints the table the README shows. Fails (exit 1) unless: the f32 predictions equal
PyTorch's on every test image; f16 is within 0.5 points and int8 within 1.5 points of f32; and
each precision's logits hash is the same on every target.
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "firmware_examples" / "digits_classifier"
CORES = {"m4": "cortex-m4", "m55": "cortex-m55"}
MODELS = ("vit", "tokens")
PRECISIONS = ("f32", "f16", "int8")


def build(target: str, out: Path) -> None:
    cmd = ["cmake", "-S", str(EXAMPLE), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release"]
    if target != "host":
        cmd.append(f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'ports' / 'cortex-m' / f'toolchain-{CORES[target]}.cmake'}")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(out), "-j", "2"], check=True, stdout=subprocess.DEVNULL)


def run(target: str, image: Path) -> dict:
    cmd = [str(image)] if target == "host" else [str(ROOT / "ports" / "cortex-m" / "run.sh"), "--timeout", "1200",
                                                 str(image)]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    number = lambda pattern: int(re.search(pattern, text).group(1))  # noqa: E731
    result = {"correct": number(r"accuracy (\d+) /"), "count": number(r"accuracy \d+ / (\d+)"),
              "as_torch": number(r"same prediction as PyTorch \(f32 model\) (\d+) /"),
              "hash": re.search(r"logits hash ([0-9a-f]+)", text).group(1)}
    block = text.split("predictions:", 1)[1].split("accuracy", 1)[0]
    result["predictions"] = "".join(ch for ch in block if ch.isdigit())
    m = re.search(r"instructions per inference (\d+)", text)
    result["instructions"] = int(m.group(1)) if m else None
    return result


def memory(image: Path) -> str:
    """flash / RAM bytes of a firmware image (arm-none-eabi-size: text + data, data + bss)."""
    out = subprocess.run(["arm-none-eabi-size", str(image)], check=True, capture_output=True, text=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    return f"{(text + data) / 1024:.0f} / {(data + bss) / 1024:.0f} KiB"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", type=Path, default=ROOT / "build" / "digits")
    p.add_argument("--cores", default="m4,m55", help="Cortex-M cores to run on (m4, m55)")
    args = p.parse_args()
    targets = ["host"] + [c for c in args.cores.split(",") if c]
    torch = json.loads((ROOT / "data" / "digits" / "torch_results.json").read_text())
    results, sizes = {}, {}
    for target in targets:
        build(target, args.build / target)
        for model in MODELS:
            for precision in PRECISIONS:
                image = args.build / target / (f"digits_{model}_{precision}" + ("" if target == "host" else ".elf"))
                results[target, model, precision] = run(target, image)
                if target != "host":
                    sizes[target, model, precision] = memory(image)

    failures = []
    header = "| model | precision | " + " | ".join(f"accuracy {t}" for t in targets)
    header += " | " + " | ".join(f"instructions / inference {t.upper()}" for t in targets[1:])
    header += " | " + " | ".join(f"flash / RAM {t.upper()}" for t in targets[1:]) + " | logits hash |"
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for model in MODELS:
        n = torch["test_images"]
        lines.append(f"| {model} | PyTorch | {100 * torch[model]['accuracy']:.2f}% |" + " |" * (3 * len(targets) - 2))
        f32 = results["host", model, "f32"]["correct"]
        for precision in PRECISIONS:
            r = [results[t, model, precision] for t in targets]
            accuracy = " | ".join(f"{100 * x['correct'] / x['count']:.2f}%" for x in r)
            counts = " | ".join(f"{x['instructions']:,}" for x in r[1:])
            mem = " | ".join(sizes[t, model, precision] for t in targets[1:])
            hashes = {x["hash"] for x in r}
            lines.append(f"| {model} | {precision} | {accuracy} | {counts} | {mem} | "
                         f"{next(iter(hashes)) if len(hashes) == 1 else 'DIFFERS'} |")
            if len(hashes) != 1:
                failures.append(f"{model} {precision}: logits hashes differ between targets: {hashes}")
            if len({x["correct"] for x in r}) != 1:
                failures.append(f"{model} {precision}: accuracy differs between targets")
            points = 100 * abs(r[0]["correct"] - f32) / n
            if precision == "f32" and any(x["as_torch"] != n for x in r):
                failures.append(f"{model} f32: predictions differ from PyTorch's on "
                                f"{n - min(x['as_torch'] for x in r)} test images")
            if precision == "f16" and points > 0.5:
                failures.append(f"{model} f16: {points:.2f} points from f32 (at most 0.5)")
            if precision == "int8" and points > 1.5:
                failures.append(f"{model} int8: {points:.2f} points from f32 (at most 1.5)")
    print("\n".join(lines))
    for model in MODELS:  # test images whose prediction changes with the precision (host)
        f32 = results["host", model, "f32"]["predictions"]
        for precision in PRECISIONS[1:]:
            other = results["host", model, precision]["predictions"]
            changed = [i for i, (a, b) in enumerate(zip(f32, other)) if a != b]
            print(f"{model} {precision}: prediction differs from f32 on test images {changed or 'none'}")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
