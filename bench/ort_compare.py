#!/usr/bin/env python3
"""make bench's side-by-side table of the precisions, and ONNX Runtime on the same models.

    /usr/bin/python3 bench/ort_compare.py BUILD_DIR [--configs tiny,small,mini,wide] [--repetitions N] [--rounds R]

Per reference configuration: the library's f32, f16, int8 and a16w8 (precision_table.cpp: one
thread, one sequence, the default backend of the best build this CPU runs) - time per forward
pass and SQNR against f32 on held-out standard-normal inputs, of the output and of the branch
(output - input); and, where Node.js and onnxruntime-node can be installed from the npm registry,
ONNX Runtime's f32 and dynamic int8 (bench/ort_graphs.py: the same weights, the graph
quantize_dynamic emits) on the same inputs, one thread (bench/ort_run.js). The library's runs and
ONNX Runtime's alternate, --rounds times; the tables take the median of the rounds' medians.
Without npm, python3-onnx or the registry, the ONNX Runtime columns say why and are skipped.
make_results.py calls section() for RESULTS.md; run alone, this prints the section.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from staticformer_export.encoder_schema import REFERENCE_CONFIGS  # noqa: E402

ORT_VERSION = "1.30.0"
PRECISIONS = ["f32", "f16", "int8", "a16w8"]
AVX512_VNNI = {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_vnni", "avx512vbmi"}


def cpu_flags():
    text = Path("/proc/cpuinfo").read_text()
    line = next((l for l in text.splitlines() if l.startswith("flags")), "")
    return set(line.split(":", 1)[1].split()) if ":" in line else set()


def precision_binary(build):
    """The precision_table build this CPU runs best, and its instruction set."""
    isa = "avx512vnni" if AVX512_VNNI <= cpu_flags() else "avx2"
    return Path(build) / "bench" / f"precision_table_{isa}", isa


def shape_of(name):
    s = REFERENCE_CONFIGS[name]
    return [s.d_model, s.heads, s.d_ff, s.seq_len, s.layers]


def install_ort(work):
    """onnxruntime-node's module directory under work/node, or None and why not. --ignore-scripts:
    the package's own script fetches optional GPU binaries from NuGet; the CPU binaries it
    needs are in the npm package itself."""
    module = work / "node" / "node_modules" / "onnxruntime-node"
    if (module / "package.json").exists():
        return module, None
    if not shutil.which("node") or not shutil.which("npm"):
        return None, "Node.js and npm are not installed (Debian: `apt-get install nodejs npm`)"
    cmd = ["npm", "install", "--prefix", str(work / "node"), "--no-audit", "--no-fund", "--ignore-scripts",
           f"onnxruntime-node@{ORT_VERSION}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not (module / "package.json").exists():
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"`{' '.join(cmd)}` failed: {tail}"
    return module, None


def build_graphs(work, configs):
    """f32.onnx and int8.onnx per configuration, identity.onnx, shapes.json; None or why not."""
    try:
        import onnx
        from onnx import TensorProto, helper
        import ort_graphs
    except ImportError as e:
        return f"python3-onnx is not installed ({e}; Debian: `apt-get install python3-onnx`)"
    for name in configs:
        for kind in ("f32", "int8"):
            model = ort_graphs.encoder(shape_of(name), work / name / "weights.f32", kind == "int8")
            onnx.save(model, str(work / name / f"{kind}.onnx"))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])
    identity = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity", [x], [y]),
                                 opset_imports=[helper.make_opsetid("", ort_graphs.OPSET)])
    identity.ir_version = 8
    onnx.save(identity, str(work / "identity.onnx"))
    (work / "shapes.json").write_text(json.dumps({name: shape_of(name) for name in configs}))
    return None


def json_lines(text):
    return [json.loads(l) for l in text.splitlines() if l.startswith("{")]


def sqnr(work, name, graph):
    """Output and branch SQNR of ONNX Runtime's outputs against the library's f32 ones."""
    import numpy as np
    x = np.fromfile(work / name / "input.f32", dtype=np.float32).astype(np.float64)
    ref = np.fromfile(work / name / "output.f32", dtype=np.float32).astype(np.float64)
    out = np.fromfile(work / name / f"{graph}.out.f32", dtype=np.float32).astype(np.float64)
    db = lambda r, o: 10 * np.log10(np.sum(r * r) / np.sum((r - o) ** 2))
    return db(ref, out), db(ref - x, out - x)


def measure(build, configs, repetitions, rounds):
    """{(config, column): {"us": [...], "db": (output, branch)}}, ONNX Runtime's version or why not,
    and the library's instruction set."""
    binary, isa = precision_binary(build)
    if not binary.exists():
        return None, f"{binary} is not built (make bench builds it)", None, isa
    work = Path(build).resolve() / "bench" / "ort"  # absolute: node resolves ORT_NODE_MODULE from its script
    work.mkdir(parents=True, exist_ok=True)
    cells, ort_note = {}, None
    ours = [str(binary), "--configs", ",".join(configs), "--repetitions", str(repetitions)]
    for row in json_lines(subprocess.run(ours + ["--export", str(work)], check=True, capture_output=True, text=True).stdout):
        cells[(row["config"], row["precision"])] = {"us": [row["us"]], "db": (row.get("output_db"), row.get("branch_db"))}
    module, ort_note = install_ort(work)
    if module and not ort_note:
        ort_note = build_graphs(work, configs)
    env = dict(os.environ, ORT_NODE_MODULE=str(module)) if module else None
    for r in range(rounds):
        if r > 0:
            for row in json_lines(subprocess.run(ours, check=True, capture_output=True, text=True).stdout):
                cells[(row["config"], row["precision"])]["us"].append(row["us"])
        if ort_note:
            continue
        run = subprocess.run(["node", str(HERE / "ort_run.js"), str(work), ",".join(configs), str(repetitions)],
                             capture_output=True, text=True, env=env)
        if run.returncode != 0:
            ort_note = f"bench/ort_run.js failed: {run.stderr.strip()[-300:]}"
            continue
        for row in json_lines(run.stdout):
            cell = cells.setdefault((row["config"], "ort " + row["graph"]), {"us": [], "version": row["version"]})
            cell["us"].append(row["us"])
    if not ort_note:
        for name in configs:
            for graph in ("f32", "int8"):
                cells[(name, "ort " + graph)]["db"] = sqnr(work, name, graph)
    version = next((c.get("version") for c in cells.values() if c.get("version")), None)
    return cells, (ort_note if ort_note else None), version, isa


def fmt_us(us):
    return f"{us:.1f} us" if us < 1000 else f"{us / 1000:.2f} ms"


def section(build, configs=None, repetitions=15, rounds=3):
    configs = configs or list(REFERENCE_CONFIGS)
    cells, ort_note, version, isa = measure(build, configs, repetitions, rounds)
    if cells is None:
        return ["## Precisions side by side, and ONNX Runtime", "", f"Skipped: {ort_note}.", ""]
    has_ort = ort_note is None
    binding = statistics.median(cells[(configs[0], "ort identity")]["us"]) if has_ort else 0.0
    # ONNX Runtime's times less its binding's own cost per run (measured on an identity graph)
    t = lambda c, col: statistics.median(cells[(c, col)]["us"]) - (binding if col.startswith("ort") else 0.0)
    lines = ["## Precisions side by side, and ONNX Runtime", "",
             f"The library's four precisions (`precision_table_{isa}`: the default backend, one thread, one sequence) "
             + (f"and ONNX Runtime {version} through onnxruntime-node (one thread; `bench/ort_graphs.py`: the same weights, "
                "f32 and the dynamic int8 graph `quantize_dynamic` emits - MatMulInteger on per-run uint8 inputs and "
                "per-tensor int8 weights, the rest float) " if has_ort else "")
             + "on the reference configurations; the library's runs and ONNX Runtime's alternate "
             f"({rounds} rounds of {repetitions} interleaved repetitions, the median). "
             "SQNR against the library's f32 encoder on 4 held-out standard-normal sequences (the weights "
             "calibrated on 4 others: tests/common/held_out.hpp, the test suite's bounds), of the output and of "
             "the branch (output - input).", ""]
    if not has_ort:
        lines += [f"ONNX Runtime: skipped - {ort_note}.", ""]
    cols = PRECISIONS + (["ort f32", "ort int8"] if has_ort else [])
    head = ["config", "f32", "f16", "int8", "a16w8"] + (["ORT f32", "ORT int8", "ORT int8 / int8", "ORT f32 / f32"] if has_ort else [])
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in configs:
        row = [f"{c} ({'/'.join(map(str, shape_of(c)))})"] + [fmt_us(t(c, col)) for col in cols]
        if has_ort:
            row += [f"{t(c, 'ort int8') / t(c, 'int8'):.2f}", f"{t(c, 'ort f32') / t(c, 'f32'):.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    if has_ort:
        lines += ["", f"ONNX Runtime's times are its runs' less {fmt_us(binding)}, what the Node.js binding costs per run "
                  "by itself (an identity graph of one value, timed beside them). A ratio above 1: the library is faster."]
    lines += ["", "SQNR, output / branch (dB):", ""]
    db_cols = ["f16", "int8", "a16w8"] + (["ort int8", "ort f32"] if has_ort else [])
    head = ["config", "f16", "int8", "a16w8"] + (["ORT int8", "ORT f32"] if has_ort else [])
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in configs:
        lines.append("| " + " | ".join([c] + ["%.1f / %.1f" % cells[(c, col)]["db"] for col in db_cols]) + " |")
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--configs", default=",".join(REFERENCE_CONFIGS))
    ap.add_argument("--repetitions", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print("\n".join(section(args.build, args.configs.split(","), args.repetitions, args.rounds)))


if __name__ == "__main__":
    main()
