"""Footprint: analysis of the linked images: sections, symbols, heap functions, disassembly, and
the call graph from forward() with its code bytes and worst-case stack."""

import bisect
import os
import re

from footprint_build import run


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


# Not the Armv8.1-M branch-future family (bf, bfcsel, bfl, bfx): GCC does not emit them, and
# binutils 2.40 shows the M55's DLSTP (a tail-predicated loop start) as "bfcsel" with a
# meaningless target.
CONTROL = re.compile(r"^(b(?!f)[a-z.]*|j[a-z]*|call[a-z]*|tail|cbn?z|tbn?z)\s")


def veneer_destinations(lines):
    """Linker veneers among objdump's lines: the address of each unnamed one-instruction stub
    (`b.w X`) that ld places after a function's literal pool, the last code before the next symbol
    (e.g. the Cortex-A8 erratum fix of armv7 links, which reroutes a branch that straddles a 4 KiB
    page) -> X. objdump lists such stubs under the function before them, which would make that
    function reference X's."""
    out, pending, after_pool = {}, {}, False
    for ln in lines + ["00000000 <end>:"]:
        if re.match(r"^[0-9a-f]+ <.+>:$", ln):
            out.update(pending)  # stubs up to the next symbol
            pending, after_pool = {}, False
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", ln)
        if not m:
            continue
        ins = m.group(2).strip()
        b = re.match(r"^b(?:\.w)?\s+([0-9a-f]+) <", ins)
        if re.match(r"^\.word\b", ins):
            after_pool, pending = True, {}
        elif after_pool and b:
            pending[int(m.group(1), 16)] = int(b.group(1), 16)
        else:
            after_pool, pending = False, {}  # code: what looked like stubs was the function's
    return out


def disassemble(target, elf):
    """Functions of the image from objdump: address -> {name, refs: set(function addresses), lines}.
    A reference is any branch or call target annotated <name> or <name+off> that lies in another
    function (libgcc's assembly branches into the middle of its neighbours), plus the next
    function when the last instruction can fall through into it. A branch to a linker veneer
    counts as a branch to the veneer's destination (veneer_destinations)."""
    out = run([tool(target, "objdump"), "-d", "--no-show-raw-insn", elf]).stdout
    veneers = veneer_destinations(out.splitlines())
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
        if int(m.group(1), 16) in veneers:
            continue  # not the function's code
        if CONTROL.match(ins):
            for a, n in re.findall(r"([0-9a-f]+) <([^>]+)>", ins):
                cur["targets"].add(veneers.get(int(a, 16), int(a, 16)))
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
        while body and re.match(r"^movs\s+r0, r0$", body[-1]):  # zero halfwords: alignment padding
            body.pop()
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

