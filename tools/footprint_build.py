"""Footprint: building the measured programs per target, running them, and parsing what they print."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = os.path.join(ROOT, "ports", "footprint")

VERBOSE = False  # footprint.py -v: echo every command


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


def precision_available(prec, include_dir, gen_dir):
    """(True, "") if encoder<cfg, P> and encoder_weights<cfg, P> compile on the host, else (False, why)."""
    src = os.path.join(gen_dir, "check_%s.cpp" % prec.name)
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


def configure_and_build(target, build_dir, args, cases, profile_cases, xsimd_dir, jobs):
    bdir = os.path.join(build_dir, target.name + getattr(args, "variant", ""))
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
    t0 = time.time()
    p = run(["cmake", "--build", bdir, "-j", str(jobs), "--"] + (["-k", "0"] if ninja else ["-k"]), check=False)

    def built(kind, case):  # present, and not left over from an earlier build when this one failed
        path = os.path.join(bdir, "fp_%s_%s%s" % (case, kind, target.suffix))
        return os.path.exists(path) and (p.returncode == 0 or os.path.getmtime(path) >= t0)

    failed = set()
    for case in cases:
        if not all(built(kind, case) for kind in ("base", "fwd", "probe")):
            failed.add(case)
    for case in profile_cases:
        if not built("profile", case) or not built("timing", case):
            failed.add("profile:" + case)
    errors = os.path.join(bdir, "build-errors.log")
    if p.returncode == 0 and os.path.exists(errors):
        os.remove(errors)
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


def parse_profile(text):
    """The kernel split of a profile program's output (kernel_profile.hpp), or None if it printed none."""
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
            "crc": head["crc_plain"], "calls": {n: int(d["calls"]) for n, d in ks.items()},
            "mask": {k: int(v) for k, v in (kv_line(text, "sf_prof_mask:") or {}).items()}}

