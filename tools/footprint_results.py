"""Footprint: the measured results a run writes into the checkout: the Markdown tables between the
markers of docs/footprint-and-timing.md, and python/staticformer_export/footprint_costs.json, the Cortex-M
instructions per inference per (core, precision, configuration) and their split by kernel, which
python/staticformer_export/kernel_costs.py (the export report's estimates) reads."""

import json
import os
import re
import sys

from footprint_build import ROOT
from footprint_cases import CONFIGS, OPTION_CONFIGS, PRECISIONS, TARGET_BY_NAME

# The configurations of the costs file: the block options' rows are measured for the docs only
# (kernel_costs.py fits classic blocks: its configs hold no option flags).
COST_CONFIGS = {c: s for c, s in CONFIGS.items() if c not in OPTION_CONFIGS}

DOC = os.path.join(ROOT, "docs", "footprint-and-timing.md")
BEGIN = "<!-- begin: written by make footprint -->"
END = "<!-- end: written by make footprint -->"
COSTS = os.path.join(ROOT, "python", "staticformer_export", "footprint_costs.json")
KINDS = ("linear", "scores", "softmax", "context", "layer_norm", "activation", "add", "glue")
COSTS_OPT = "-O2"  # the options the costs file holds
ABOUT = ("Cortex-M instructions per inference (QEMU -icount shift=0, valid_len = seq_len) of the footprint "
         "programs' speed proxy, total and per kernel (glue: the total minus the kernels), with each kernel's "
         "calls. Written by make footprint (tools/footprint.py, ports/footprint/README.md); read by "
         "python/staticformer_export/kernel_costs.py. Do not edit: rerun make footprint (a run with --targets / --configs updates "
         "only the entries it measured).")


def note(msg):
    print("footprint: " + msg, file=sys.stderr, flush=True)


def replace_block(text, block):
    """text with the lines between the BEGIN and END marker lines replaced by block, or None if the
    markers are not there (once each, BEGIN first)."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
    ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return "\n".join(lines[:starts[0] + 1] + ["", block.strip("\n"), ""] + lines[ends[0]:])


def demote(markdown):
    """Headings one level down: the tables sit in a section of the docs page."""
    return "\n".join("#" + ln if re.match(r"#+ ", ln) else ln for ln in markdown.split("\n"))


def write_doc(block, path=None):
    """Rewrites the measured block of the docs page (DOC) with block (its headings demoted); a
    missing page or marker is a note, not an error."""
    block, path = demote(block), path or DOC
    rel = os.path.relpath(path, ROOT)
    if not os.path.exists(path):
        note("%s not found: its tables were not written" % rel)
        return False
    with open(path) as f:
        text = f.read()
    new = replace_block(text, block)
    if new is None:
        note("%s: no single pair of marker lines '%s' ... '%s': its tables were not written" % (rel, BEGIN, END))
        return False
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    note("%s: tables %s" % (rel, "rewritten" if new != text else "unchanged"))
    return True


def config_shape(spec):
    return {"d_model": spec.d_model, "heads": spec.heads, "d_ff": spec.d_ff, "seq_len": spec.seq_len,
            "layers": spec.layers, "norm_first": spec.norm_first, "activation": spec.activation,
            "final_norm": spec.final_norm}


def cost_entry(p):
    """One profile (footprint_build.parse_profile) as the costs file holds it: integers."""
    kernels = {k: int(round(v)) for k, v in p["kernels"].items() if p["calls"].get(k, 0)}
    kernels["glue"] = p["total"] - sum(kernels.values())
    return {"total": p["total"], "kernels": {k: kernels[k] for k in KINDS if k in kernels},
            "calls": {k: p["calls"][k] for k in KINDS if p["calls"].get(k, 0)}}


def backend_name(backend):
    """A Precision's backend in words: reference, a name, or the names and their conditions."""
    if not backend:
        return "reference"
    if isinstance(backend, tuple):
        return backend[1]
    return ", else ".join(name + (" where " + cond if cond else "") for cond, _, name in backend)


def merge_costs(old, prof):
    """The costs file's data: old's entries, those prof measured replaced; entries of cores,
    precisions or configurations that no longer exist dropped."""
    measured = {}
    for core, precs in (old or {}).get("measured", {}).items():
        for prec, cfgs in precs.items():
            for cfg, entry in cfgs.items():
                if core in TARGET_BY_NAME and prec in PRECISIONS and cfg in COST_CONFIGS:
                    measured.setdefault(core, {}).setdefault(prec, {})[cfg] = entry
    for (core, cfg, prec), p in prof.items():
        if "error" not in p and cfg in COST_CONFIGS:
            measured.setdefault(core, {}).setdefault(prec, {})[cfg] = cost_entry(p)
    target_order = list(TARGET_BY_NAME)
    ordered = {core: {prec: {cfg: measured[core][prec][cfg] for cfg in COST_CONFIGS if cfg in measured[core][prec]}
                      for prec in PRECISIONS if prec in measured[core]}
               for core in sorted(measured, key=target_order.index)}
    return {"about": ABOUT, "options": COSTS_OPT, "kinds": list(KINDS),
            "backends": {p: backend_name(PRECISIONS[p].backend) for p in PRECISIONS},
            "configs": {c: config_shape(s) for c, s in COST_CONFIGS.items()}, "measured": ordered}


def costs_text(data):
    """JSON with one line per entry's total, kernels and calls (short diffs when a kernel changes)."""
    out = ["{"]
    head = [k for k in data if k != "measured"]
    for k in head:
        out.append("  %s: %s," % (json.dumps(k), json.dumps(data[k])))
    out.append('  "measured": {')
    cores = list(data["measured"].items())
    for ci, (core, precs) in enumerate(cores):
        out.append("    %s: {" % json.dumps(core))
        for pi, (prec, cfgs) in enumerate(precs.items()):
            out.append("      %s: {" % json.dumps(prec))
            for gi, (cfg, e) in enumerate(cfgs.items()):
                out.append("        %s: {" % json.dumps(cfg))
                out.append('          "total": %d,' % e["total"])
                out.append('          "kernels": %s,' % json.dumps(e["kernels"]))
                out.append('          "calls": %s' % json.dumps(e["calls"]))
                out.append("        }" + ("," if gi + 1 < len(cfgs) else ""))
            out.append("      }" + ("," if pi + 1 < len(precs) else ""))
        out.append("    }" + ("," if ci + 1 < len(cores) else ""))
    out += ["  }", "}"]
    return "\n".join(out) + "\n"


def write_costs(prof, opt, path=None):
    """Updates the costs file (COSTS) with the entries of prof (measured at opt, which must be
    COSTS_OPT)."""
    path = path or COSTS
    rel = os.path.relpath(path, ROOT)
    if opt != COSTS_OPT:
        note("%s not updated: it holds %s costs, this run measured %s" % (rel, COSTS_OPT, opt))
        return False
    if not any("error" not in p for p in prof.values()):
        note("%s not updated: this run measured no Cortex-M speed proxy" % rel)
        return False
    old = None
    if os.path.exists(path):
        try:
            with open(path) as f:
                old = json.load(f)
        except ValueError as e:
            note("%s unreadable (%s): written afresh" % (rel, e))
    text = costs_text(merge_costs(old, prof))
    assert json.loads(text) is not None
    with open(path, "w") as f:
        f.write(text)
    n = sum(1 for p in prof.values() if "error" not in p)
    note("%s: %d entries updated" % (rel, n))
    return True
