#!/usr/bin/env python3
"""staticformer footprint: code, weights, static RAM, stack and heap-freedom of forward() on
every target, plus the Cortex-M speed proxy (instructions per inference, split by kernel).

    tools/footprint.sh                      # everything: builds into build/footprint/, prints Markdown
    tools/footprint.py --targets cortex-m4,cortex-m7 --configs tiny --include /tmp/x/include \\
        --build-dir /tmp/fp-x               # e.g. the speed proxy of a modified copy of the headers

What it measures it also writes into the checkout (--write, default auto: when measuring the
checkout's include/): python/staticformer_export/footprint_costs.json, the speed proxy's instructions per inference per
core, precision and configuration and their split by kernel (a run with --targets or --configs
updates only its own entries), which python/staticformer_export/kernel_costs.py fits the export report's estimates to;
and, after a run of everything at the defaults, the Markdown tables between the marker lines of
docs/footprint-and-timing.md (a missing page or marker is a note, not an error).

Standard library only; needs the Debian toolchains of ports/ (see the Makefile's CROSS_PACKAGES),
cmake, and ninja if installed (else make). The measured programs are in ports/footprint/
(footprint_main.cpp, kernel_profile.hpp); ports/footprint/README.md explains the method.

Adding a precision row: add an entry to PRECISIONS: its C++ tag and how its weights header is
made (f32, f16: each weight value written as a literal of the generated initialiser; int8:
quantised from the f32 weights by the library's quantiser, ports/footprint/quantize_weights.cpp),
optionally a backend other than the default and the targets it exists on (int8-dsp: the
sf::cortex_m_dsp backend's SMLAD kernels). Precisions whose encoder does not compile yet are reported as
"not available" and skipped.
"""

# The jobs are in footprint_cases.py (what is measured: targets, configurations, PRECISIONS,
# budgets), footprint_weights.py (generated weights headers), footprint_build.py (build and run),
# footprint_elf.py (image analysis), footprint_report.py (Markdown) and footprint_results.py (the
# files written into the checkout); this file runs them.

import argparse
import concurrent.futures
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import footprint_build  # noqa: E402
import footprint_results  # noqa: E402
from footprint_build import (ROOT, configure_and_build, kv_line, kv_lines, parse_profile, precision_available,
                             run_program, write_if_changed)
from footprint_cases import (CONFIGS, FOOTPRINT_CONFIGS, PRECISIONS, PROBE_VALID_LEN, PROFILE_CONFIGS, TARGET_BY_NAME,
                             TARGETS)
from footprint_elf import analyse
from footprint_report import report, tables
from footprint_weights import quantised_header, quantised_precision, weights_header


# The timing table runs forward() 58 x 4 times per row: not for rows whose inference is longer
# than this (the soft-float Cortex-M3's f32 and f16: 770 M instructions).
TIMING_LIMIT = 50e6
DEFAULT_OPT_LEVELS = "-Os,-O2,-O3"
DEFAULT_PROFILE_PRECISIONS = "f32,f16,int8,int8-dsp,a16w8,a16w8-dsp"


def measure(targets, args, all_cases, configs, precisions, xsimd_dir):
    """Builds, analyses and runs `all_cases` (config_precision) and the speed proxy on `targets`
    at args.opt: ({(target, precision, config): result}, {(target, config, precision): profile})."""
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
            if d and args.timing and d["total"] <= TIMING_LIMIT and c in FOOTPRINT_CONFIGS:
                rc, text, secs = run_program(t, os.path.join(bdir, "fp_%s_timing%s" % (case, t.suffix)), [], 900)
                d["timing"] = kv_lines(text, "sf_timing:") or [{"error": "timing failed (exit %d)" % rc}]
                d["timing_kernels"] = kv_lines(text, "sf_timing_kernel:")
                d["timing_activation"] = kv_line(text, "sf_timing_activation:")
        print("footprint: %s: done in %.0f s" % (t.name, time.time() - t0), file=sys.stderr, flush=True)
        return res, pr

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        for res, pr in ex.map(pipeline, order):
            results.update(res)
            prof.update(pr)

    return results, prof


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default=",".join(t.name for t in TARGETS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--precisions", default="auto",
                    help="comma list, or auto: f32 plus every listed precision that compiles (default)")
    ap.add_argument("--include", default=os.path.join(ROOT, "include"), help="staticformer headers to measure")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "footprint"))
    ap.add_argument("--opt", default="-O2", help="optimisation flags (default -O2)")
    ap.add_argument("--opt-levels", default=DEFAULT_OPT_LEVELS,
                    help="Cortex-M, tiny: also measure at these levels (default -Os,-O2,-O3; '' for none)")
    ap.add_argument("--reference", action="store_true", help="measure sf::reference on every target")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-profile", action="store_true", help="skip the Cortex-M speed proxy")
    ap.add_argument("--profile-precisions", default=DEFAULT_PROFILE_PRECISIONS,
                    help="precisions of the speed proxy (default f32,f16,int8,int8-dsp)")
    ap.add_argument("--profile-only", action="store_true", help="only the Cortex-M speed proxy")
    ap.add_argument("--no-timing", dest="timing", action="store_false",
                    help="skip the Cortex-M timing table (58 inputs x 4 valid_len per core and precision)")
    ap.add_argument("--output", help="also write the Markdown here (default: <build-dir>/footprint.md)")
    ap.add_argument("--write", choices=("auto", "always", "never"), default="auto",
                    help="update the checkout's measured files: python/staticformer_export/footprint_costs.json (the speed proxy's "
                         "entries this run measured, at -O2) and, after a run of every target, configuration "
                         "and table, docs/footprint-and-timing.md's tables. auto (default): when the headers "
                         "measured are the checkout's include/; always: whatever --include; never")
    ap.add_argument("--details", action="store_true", help="print call-graph details (stack paths, functions)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.include = os.path.abspath(args.include)
    args.variant = ""  # build directory suffix of the targets (the other optimisation levels)
    args.build_dir = os.path.abspath(args.build_dir)
    args.target_order = [t.name for t in TARGETS]
    for c in args.configs.split(","):
        if c not in CONFIGS:
            sys.exit("unknown config %s" % c)
    args.config_order = [c for c in CONFIGS if c in args.configs.split(",")]
    return args


def available_precisions(args, gen):
    """({precision: (compiles, why not)}, [the precisions measured])."""
    names = list(PRECISIONS) if args.precisions == "auto" else args.precisions.split(",")
    avail = {}
    for n in names:
        if n not in PRECISIONS:
            sys.exit("unknown precision %s" % n)
        avail[n] = precision_available(PRECISIONS[n], args.include, gen) if n != "f32" else (True, "")
    return avail, [n for n in names if avail[n][0]]


def write_weights(args, configs, precisions, gen):
    """The weights headers (rewritten only when their text changes, so rebuilds are incremental).
    The int8 ones are quantised from the f32 ones, on the host, one configuration per job; their
    report lines go to args.quant."""
    quantised = sorted({quantised_precision(PRECISIONS[p]) for p in precisions if PRECISIONS[p].literal is None})
    for c in configs:
        for p in precisions + (["f32"] if quantised and "f32" not in precisions else []):
            write_if_changed(os.path.join(gen, "weights_%s_%s.hpp" % (c, p)), weights_header(c, CONFIGS[c], PRECISIONS[p]))
    args.quant = {}
    jobs = [(c, q) for q in quantised for c in configs]
    if jobs:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(args.jobs, len(jobs)))) as ex:
            lines = ex.map(lambda j: quantised_header(j[0], CONFIGS[j[0]], gen, args.include, j[1]), jobs)
            for (c, q), line in zip(jobs, lines):
                args.quant[(c, q)] = kv_line(line, "sf_fp_quant:") or {}


def xsimd_include(args):
    """A directory holding only a link to the host's xsimd (for the cross targets), or ""."""
    if not os.path.isdir("/usr/include/xsimd"):
        return ""
    xsimd_dir = os.path.join(args.build_dir, "xsimd_include")
    os.makedirs(xsimd_dir, exist_ok=True)
    link = os.path.join(xsimd_dir, "xsimd")
    if not os.path.islink(link):
        os.symlink("/usr/include/xsimd", link)
    return xsimd_dir


def measure_levels(args, targets, configs, precisions, xsimd_dir, results, prof):
    """args.levels: {level: (results, prof)}: the same Cortex-M programs (tiny) at the other
    optimisation levels a firmware user builds with: code, stack and instructions per level
    (footprint_report.levels_section)."""
    args.levels = {args.opt: (results, prof)}
    level_targets = [t for t in targets if t.bare]
    if "tiny" not in configs or not level_targets or args.profile_only:
        return
    for level in [o for o in args.opt_levels.split(",") if o and o != args.opt]:
        print("footprint: %s ..." % level, file=sys.stderr, flush=True)
        la = argparse.Namespace(**vars(args))
        la.opt, la.variant, la.timing = level, "-" + level.lstrip("-"), False
        args.levels[level] = measure(level_targets, la, ["tiny_%s" % p for p in precisions], ["tiny"],
                                     precisions, xsimd_dir)
    order = [o for o in args.opt_levels.split(",") if o in args.levels]
    args.levels = {o: args.levels[o] for o in order + [o for o in args.levels if o not in order]}


def write_markdown(text, results, args):
    """Prints the report (and with --details the call-graph details) and writes both to --output."""
    print(text)
    details = ["- " + results[key]["detail"] for key in sorted(results) if "detail" in results[key]]
    if args.details:
        print("\n## Details\n")
        for d in details:
            print(d)
    outp = args.output or os.path.join(args.build_dir, "footprint.md")
    with open(outp, "w") as f:
        f.write(text + "\n")
        f.write("\n## Details\n\n")
        for d in details:
            f.write(d + "\n")


def full_run(args):
    """Whether this run measured every target, configuration, precision and table at the defaults
    (what the docs page shows), else what it left out."""
    left = [what for what, off in (
        ("--targets", set(args.targets.split(",")) != set(args.target_order)),
        ("--configs", args.config_order != list(CONFIGS)), ("--precisions", args.precisions != "auto"),
        ("--opt", args.opt != "-O2"), ("--opt-levels", args.opt_levels != DEFAULT_OPT_LEVELS),
        ("--reference", args.reference), ("--no-profile", args.no_profile), ("--profile-only", args.profile_only),
        ("--profile-precisions", args.profile_precisions != DEFAULT_PROFILE_PRECISIONS),
        ("--no-timing", not args.timing)) if off]
    return not left, left


def write_checkout(args, results, prof, avail):
    """--write: python/staticformer_export/footprint_costs.json and the docs page's tables (footprint_results.py)."""
    if args.write == "never":
        return
    if args.write == "auto" and os.path.realpath(args.include) != os.path.realpath(os.path.join(ROOT, "include")):
        footprint_results.note("--include is not the checkout's include/: docs and costs not written "
                               "(--write always to write them)")
        return
    footprint_results.write_costs(prof, args.opt)
    full, left = full_run(args)
    if full:
        footprint_results.write_doc("\n".join(tables(results, prof, args, avail)))
    else:
        footprint_results.note("%s not rewritten: a partial run (%s)" % (
            os.path.relpath(footprint_results.DOC, ROOT), ", ".join(left)))


def main(argv=None):
    args = parse_args(argv)
    footprint_build.VERBOSE = args.verbose
    t_start = time.time()
    targets = [TARGET_BY_NAME[n] for n in args.targets.split(",")]
    configs = args.configs.split(",")
    gen = os.path.join(args.build_dir, "gen")
    os.makedirs(gen, exist_ok=True)
    avail, precisions = available_precisions(args, gen)
    write_weights(args, configs, precisions, gen)
    xsimd_dir = xsimd_include(args)

    all_cases = [] if args.profile_only else ["%s_%s" % (c, p) for c in configs if c in FOOTPRINT_CONFIGS
                                               for p in precisions]
    results, prof = measure(targets, args, all_cases, configs, precisions, xsimd_dir)
    measure_levels(args, targets, configs, precisions, xsimd_dir, results, prof)

    write_markdown(report(results, prof, args, avail, time.time() - t_start), results, args)
    write_checkout(args, results, prof, avail)
    bad = [k for k, r in results.items() if "error" in r] + [k for k, p in prof.items() if "error" in p]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
