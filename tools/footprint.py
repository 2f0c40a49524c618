#!/usr/bin/env python3
"""staticformer footprint: code, weights, static RAM, stack and heap-freedom of forward() on
every target, plus the Cortex-M speed proxy (instructions per inference, split by kernel).

    tools/footprint.sh                      # everything: builds into build/footprint/, prints Markdown
    tools/footprint.py --targets cortex-m4,cortex-m7 --configs tiny --include /tmp/x/include \\
        --build-dir /tmp/fp-x               # e.g. the speed proxy of a modified copy of the headers

Standard library only; needs the Debian toolchains of ports/ (see the Makefile's CROSS_PACKAGES),
cmake, and ninja if installed (else make). The measured programs are in ports/footprint/
(footprint_main.cpp, kernel_profile.hpp); ports/footprint/README.md explains the method.

Adding a precision row: add an entry to PRECISIONS: its C++ tag and how its weights header is
made (f32, f16: each weight value written as a literal of the generated initialiser; int8:
quantised from the f32 weights by the library's quantiser, ports/footprint/quantize_weights.cpp),
optionally a backend other than the default and the targets it exists on (int8-dsp: the
Cortex-M port's SMLAD kernels). Precisions whose encoder does not compile yet are reported as
"not available" and skipped.
"""

import argparse
import bisect
import concurrent.futures
import hashlib
import math
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = os.path.join(ROOT, "ports", "footprint")

# ---- what is measured ---------------------------------------------------------------------------


class Target:
    def __init__(self, name, toolchain, prefix, runner, bare=False):
        self.name, self.toolchain, self.prefix, self.runner, self.bare = name, toolchain, prefix, runner, bare

    @property
    def suffix(self):
        return ".elf" if self.bare else ""


RUN_SH = os.path.join(ROOT, "ports", "cortex-m", "run.sh")
TARGETS = [
    Target("x86-64", None, "", []),
    Target("aarch64-linux", "ports/aarch64-linux/toolchain.cmake", "aarch64-linux-gnu-",
           ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
    Target("armv7-linux", "ports/armv7-linux/toolchain.cmake", "arm-linux-gnueabihf-",
           ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"]),
    Target("riscv64-linux", "ports/riscv64-linux/toolchain.cmake", "riscv64-linux-gnu-",
           ["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"]),
    Target("cortex-m3", "ports/cortex-m/toolchain-cortex-m3.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m4", "ports/cortex-m/toolchain-cortex-m4.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m7", "ports/cortex-m/toolchain-cortex-m7.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
    Target("cortex-m55", "ports/cortex-m/toolchain-cortex-m55.cmake", "arm-none-eabi-", [RUN_SH], bare=True),
]
TARGET_BY_NAME = {t.name: t for t in TARGETS}

OPTIONS = "staticformer::pre_norm, staticformer::gelu, staticformer::final_norm"
CONFIGS = {
    # name: d_model, heads, d_ff, seq_len, layers, options
    "tiny": (64, 4, 256, 32, 2, OPTIONS),
    "small": (128, 4, 512, 64, 4, OPTIONS),
}

# Emulated runs that would take minutes run fewer valid rows: (target, config) -> valid_len.
# The stack high-water mark does not depend on valid_len (no VLA, no alloca; every kernel runs).
PROBE_VALID_LEN = {("cortex-m3", "small"): 8}
# Cortex-M speed proxy: which configs to profile per core (small: 3.2 MB of weights fit the
# 4 MiB flash of MPS2 and the 8 MiB of AN547; on the soft-float M3 it would take minutes).
PROFILE_CONFIGS = {"cortex-m3": ["tiny"], "cortex-m4": ["tiny", "small"], "cortex-m7": ["tiny", "small"],
                   "cortex-m55": ["tiny", "small"]}

# The budgets of the issue: Cortex-M4, tiny: code <= 16 KiB; RAM (workspace + stack) <= 24 KiB
# in f32, <= 8 KiB in int8 (reference kernels and the port's DSP kernels).
BUDGETS = [{"target": "cortex-m4", "config": "tiny", "precision": p, "code": 16 * 1024, "ram": ram}
           for p, ram in [("f32", 24 * 1024), ("int8", 8 * 1024), ("int8-dsp", 8 * 1024)]]


def f32_literal(v):
    if v == 0.0:
        return "0.0f"
    h = float.hex(v)  # e.g. -0x1.2000000000000p-4
    mant, exp = h.split("p")
    mant = mant.rstrip("0").rstrip(".")
    return mant + "p" + exp + "f"


def f16_bits_literal(v):
    # IEEE binary16 storage (DESIGN.md 3): the bit pattern. The generated values are exact in binary16.
    return "0x%04x" % struct.unpack("<H", struct.pack("<e", v))[0]


class Precision:
    """literal: how one weight value is written (f32, f16), or None: quantised from f32 (int8).
    weights: the precision whose weights header this one reuses; backend: (C++ type, header,
    name) of a backend other than the default; targets: the targets it exists on (None: all)."""

    def __init__(self, name, tag, element_bytes=None, literal=None, weights=None, backend=None, targets=None):
        self.name, self.tag, self.element_bytes, self.literal = name, tag, element_bytes, literal
        self.weights, self.backend, self.targets = weights, backend, targets


PRECISIONS = {
    "f32": Precision("f32", "staticformer::f32", 4, f32_literal),
    # binary16 storage (std::uint16_t bit patterns, include/staticformer/math/fp16.hpp); picked up
    # by --precisions auto whenever encoder<cfg, f16> compiles.
    "f16": Precision("f16", "staticformer::f16", 2, f16_bits_literal),
    # int8 weights, int32 biases, fixed-point multipliers (weights_int8.hpp): quantised from the
    # f32 weights on the host by quant/quantize.hpp (ports/footprint/quantize_weights.cpp).
    "int8": Precision("int8", "staticformer::int8"),
    # The same int8 weights through the Cortex-M port's kernels (ports/cortex-m/int8_dsp.hpp:
    # SMLAD linear), on the cores with the DSP extension.
    "int8-dsp": Precision("int8-dsp", "staticformer::int8", weights="int8",
                          backend=("staticformer::ports::cortex_m_dsp", "int8_dsp.hpp", "cortex_m_dsp"),
                          targets=("cortex-m4", "cortex-m7", "cortex-m55")),
}

# ---- small helpers ---------------------------------------------------------------------------------

VERBOSE = False


def log(msg):
    if VERBOSE:
        print(msg, file=sys.stderr, flush=True)


def run(cmd, cwd=None, env=None, timeout=None, check=True):
    log("+ " + " ".join(shlex.quote(c) for c in cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if check and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout[-4000:]))
    return p


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return True


def kv_line(text, prefix):
    for ln in text.splitlines():
        if ln.startswith(prefix):
            out = {}
            for tok in ln[len(prefix):].split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    out[k] = v
            return out
    return None


def kv_lines(text, prefix):
    res = []
    for ln in text.splitlines():
        if ln.startswith(prefix):
            res.append(dict(tok.split("=", 1) for tok in ln[len(prefix):].split() if "=" in tok))
    return res


# ---- weights generator -------------------------------------------------------------------------------


def layer_members(d, f):
    """(name, count, kind) in the order of layer_weights_f32 (include/staticformer/weights.hpp)."""
    return [("qkv_w", d * 3 * d, ("w", d)), ("qkv_b", 3 * d, ("b",)), ("out_w", d * d, ("w", d)),
            ("out_b", d, ("b",)), ("ff1_w", d * f, ("w", d)), ("ff1_b", f, ("b",)), ("ff2_w", f * d, ("w", f)),
            ("ff2_b", d, ("b",)), ("norm1_gamma", d, ("g",)), ("norm1_beta", d, ("b",)),
            ("norm2_gamma", d, ("g",)), ("norm2_beta", d, ("b",))]


def weight_values(cfg):
    """Deterministic weights: xorshift32, k in [-512, 512), every value exact in float and binary16.
    Matrices: k/512 * 2^-round(log2(sqrt(fan_in))) (about torch's uniform(+-1/sqrt(fan_in)));
    biases and betas k/512 * 2^-3; gammas 1 + (k >> 2) * 2^-10."""
    d, h, f, s, layers, opts = cfg
    state = 0x2545F491

    def nxt():
        nonlocal state
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        return (state >> 22) - 512

    def value(kind):
        k = nxt()
        if kind[0] == "w":
            return k / 512.0 * 2.0 ** -round(math.log2(math.sqrt(kind[1])))
        if kind[0] == "g":
            return 1.0 + (k >> 2) * 2.0 ** -10
        return k / 512.0 * 2.0 ** -3

    members = layer_members(d, f) * layers
    if "final_norm" in opts:
        members += [("final_gamma", d, ("g",)), ("final_beta", d, ("b",))]
    for _, count, kind in members:
        for _ in range(count):
            yield value(kind)


def weights_header(cfg_name, cfg, prec):
    d, h, f, s, layers, opts = cfg
    if prec.literal is None:
        return int8_wrapper_header(cfg_name, prec)
    vals = [prec.literal(v) for v in weight_values(cfg)]
    lines = [",".join(vals[i:i + 16]) + "," for i in range(0, len(vals), 16)]
    return (
        "// Generated by tools/footprint.py: deterministic weights of the footprint programs (%s, %s).\n"
        "// Constant-initialised, as tools/export_pytorch.py's headers are, so they land in .rodata.\n"
        "#pragma once\n#include <staticformer/staticformer.hpp>\n\nnamespace sf_fp {\n"
        "using config = staticformer::encoder_config<%d, %d, %d, %d, %d, %s>;\n"
        "using precision = %s;\n"
        "inline constexpr staticformer::encoder_weights<config, precision> weights = {\n%s\n};\n"
        "static_assert(sizeof(weights) == %dul * %d,\n"
        "              \"encoder_weights layout changed: update tools/footprint.py (layer_members, PRECISIONS)\");\n"
        "}  // namespace sf_fp\n" % (cfg_name, prec.name, d, h, f, s, layers, opts, prec.tag, "\n".join(lines),
                                     len(vals), prec.element_bytes))


def config_type(cfg):
    d, h, f, s, layers, opts = cfg
    return "staticformer::encoder_config<%d, %d, %d, %d, %d, %s>" % (d, h, f, s, layers, opts)


def quantised_header(cfg_name, cfg, gen_dir, include_dir):
    """The int8 header of cfg: ports/footprint/quantize_weights.cpp, built against the f32 header,
    quantises it (calibration, quantisation and the header writer are the library's C++).
    Rebuilt and rerun only when its inputs change. Returns the program's report line."""
    f32_header = os.path.join(gen_dir, "weights_%s_f32.hpp" % cfg_name)
    data = os.path.join(gen_dir, "weights_%s_int8_data.hpp" % cfg_name)
    exe = os.path.join(gen_dir, "quantize_weights_%s" % cfg_name)
    stamp_path = exe + ".stamp"
    cmd = ["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-DSF_FP_BARE_METAL=0",
           "-DSF_FP_F32_HEADER=\"weights_%s_f32.hpp\"" % cfg_name, "-I", include_dir, "-I", gen_dir, "-I", PORT,
           os.path.join(PORT, "quantize_weights.cpp"), "-o", exe]
    h = hashlib.sha256(" ".join(cmd + [config_type(cfg)]).encode())
    inputs = [f32_header, os.path.join(PORT, "quantize_weights.cpp"), os.path.join(PORT, "platform.hpp")]
    for dp, _, fs in sorted(os.walk(include_dir)):
        inputs.extend(os.path.join(dp, f) for f in sorted(fs))
    for path in inputs:
        with open(path, "rb") as f:
            h.update(path.encode() + b"\0" + f.read())
    stamp = h.hexdigest()
    old = open(stamp_path).read().split("\n", 1) if os.path.exists(stamp_path) else ["", ""]
    if old[0] == stamp and os.path.exists(data):
        return old[1].strip()
    print("footprint: quantising the %s weights to int8 ..." % cfg_name, file=sys.stderr, flush=True)
    run(cmd)
    out = run([exe, data + ".tmp", config_type(cfg)]).stdout
    os.replace(data + ".tmp", data)
    line = next((ln for ln in out.splitlines() if ln.startswith("sf_fp_quant:")), "")
    with open(stamp_path, "w") as f:
        f.write(stamp + "\n" + line + "\n")
    return line


def int8_wrapper_header(cfg_name, prec):
    """weights_<cfg>_<prec>.hpp of an int8 precision: the quantiser's header inside namespace sf_fp
    (its own #include of staticformer.hpp is then a no-op), and the backend, if not the default."""
    text = ("// Generated by tools/footprint.py: the int8 weights of the footprint programs (%s), quantised from\n"
            "// weights_%s_f32.hpp by ports/footprint/quantize_weights.cpp (the library's quantiser and header writer).\n"
            "#pragma once\n#include <staticformer/staticformer.hpp>\n\nnamespace sf_fp {\n"
            "#include \"weights_%s_int8_data.hpp\"\n"
            "using config = weights_config;\nusing precision = staticformer::int8;\n}  // namespace sf_fp\n" %
            (cfg_name, cfg_name, cfg_name))
    if prec.backend:
        text += ("\n#include <%s>\n#define SF_FP_BACKEND %s\n#define SF_FP_BACKEND_NAME \"%s\"\n" %
                 (prec.backend[1], prec.backend[0], prec.backend[2]))
    return text


def precision_available(name, include_dir, gen_dir):
    """(True, "") if encoder<cfg, P> and encoder_weights<cfg, P> compile on the host, else (False, why)."""
    prec = PRECISIONS[name]
    if prec.backend and not os.path.exists(os.path.join(ROOT, "ports", "cortex-m", prec.backend[1])):
        return False, "no ports/cortex-m/%s" % prec.backend[1]
    src = os.path.join(gen_dir, "check_%s.cpp" % name)
    write_if_changed(src, (
        "#include <staticformer/staticformer.hpp>\nnamespace sf = staticformer;\n"
        "using cfg = sf::encoder_config<16, 2, 32, 8, 1>;\n"
        "static_assert(sizeof(sf::encoder_weights<cfg, %s>) > 0, \"\");\n"
        "static_assert(sizeof(sf::encoder<cfg, %s, sf::reference>) > 0, \"\");\n" % (prec.tag, prec.tag)))
    p = run(["g++", "-std=c++17", "-fsyntax-only", "-I", include_dir, src], check=False)
    if p.returncode == 0:
        return True, ""
    m = re.search(r"error: (static assertion failed: )?(.*)", p.stdout)
    return False, (m.group(2).strip() if m else "does not compile")


# ---- ELF inspection ------------------------------------------------------------------------------------


def tool(target, name):
    return target.prefix + name


def sections(target, elf):
    """name -> (size, flags) of allocated sections."""
    out = run([tool(target, "readelf"), "-SW", elf]).stdout
    res = {}
    for ln in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S*)", ln)
        if m and "A" in m.group(7):
            res[m.group(1)] = (int(m.group(5), 16), m.group(7))
    return res


def section_totals(secs):
    code = sum(s for n, (s, fl) in secs.items() if "X" in fl)
    rodata = sum(s for n, (s, fl) in secs.items() if n.startswith(".rodata"))
    ram = sum(s for n, (s, fl) in secs.items() if "W" in fl and (n.startswith(".data") or n.startswith(".bss")))
    return {"code": code, "rodata": rodata, "ram": ram}


def symbols(target, elf):
    """List of (name, value, size, type, bind, section index) from .symtab and .dynsym."""
    out = run([tool(target, "readelf"), "-sW", elf]).stdout
    res = []
    for ln in out.splitlines():
        m = re.match(r"\s*\d+:\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)", ln)
        if m:
            size = int(m.group(2), 0)
            res.append((m.group(6), int(m.group(1), 16), size, m.group(3), m.group(4), m.group(5)))
    return res


HEAP_NAMES = {"malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
              "valloc", "pvalloc", "_malloc_r", "_free_r", "_calloc_r", "_realloc_r", "_memalign_r", "sbrk", "_sbrk_r"}


def heap_symbols(syms):
    found = set()
    for name, value, size, typ, bind, ndx in syms:
        base = name.split("@")[0]
        if base in HEAP_NAMES or re.match(r"_Z(nw|na|dl|da)", base):
            found.add(base + ("" if ndx != "UND" else " (undefined)"))
    return sorted(found)


NO_FALLTHROUGH = re.compile(r"^(b|b\.w|b\.n|bx|ret|jmp|jmpq|j|jr|br|udf|ud2|hlt|bkpt|tail)(\s|$)|"
                            r"^(pop|pop\.w|ldmia\.w|ldmia|ldm)\s.*\bpc\b|^ldr(\.w)?\s+pc")


CONTROL = re.compile(r"^(b[a-z.]*|j[a-z]*|call[a-z]*|tail|cbn?z|tbn?z)\s")


def disassemble(target, elf):
    """Functions of the image from objdump: address -> {name, refs: set(function addresses), lines}.
    A reference is any branch or call target annotated <name> or <name+off> that lies in another
    function (libgcc's assembly branches into the middle of its neighbours), plus the next
    function when the last instruction can fall through into it."""
    out = run([tool(target, "objdump"), "-d", "--no-show-raw-insn", elf]).stdout
    funcs, cur, order = {}, None, []
    for ln in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", ln)
        if m:
            cur = {"name": m.group(2), "addr": int(m.group(1), 16), "targets": set(), "lines": []}
            funcs[cur["addr"]] = cur
            order.append(cur["addr"])
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", ln)
        if not m:
            continue
        # Arm assembler comments start with "@" (a separate word: "<memcpy@plt>" is a name).
        ins = re.sub(r"\s@\s.*$", "", m.group(2)).strip() if target.prefix.startswith("arm") else m.group(2).strip()
        cur["lines"].append(ins)
        cur["last"] = int(m.group(1), 16)
        # Only control transfers (calls, branches, jumps) make edges; address annotations of
        # loads (literal pools, riscv's auipc/addi pairs, x86's rip-relative lea) do not.
        if CONTROL.match(ins):
            for a, n in re.findall(r"([0-9a-f]+) <([^>]+)>", ins):
                cur["targets"].add(int(a, 16))
    order.sort()

    def owner(addr):  # the function whose code holds addr, if any
        i = bisect.bisect_right(order, addr) - 1
        return order[i] if i >= 0 and addr <= funcs[order[i]].get("last", -1) + 4 else None

    for i, a in enumerate(order):
        f = funcs[a]
        f["refs"] = set()
        if f["name"].endswith("@plt") or f["name"].startswith(".plt"):
            continue  # the shared library's code is not in the image
        for t in f["targets"]:
            o = owner(t)
            if o is not None and o != a:
                f["refs"].add(o)
        body = [x for x in f["lines"] if not re.match(r"^(nop|\.word|\.short|\.byte)\b", x)]
        # Only libgcc's hand-written assembly (Cortex-M images) falls through into a neighbour.
        if target.bare and body and not NO_FALLTHROUGH.match(body[-1]) and i + 1 < len(order):
            f["refs"].add(order[i + 1])
    return funcs


def parse_ci(paths):
    """Stack bytes and callees by assembler name from GCC's -fcallgraph-info=su files."""
    stack, edges = {}, {}
    for p in paths:
        with open(p, errors="replace") as f:
            for ln in f:
                m = re.match(r'node: \{ title: "([^"]+)" label: "(.*)"', ln)
                if m:
                    title = m.group(1).split(":")[-1]  # local functions: "<source path>:<name>"
                    sm = re.search(r"\\n(\d+) bytes \(([^)]*)\)", m.group(2))
                    if sm:
                        stack[title] = max(stack.get(title, 0), int(sm.group(1)))
                        if sm.group(2) != "static":
                            stack[title + "#qual"] = sm.group(2)
                    continue
                m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', ln)
                if m:
                    edges.setdefault(m.group(1), set()).add(m.group(2))
    return stack, edges


def thumb_frame(lines):
    """Upper bound of the stack a Thumb function (library code without .su) takes: the sum of every
    push / vpush / stack-pointer decrement in its body."""
    total = 0

    def count(reglist):
        n = 0
        for item in reglist.split(","):
            item = item.strip()
            r = re.match(r"([rsd])(\d+)-[rsd]?(\d+)", item)
            if r:
                k = int(r.group(3)) - int(r.group(2)) + 1
                n += k * (8 if r.group(1) == "d" else 4)
            elif item:
                n += 8 if item.startswith("d") else 4
        return n

    for ins in lines:
        parts = ins.split(None, 1)
        if not parts:
            continue
        mn = parts[0].split(".")[0]
        ops = parts[1] if len(parts) > 1 else ""
        regs = re.search(r"\{([^}]*)\}", ops)
        if mn in ("push", "vpush") and regs:
            total += count(regs.group(1))
        elif mn in ("stmdb", "vstmdb") and ops.startswith("sp!") and regs:
            total += count(regs.group(1))
        elif mn in ("sub", "subw") and re.match(r"sp,\s*(sp,\s*)?#", ops):
            total += int(re.search(r"#(-?(0x)?[0-9a-f]+)", ops).group(1), 0)
        elif mn in ("str", "strd") and re.search(r"\[sp, #-(\d+)\]!", ops):
            total += int(re.search(r"\[sp, #-(\d+)\]!", ops).group(1))
    return total


INDIRECT = re.compile(r"^(blx\s+r|bx\s+r(?!14|lr)|call\s+\*|jmp\s+\*|blr\s|br\s|jalr\s)")


def call_graph_analysis(target, elf, ci_paths, root="sf_fp_run"):
    """Functions reachable from root in the linked image, their code bytes and the deepest stack."""
    funcs = disassemble(target, elf)
    syms = symbols(target, elf)
    size_by_addr = {}
    for name, value, size, typ, bind, ndx in syms:
        if typ == "FUNC" and size:
            size_by_addr[value & ~1] = max(size_by_addr.get(value & ~1, 0), size)
    stack_ci, _ = parse_ci(ci_paths)
    roots = [a for a, f in funcs.items() if f["name"] == root]
    if not roots:
        raise RuntimeError("%s: no %s in %s" % (target.name, root, elf))
    reach, todo = set(), [roots[0]]
    while todo:
        a = todo.pop()
        if a in reach or a not in funcs:
            continue
        reach.add(a)
        todo.extend(r for r in funcs[a]["refs"] if r in funcs and r != a)
    info = {}
    arm = target.bare or target.prefix.startswith("arm-")
    for a in reach:
        f = funcs[a]
        name = f["name"]
        dynamic = name.endswith("@plt")
        if name in stack_ci:
            st, how = stack_ci[name], "su" + ("" if name + "#qual" not in stack_ci else "," + stack_ci[name + "#qual"])
            if arm:
                # GCC's .su leaves out the "pretend args" a callee pushes (sub sp, #16) to store
                # the register part of a by-value struct argument next to its stack part (seen
                # at -Os: fold(lane_sums)): take the larger of .su and the disassembly's count.
                frame = thumb_frame(f["lines"])
                if frame > st:
                    st, how = frame, "prologue>su"
        elif dynamic:
            st, how = 0, "shared library"
        elif target.bare:
            st, how = thumb_frame(f["lines"]), "prologue"
        else:
            st, how = None, "unknown"
        indirect = [ins for ins in f["lines"] if INDIRECT.match(ins)]
        info[a] = {"name": name, "size": 0 if dynamic else size_by_addr.get(a, 0), "stack": st, "how": how,
                   "dynamic": dynamic, "indirect": indirect}
    memo, onpath = {}, set()

    def depth(a):
        if a in memo:
            return memo[a]
        if a in onpath:
            raise RuntimeError("recursion through %s" % info[a]["name"])
        onpath.add(a)
        best, path = 0, []
        for r in funcs[a]["refs"]:
            if r in reach and r != a:
                d, p = depth(r)
                if d > best:
                    best, path = d, p
        onpath.discard(a)
        own = info[a]["stack"] or 0
        memo[a] = (own + best, [a] + path)
        return memo[a]

    total, path = depth(roots[0])
    unknown = [info[a]["name"] for a in reach if info[a]["stack"] is None]
    return {"functions": info, "stack": total, "path": [info[a]["name"] + "(%s)" % info[a]["stack"] for a in path],
            "unknown": unknown, "code": sum(i["size"] for i in info.values()),
            "dynamic": sorted(i["name"] for i in info.values() if i["dynamic"]),
            "indirect": sorted(i["name"] for i in info.values() if i["indirect"] and not i["dynamic"])}


# ---- build and run ------------------------------------------------------------------------------------


def configure_and_build(target, build_dir, args, cases, profile_cases, xsimd_dir, jobs):
    bdir = os.path.join(build_dir, target.name)
    ninja = shutil.which("ninja") is not None
    cache = os.path.join(bdir, "CMakeCache.txt")
    if os.path.exists(cache):  # keep the generator an existing build directory was made with
        with open(cache) as f:
            ninja = "CMAKE_GENERATOR:INTERNAL=Ninja" in f.read()
    cmd = ["cmake", "-S", PORT, "-B", bdir, "-G", "Ninja" if ninja else "Unix Makefiles", "-DCMAKE_BUILD_TYPE=",
           "-DSF_FP_INCLUDE_DIR=" + args.include, "-DSF_FP_GEN_DIR=" + os.path.join(build_dir, "gen"),
           "-DSF_FP_CASES=" + ";".join(cases), "-DSF_FP_PROFILE_CASES=" + ";".join(profile_cases),
           "-DSF_FP_OPT=" + args.opt, "-DSF_FP_FORCE_REFERENCE=" + ("ON" if args.reference else "OFF")]
    if target.toolchain:
        cmd.append("-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(ROOT, target.toolchain))
        cmd.append("-DSF_FP_XSIMD_DIR=" + (xsimd_dir if not target.bare and xsimd_dir else ""))
    run(cmd)
    p = run(["cmake", "--build", bdir, "-j", str(jobs), "--"] + (["-k", "0"] if ninja else ["-k"]), check=False)
    failed = set()
    for case in cases:
        if not all(os.path.exists(os.path.join(bdir, "fp_%s_%s%s" % (case, kind, target.suffix)))
                   for kind in ("base", "fwd", "probe")):
            failed.add(case)
    for case in profile_cases:
        if not os.path.exists(os.path.join(bdir, "fp_%s_profile%s" % (case, target.suffix))):
            failed.add("profile:" + case)
    if p.returncode != 0:
        err = re.search(r"error: (.*)", p.stdout)
        print("warning: %s: some programs did not build (%s)" % (target.name, err.group(1) if err else "see log"),
              file=sys.stderr)
        with open(os.path.join(bdir, "build-errors.log"), "w") as f:
            f.write(p.stdout)
    return bdir, failed


def run_program(target, elf, argv, timeout):
    env = dict(os.environ)
    env["SF_PORT_TIMEOUT"] = str(timeout)
    t0 = time.time()
    p = run(target.runner + [elf] + argv, env=env, timeout=timeout + 30, check=False)
    return p.returncode, p.stdout, time.time() - t0


def ci_files(bdir, case):
    """GCC call-graph files of the objects in case's images: its object and the startup objects."""
    res = []
    for d in ["fp_%s.dir" % case, "fp_bare_startup.dir", "fp_port_startup.dir"]:
        for dp, _, fs in os.walk(os.path.join(bdir, "CMakeFiles", d)):
            res.extend(os.path.join(dp, f) for f in fs if f.endswith(".ci"))
    return res


def analyse(target, bdir, case):
    base = os.path.join(bdir, "fp_%s_base%s" % (case, target.suffix))
    fwd = os.path.join(bdir, "fp_%s_fwd%s" % (case, target.suffix))
    sb, sf = section_totals(sections(target, base)), section_totals(sections(target, fwd))
    syms = symbols(target, fwd)
    weights_sym = [s for s in syms if s[0] == "_ZN5sf_fp7weightsE"]
    ws_sym = [s for s in syms if s[0] == "sf_fp_workspace"]
    secs = run([tool(target, "readelf"), "-SW", fwd]).stdout
    sec_names = {}
    for ln in secs.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", ln)
        if m:
            sec_names[m.group(1)] = m.group(2)
    cg = call_graph_analysis(target, fwd, ci_files(bdir, case))

    def ram_objects(elf, syms, names):
        out = {}
        for name, value, size, typ, bind, ndx in syms:
            sec = names.get(ndx, "")
            if typ in ("OBJECT", "TLS") and size and (sec.startswith(".data") or sec.startswith(".bss")):
                out[name] = size
        return out

    base_names = {}
    for ln in run([tool(target, "readelf"), "-SW", base]).stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", ln)
        if m:
            base_names[m.group(1)] = m.group(2)
    ram_fwd = ram_objects(fwd, syms, sec_names)
    ram_base = ram_objects(base, symbols(target, base), base_names)
    harness = ("sf_fp_workspace", "valid_len_source")  # the workspace itself; the program's own variable
    ram_extra = sorted(((n, z) for n, z in ram_fwd.items() if n not in ram_base and not any(h in n for h in harness)),
                       key=lambda x: -x[1])
    return {
        "code_delta": sf["code"] - sb["code"], "rodata_delta": sf["rodata"] - sb["rodata"],
        "ram_delta": sf["ram"] - sb["ram"],
        "weights_image": weights_sym[0][2] if weights_sym else None,
        "weights_section": sec_names.get(weights_sym[0][5], "?") if weights_sym else "?",
        "workspace_image": ws_sym[0][2] if ws_sym else None,
        "heap_fwd": heap_symbols(syms), "heap_base": heap_symbols(symbols(target, base)),
        "cg": cg, "ram_extra": ram_extra,
    }


# ---- report ---------------------------------------------------------------------------------------------

_DEMANGLED = {}


def demangle(name):
    if name not in _DEMANGLED:
        base, suffix = (name.split("(", 1)[0], "(" + name.split("(", 1)[1]) if name.endswith(")") else (name, "")
        try:
            d = run(["c++filt", base], check=False).stdout.strip() or base
        except OSError:
            d = base
        _DEMANGLED[name] = d + suffix
    return _DEMANGLED[name]


def short_name(name):
    """Demangled, template arguments and parameter lists elided: composition<…>::attention_block."""
    d = demangle(name)
    suffix = ""
    m = re.search(r"\((\d+)\)$", d)  # the "(stack bytes)" of a path element
    if m and name.endswith(")"):
        suffix, d = " (%s B)" % m.group(1), d[:m.start()]
    out, depth = [], 0
    for ch in d:
        if ch in "<(":
            if depth == 0:
                out.append("<…>" if ch == "<" else "()")
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    res = "".join(out).replace("staticformer::", "sf::").replace(" [clone", "").strip()
    if res.startswith("void "):
        res = res[5:]
    return res + suffix



def fmt(n):
    return "—" if n is None else "{:,}".format(n).replace(",", " ")


def kib(n):
    return "%.2f KiB" % (n / 1024.0)


METHOD = """\
# staticformer footprint

Generated by `tools/footprint.py` (`tools/footprint.sh`); programs in `ports/footprint/`, built in
`{build}`. Options `{opt}`, `-ffp-contract=off -fno-exceptions -fno-rtti -ffunction-sections
-fdata-sections`, linked with `--gc-sections`; Cortex-M images with the port's startup, linker script
and `--specs=rdimon.specs`; Linux images dynamically linked to glibc. Configurations (pre-norm, GELU,
final LayerNorm, tile 4): **tiny** `encoder_config<64, 4, 256, 32, 2>`, **small**
`encoder_config<128, 4, 512, 64, 4>`. Weights: deterministic values in a generated header
(`inline constexpr encoder_weights<...>`, as `tools/export_pytorch.py` writes it); int8: those f32
weights quantised on the host by the library's quantiser (`quant/quantize.hpp`, min-max calibration
on 4 deterministic inputs, `ports/footprint/quantize_weights.cpp`), written by its header writer;
int8 input and output are `std::int8_t` buffers (the caller's). **int8-dsp**: the same int8
weights through the Cortex-M port's kernels (`sf::ports::cortex_m_dsp`, `ports/cortex-m/int8_dsp.hpp`)
on the cores with the DSP extension (M4, M7, M55).

How each column is measured (one minimal program per target x precision x config, built twice:
*fwd* calls `sf::forward<default backend>()` once through `extern "C" sf_fp_run()`, *base* is the
same program without that call but with the same weights, buffers and startup):

- **code: forward()** — bytes of every function reachable from `sf_fp_run` in the linked *fwd*
  image (call graph from `objdump -d`, sizes from the symbol table): the encoder (GCC inlines
  it into `sf_fp_run`) plus the library routines it calls (memcpy/memset, soft-float and `fmaf`
  on M3, `sqrtf`). Functions in shared libraries (Linux: `fmaf@plt`...) are not in the image
  and not counted. **Δ .text**: executable sections of *fwd* minus *base*, which leaves out
  library routines that the startup code links anyway.
- **const Δ**: `.rodata` of *fwd* minus *base* (the weights are in both): the encoder's
  constants (polynomial coefficients, ...).
- **weights**: `encoder<...>::weight_bytes` (constexpr) / size of the `sf_fp::weights` symbol in
  the image, and the section it lies in.
- **workspace**: `encoder<...>::workspace_bytes` (constexpr) / `.data`+`.bss` of *fwd* minus
  *base*: all static RAM the encoder brings (the caller's input and output buffers are in
  both images and not counted).
- **stack static**: the deepest path of the call graph from `sf_fp_run`, summing each
  function's frame from GCC `-fstack-usage -fcallgraph-info=su` (`.ci` files; library
  routines on Cortex-M without `.su`: the sum of every push/sub-sp in their disassembly, an
  upper bound). **painted**: the probe build fills 16 KiB below the caller's SP with a
  pattern, calls `sf_fp_run` once (valid_len = seq_len unless noted) and finds the lowest
  overwritten word. Both count from the caller's SP at the call (x86-64 includes the return
  address).
- **heap**: symbols of the *fwd* image (defined or undefined, incl. dynamic) named malloc,
  free, calloc, realloc, memalign, `_malloc_r`..., `sbrk`, `operator new/delete` (`_Znw*`,
  `_Zna*`, `_Zdl*`, `_Zda*`): "none" proves no heap is linked. The *fwd* program does no I/O
  (exit code only); the probe prints through semihosting SYS_WRITE0 / write(2), never printf.
"""


def report(results, prof, args, avail, elapsed):
    out = [METHOD.format(build=os.path.relpath(args.build_dir, ROOT) if args.build_dir.startswith(ROOT) else
                         args.build_dir, opt=args.opt)]
    for name, (ok, why) in avail.items():
        if not ok:
            out.append("Precision **%s**: not available (`%s`); its rows are skipped.\n" % (name, why))
    quant = getattr(args, "quant", {})
    if any(quant.values()):
        out.append("int8 weights against the f32 encoder on the calibration inputs (SQNR of the dequantised "
                   "output): " + ", ".join("%s %s dB" % (c, q["sqnr_db"]) for c, q in quant.items() if q) + ".\n")
    out.append("## Footprint of forward()\n")
    out.append("| target | backend | prec | config | code: forward() | Δ .text | const Δ | weights constexpr / image "
               "| workspace constexpr / Δ RAM | stack static | stack painted | heap |")
    out.append("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
    notes = []
    for key in sorted(results, key=lambda k: (args.target_order.index(k[0]), k[1], args.config_order.index(k[2]))):
        r = results[key]
        t, prec, cfg = key
        if "error" in r:
            out.append("| %s | | %s | %s | %s | | | | | | | |" % (t, prec, cfg, r["error"]))
            continue
        a, pr = r["analysis"], r.get("probe") or {}
        st = fmt(a["cg"]["stack"])
        if a["cg"]["unknown"]:
            st += " + ?"
            notes.append("%s %s %s: stack of %s unknown" % (t, prec, cfg, ", ".join(short_name(n) for n in a["cg"]["unknown"])))
        painted = pr.get("stack_painted")
        painted_s = fmt(int(painted)) if painted is not None else "—"
        if pr and int(pr.get("valid_len", 0)) != CONFIGS[cfg][3]:
            painted_s += " (n=%s)" % pr["valid_len"]
        heap = ", ".join(a["heap_fwd"]) if a["heap_fwd"] else "none"
        wimg = "%s / %s" % (fmt(int(pr["weight_bytes"])) if pr else "?", fmt(a["weights_image"]))
        if a["weights_section"] != ".rodata":
            wimg += " (%s)" % a["weights_section"]
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |" % (
            t, pr.get("backend", "?"), prec, cfg, fmt(a["cg"]["code"]), fmt(a["code_delta"]), fmt(a["rodata_delta"]),
            wimg, fmt(int(pr["workspace_bytes"])) if pr else "?", fmt(a["ram_delta"]), st, painted_s, heap))
        if a["cg"]["dynamic"]:
            notes.append("%s %s %s: also calls shared-library %s" % (t, prec, cfg, ", ".join(a["cg"]["dynamic"])))
        if a["cg"]["indirect"]:
            notes.append("%s %s %s: indirect calls in %s (stack of their targets not followed)" %
                         (t, prec, cfg, ", ".join(a["cg"]["indirect"])))
        if pr and pr.get("status") != "0":
            notes.append("%s %s %s: probe status %s" % (t, prec, cfg, pr.get("status")))
        if a["heap_base"]:
            notes.append("%s %s %s: the *base* image (startup only) already has %s" % (t, prec, cfg, ", ".join(a["heap_base"])))
    out.append("")
    crcs = {}
    for key, r in results.items():
        pr = r.get("probe")
        if pr and int(pr.get("valid_len", 0)) == CONFIGS[key[2]][3]:
            crcs.setdefault((key[1], key[2]), {}).setdefault(pr["crc32"], []).append(key[0])
    for (prec, cfg), by in sorted(crcs.items()):
        if len(by) == 1:
            out.append("Output CRC-32 of %s %s (valid_len = seq_len): `%s`, identical on %s." %
                       (prec, cfg, list(by)[0], ", ".join(sorted(list(by.values())[0], key=args.target_order.index))))
        else:
            out.append("Output CRC-32 of %s %s DIFFERS between targets: %s." % (
                prec, cfg, "; ".join("%s on %s" % (c, ", ".join(ts)) for c, ts in by.items())))
    out.append("")
    if notes:
        out.append("Notes:\n")
        out.extend("- " + n for n in notes)
        out.append("")
    for key, r in results.items():
        if "analysis" in r:
            a = r["analysis"]["cg"]
            r["detail"] = ("%s %s %s: deepest stack path %s; functions (code bytes, stack bytes, source of "
                           "the stack figure): %s%s" % (
                key[0], key[1], key[2], " -> ".join(short_name(n) for n in a["path"]),
                ", ".join("%s %d B / %s B (%s)" % (short_name(f["name"]), f["size"], f["stack"], f["how"])
                          for f in sorted(a["functions"].values(), key=lambda f: -f["size"])),
                "; static RAM beyond the workspace: " + ", ".join("%s %d B" % (demangle(n), z) for n, z in
                                                                   r["analysis"]["ram_extra"])
                if r["analysis"]["ram_extra"] else ""))
    budget_section(out, results)
    if prof:
        profile_section(out, prof, args)
    out.append("\n(%d s on %d jobs)" % (elapsed, args.jobs))
    return "\n".join(out)


def workspace_buffers(prec, cfg):
    """(name, bytes) of the workspace struct's members (encoder.hpp: workspace<cfg>; encoder_int8.hpp:
    workspace_int8<cfg>), each alignas(64), tile = min(4, seq_len)."""
    d, h, f, s, layers, _ = cfg
    tile = min(4, s)
    if PRECISIONS[prec].tag == "staticformer::int8":
        bufs = [("keys_t", d * s), ("values", s * d), ("normed", tile * d), ("query", tile * d), ("proj", tile * d),
                ("hidden", tile * f), ("scores", 4 * s), ("probs", 2 * s)]
    else:
        bufs = [("keys_t", 4 * d * s), ("values", 4 * s * d), ("narrow", 4 * tile * d),
                ("wide", 4 * max(tile * f, tile * d + s))]
    return tile, bufs


def budget_section(out, results):
    rows = []
    for b in BUDGETS:
        key = (b["target"], b["precision"], b["config"])
        r = results.get(key)
        if r and "analysis" in r and r.get("probe"):
            a, pr = r["analysis"], r["probe"]
            stack = max(a["cg"]["stack"] or 0, int(pr["stack_painted"]))
            rows.append((b, key, a, a["cg"]["code"], int(pr["workspace_bytes"]), stack))
    if not rows:
        return
    out.append("## Budgets: %s, %s\n" % (BUDGETS[0]["target"], BUDGETS[0]["config"]))
    out.append("Code: the functions reachable from forward(). RAM: the workspace plus the worst-case stack (the "
               "larger of the static and the painted figure); the caller's input and output buffers not counted.\n")
    out.append("| precision | backend | code | code budget | RAM: workspace + stack | RAM budget | verdict |")
    out.append("|---|---|--:|--:|--:|--:|---|")
    details = []
    for b, key, a, code, ws, stack in rows:
        ram = ws + stack
        ok = code <= b["code"] and ram <= b["ram"]
        verdict = []
        verdict.append("code %s (%s of %s)" % ("pass" if code <= b["code"] else "FAIL, over by %s B" %
                                              fmt(code - b["code"]), kib(code), kib(b["code"])))
        verdict.append("RAM %s (%s of %s, margin %s B)" % ("pass" if ram <= b["ram"] else "FAIL",
                                                         kib(ram), kib(b["ram"]), fmt(b["ram"] - ram)))
        out.append("| %s | %s | %s B | %s B | %s + %s = %s B | %s B | **%s**: %s |" % (
            key[1], results[key]["probe"].get("backend", "?"), fmt(code), fmt(b["code"]), fmt(ws), fmt(stack),
            fmt(ram), fmt(b["ram"]), "PASS" if ok else "FAIL", "; ".join(verdict)))
        d = []
        extra = a["ram_delta"] - ws
        if extra > 0:
            objs = ", ".join("`%s` %s B" % (demangle(n), fmt(z)) for n, z in a["ram_extra"][:4]) or "alignment"
            d.append("beyond the workspace, the image with forward() holds %s B more static RAM than without it: %s; "
                     "counting it, %s B (%s)" % (fmt(extra), objs, fmt(ram + extra),
                                               "within the budget" if ram + extra <= b["ram"] else
                                               "over the budget by %s B" % fmt(ram + extra - b["ram"])))
        tile, bufs = workspace_buffers(key[1], CONFIGS[key[2]])
        total = sum((z + 63) // 64 * 64 for _, z in bufs)
        d.append("workspace (tile = %d): " % tile + ", ".join("%s %s B" % (n, fmt(z)) for n, z in bufs) +
                 " = %s B%s" % (fmt(total), "" if total == ws else " (constexpr says %s: layout changed?)" % fmt(ws)))
        d.append("stack: deepest path " + " -> ".join(short_name(n) for n in a["cg"]["path"]))
        details.append("- %s: %s." % (key[1], "; ".join(d)))
    out.append("")
    out.extend(details)
    out.append("")


def profile_section(out, prof, args):
    out.append("## Cortex-M speed proxy: instructions per inference\n")
    out.append("QEMU `-icount shift=0` (1 instruction = 1 ns), SysTick read through `ports/cortex-m/cycle_counter.h` "
               "(one tick = 40 instructions on MPS2, 31.25 on AN547). **total**: `sf::forward<backend>` as a "
               "whole (the reference backend; **int8-dsp**: the port's `sf::ports::cortex_m_dsp`, SMLAD linear, "
               "the other int8 kernels the reference's). Kernels: `sf::detail::forward<cfg, profiled>` (f32, f16) "
               "or `sf::detail::forward_int8<cfg, profiled_int8<int8_kernel_set<backend>>>` (int8), which wrap "
               "each kernel of the set in a counter span (free-running reads: the tick quantisation is "
               "unbiased and averages out over the spans); each kernel's sum minus calls x the overhead of "
               "an empty span (measured 4600 times). **glue**: total minus the kernels (input staging, key "
               "transposition, query scaling, f32 residual adds; int8 residual adds are the **add** kernel). "
               "**instrumented run**: the instrumented forward's "
               "total against the plain one, per span (the span bookkeeping; a large value would mean the "
               "instrumentation changed the kernels' code). Program: `ports/footprint/kernel_profile.hpp` (entry `sf_fp_main_profile`). "
               "QEMU counts instructions, not cycles: it models neither the M7's dual issue nor FPU latencies, "
               "flash wait states or caches.\n")
    all_kinds = ["linear", "scores", "softmax", "context", "layer_norm", "activation", "add"]
    out.append("Instructions per inference (valid_len = seq_len), by precision:\n")
    precs = [p for p in PRECISIONS if any(k[2] == p for k in prof)]
    out.append("| core | config | " + " | ".join(precs) + " |")
    out.append("|---|---|" + "--:|" * len(precs))
    for cfg in args.config_order:
        for t in args.target_order:
            cells = [prof.get((t, cfg, p)) for p in precs]
            if any(cells):
                out.append("| %s | %s | %s |" % (t, cfg, " | ".join(
                    "" if c is None else c.get("error", None) or fmt(c["total"]) for c in cells)))
    out.append("")
    for cfg, prec in [(c, p) for c in args.config_order for p in PRECISIONS]:
        rows = [(t, p) for (t, c, pr), p in prof.items() if c == cfg and pr == prec]
        if not rows:
            continue
        rows.sort(key=lambda x: args.target_order.index(x[0]))
        kinds = [k for k in all_kinds if any(p.get("calls", {}).get(k, 0) for _, p in rows)]
        kinds = kinds or all_kinds
        warn = []
        out.append("### %s, %s (valid_len = seq_len = %d)\n" % (cfg, prec, CONFIGS[cfg][3]))
        out.append("| core | total | " + " | ".join(kinds) + " | glue | span overhead | instrumented run | CRC plain = instrumented |")
        out.append("|---|--:|" + "--:|" * len(kinds) + "--:|--:|--:|---|")
        for t, p in rows:
            if "error" in p:
                out.append("| %s | %s |" % (t, p["error"]) + " |" * (len(kinds) + 3))
                continue
            cells = []
            for k in kinds:
                v = p["kernels"].get(k, 0.0)
                cells.append("%s (%.1f%%)" % (fmt(int(round(v))), 100.0 * v / p["total"]))
            spans = sum(c for n, c in p["calls"].items() if n != "empty")
            if abs(p["split_total"] - p["total"]) > 0.01 * p["total"]:
                warn.append("%s %s %s: the instrumented run differs from the plain one by %.1f%%: the kernels' "
                            "code differs between the two builds, so the split is approximate (glue absorbs "
                            "the difference)." % (t, cfg, prec, 100.0 * (p["split_total"] - p["total"]) / p["total"]))
            out.append("| %s | %s | %s | %s (%.1f%%) | %.1f | %+.1f%% (%.0f / span) | %s |" % (
                t, fmt(p["total"]), " | ".join(cells), fmt(int(round(p["glue"]))), 100.0 * p["glue"] / p["total"],
                p["overhead"], 100.0 * (p["split_total"] - p["total"]) / p["total"],
                (p["split_total"] - p["total"]) / max(spans, 1), "yes (%s)" % p["crc"] if p["crc_equal"] else "NO"))
        out.append("")
        for w in warn:
            out.append("Warning: " + w + "\n")


def parse_profile(text):
    head = kv_line(text, "sf_prof:")
    if not head:
        return None
    ks = {d["name"]: d for d in kv_lines(text, "sf_prof_kernel:")}
    ns = 1e9 / int(head["hz"])
    over = int(ks["empty"]["ticks"]) / int(ks["empty"]["calls"])
    kern = {}
    for name, d in ks.items():
        if name == "empty":
            continue
        kern[name] = (int(d["ticks"]) - int(d["calls"]) * over) * ns
    total = int(head["plain_instructions"])
    return {"total": total, "kernels": kern, "glue": total - sum(kern.values()), "overhead": over * ns,
            "split_total": int(head["split_ticks"]) * ns, "crc_equal": head["crc_plain"] == head["crc_split"],
            "crc": head["crc_plain"], "calls": {n: int(d["calls"]) for n, d in ks.items()}}


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default=",".join(t.name for t in TARGETS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--precisions", default="auto",
                    help="comma list, or auto: f32 plus every listed precision that compiles (default)")
    ap.add_argument("--include", default=os.path.join(ROOT, "include"), help="staticformer headers to measure")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "footprint"))
    ap.add_argument("--opt", default="-O2", help="optimisation flags (default -O2)")
    ap.add_argument("--reference", action="store_true", help="measure sf::reference on every target")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-profile", action="store_true", help="skip the Cortex-M speed proxy")
    ap.add_argument("--profile-precisions", default="f32,f16,int8,int8-dsp",
                    help="precisions of the speed proxy (default f32,f16,int8,int8-dsp)")
    ap.add_argument("--profile-only", action="store_true", help="only the Cortex-M speed proxy")
    ap.add_argument("--output", help="also write the Markdown here (default: <build-dir>/footprint.md)")
    ap.add_argument("--details", action="store_true", help="print call-graph details (stack paths, functions)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    VERBOSE = args.verbose
    t_start = time.time()
    args.include = os.path.abspath(args.include)
    args.build_dir = os.path.abspath(args.build_dir)
    targets = [TARGET_BY_NAME[n] for n in args.targets.split(",")]
    args.target_order = [t.name for t in TARGETS]
    configs = args.configs.split(",")
    args.config_order = [c for c in CONFIGS if c in configs]
    for c in configs:
        if c not in CONFIGS:
            sys.exit("unknown config %s" % c)
    gen = os.path.join(args.build_dir, "gen")
    os.makedirs(gen, exist_ok=True)

    names = list(PRECISIONS) if args.precisions == "auto" else args.precisions.split(",")
    avail = {}
    for n in names:
        if n not in PRECISIONS:
            sys.exit("unknown precision %s" % n)
        avail[n] = precision_available(n, args.include, gen) if n != "f32" else (True, "")
    precisions = [n for n in names if avail[n][0]]

    # Weights headers (rewritten only when their text changes, so rebuilds are incremental). The
    # int8 ones are quantised from the f32 ones, on the host, one configuration per job.
    quantised = any(PRECISIONS[p].literal is None for p in precisions)
    for c in configs:
        for p in precisions + (["f32"] if quantised and "f32" not in precisions else []):
            write_if_changed(os.path.join(gen, "weights_%s_%s.hpp" % (c, p)), weights_header(c, CONFIGS[c], PRECISIONS[p]))
    args.quant = {}
    if quantised:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(args.jobs, len(configs)))) as ex:
            for c, line in zip(configs, ex.map(lambda c: quantised_header(c, CONFIGS[c], gen, args.include), configs)):
                args.quant[c] = kv_line(line, "sf_fp_quant:") or {}

    xsimd_dir = ""
    if os.path.isdir("/usr/include/xsimd"):
        xsimd_dir = os.path.join(args.build_dir, "xsimd_include")
        os.makedirs(xsimd_dir, exist_ok=True)
        link = os.path.join(xsimd_dir, "xsimd")
        if not os.path.islink(link):
            os.symlink("/usr/include/xsimd", link)

    all_cases = [] if args.profile_only else ["%s_%s" % (c, p) for c in configs for p in precisions]
    results, prof = {}, {}
    # Targets run in parallel (build, analyse, run), longest first; each build gets a share of
    # the jobs.
    order = sorted(targets, key=lambda t: (not t.bare, t.name != "cortex-m3"))
    workers = max(1, min(args.jobs, len(order)))
    build_jobs = max(1, args.jobs // workers)

    def on_target(p, t):
        return PRECISIONS[p].targets is None or t.name in PRECISIONS[p].targets

    def pipeline(t):
        cases = [case for case in all_cases if on_target(case.split("_", 1)[1], t)]
        pcases = [] if (args.no_profile or not t.bare) else [
            "%s_%s" % (c, p) for c in PROFILE_CONFIGS.get(t.name, []) if c in configs
            for p in args.profile_precisions.split(",") if p in precisions and on_target(p, t)]
        print("footprint: %s: building ..." % t.name, file=sys.stderr, flush=True)
        t0 = time.time()
        bdir, failed = configure_and_build(t, args.build_dir, args, cases, pcases, xsimd_dir, build_jobs)
        res, pr = {}, {}
        for case in cases:
            c, p = case.split("_", 1)
            if case in failed:
                res[(t.name, p, c)] = {"error": "build failed (%s)" % os.path.join(bdir, "build-errors.log")}
                continue
            try:
                res[(t.name, p, c)] = {"analysis": analyse(t, bdir, case)}
            except Exception as e:  # keep the other rows
                res[(t.name, p, c)] = {"error": "analysis failed: %s" % str(e).splitlines()[0]}
                continue
            vl = PROBE_VALID_LEN.get((t.name, c))
            rc, text, secs = run_program(t, os.path.join(bdir, "fp_%s_probe%s" % (case, t.suffix)),
                                         [str(vl)] if vl else [], 280)
            d = kv_line(text, "sf_fp:")
            if d is None:
                res[(t.name, p, c)]["error"] = "probe failed (exit %d): %s" % (rc, text.strip()[-200:])
            else:
                res[(t.name, p, c)]["probe"] = d
        for case in pcases:
            c, p = case.split("_", 1)
            if "profile:" + case in failed:
                pr[(t.name, c, p)] = {"error": "build failed"}
                continue
            rc, text, secs = run_program(t, os.path.join(bdir, "fp_%s_profile%s" % (case, t.suffix)), [], 280)
            d = parse_profile(text)
            pr[(t.name, c, p)] = d if d else {"error": "profile failed (exit %d)" % rc}
        print("footprint: %s: done in %.0f s" % (t.name, time.time() - t0), file=sys.stderr, flush=True)
        return res, pr

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        for res, pr in ex.map(pipeline, order):
            results.update(res)
            prof.update(pr)

    text = report(results, prof, args, avail, time.time() - t_start)
    print(text)
    if args.details:
        print("\n## Details\n")
        for key in sorted(results):
            if "detail" in results[key]:
                print("- " + results[key]["detail"])
    outp = args.output or os.path.join(args.build_dir, "footprint.md")
    with open(outp, "w") as f:
        f.write(text + "\n")
        f.write("\n## Details\n\n")
        for key in sorted(results):
            if "detail" in results[key]:
                f.write("- " + results[key]["detail"] + "\n")
    bad = [k for k, r in results.items() if "error" in r] + [k for k, p in prof.items() if "error" in p]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
