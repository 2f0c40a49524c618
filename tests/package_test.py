#!/usr/bin/env python3
"""The exporter as a Python package (python/staticformer_export): its modules import no sys.path
and one another without a cycle, its version is the CMake project's, and a copy of python/
installs offline with Debian's pip (--no-deps --no-build-isolation) and works from that install
alone: staticformer-export exports and verifies a TransformerClassifier the installed package
made, a module pickled under the old top-level name staticformer_torch, and the C++ header it
writes compiles against the headers the wheel carries, equal to the blob. The checkout's
tools/export_pytorch.py takes the same options. Run with /usr/bin/python3 (torch)."""

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from checks import check, failures

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "staticformer_export"


def module_imports(path: Path) -> set:
    """The package modules path imports at module level (relative imports)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
    return out


def cycle(graph: dict):
    """A cycle of graph (module -> imported modules) as a list, or None."""
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                return path + [m, n]
            if n not in state:
                found = visit(n, path + [m])
                if found:
                    return found
        state[m] = "done"
        return None
    for m in sorted(graph):
        if m not in state:
            found = visit(m, [])
            if found:
                return found
    return None


def check_sources() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    patched = [m.name for m in modules if "sys.path" in m.read_text()]
    check(not patched, f"no package module patches sys.path ({patched or 'none'})")
    check(cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None and cycle({"a": {"b"}, "b": set()}) is None,
          "the cycle finder finds a cycle of three and none in a chain")
    graph = {m.stem: module_imports(m) for m in modules}
    found = cycle(graph)
    check(found is None, f"the package's modules import one another without a cycle ({found or 'none'})")
    version = re.search(r'__version__ = "([^"]+)"', (PACKAGE / "__init__.py").read_text()).group(1)
    project = re.search(r"project\(staticformer VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    check(version == project, f"the package's version {version} is the CMake project's {project}")


def run(cmd, cwd, env) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def check_installed(tmp: Path) -> None:
    source, target, work = tmp / "source", tmp / "site", tmp / "work"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    done = run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                "--target", str(target), str(source)], tmp, dict(os.environ))
    check(done.returncode == 0, f"pip installs a copy of python/ offline ({done.stderr.strip()[-300:]})")
    if done.returncode:
        return
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(target), PYTHON=sys.executable)
    make = r'''
import sys, torch
from staticformer_export import TransformerClassifier
import staticformer_export.staticformer_torch as st
assert "site" in st.__file__, st.__file__
torch.manual_seed(5)
m = TransformerClassifier(d_model=16, heads=2, d_ff=24, layers=1, seq_len=6, input="tokens", vocab=9,
                          positions="sinusoidal", pooling="mean", pooled_norm=True, classes=3).eval()
torch.save(m, "model.pt")
sys.modules["staticformer_torch"] = st  # a pickle from before the package: the class under its old name
st.TransformerClassifier.__module__ = "staticformer_torch"
torch.save(m, "old.pt")
'''
    done = run([sys.executable, "-c", make], work, env)
    check(done.returncode == 0, f"the installed package's TransformerClassifier is saved ({done.stderr.strip()[-300:]})")
    with zipfile.ZipFile(work / "old.pt") as z:
        pickled = b"".join(z.read(n) for n in z.namelist() if n.endswith("data.pkl"))
    check(b"staticformer_torch\nTransformerClassifier" in pickled, "old.pt names the class staticformer_torch's")
    exporter = str(target / "bin" / "staticformer-export")
    for model in ("model.pt", "old.pt"):
        done = run([sys.executable, exporter, "--module", model, "--name", "m", "--header", "m.hpp", "--blob", "m.sfwm",
                    "--quiet"], work, env)
        check(done.returncode == 0 and "verify: f32" in done.stdout,
              f"the installed staticformer-export exports and verifies {model} ({(done.stdout + done.stderr).strip()[-200:]})")
    include = target / "staticformer_export" / "include"
    (work / "use.cpp").write_text('#include "m.hpp"\n#include <cstdio>\n#include <cstring>\n#include <vector>\n'
                                  "int main() {\n    std::FILE* f = std::fopen(\"m.sfwm\", \"rb\");\n"
                                  "    alignas(64) static unsigned char b[1 << 20];\n"
                                  "    const std::size_t n = std::fread(b, 1, sizeof b, f);\n"
                                  "    const staticformer::model_weights<m_config, staticformer::f32>* w = nullptr;\n"
                                  "    return staticformer::load_blob(b, n, w) == staticformer::status::ok &&\n"
                                  "           std::memcmp(w, &m, sizeof m) == 0 ? 0 : 1;\n}\n")
    cxx = os.environ.get("CXX", "c++").split()
    done = run(cxx + ["-std=c++17", f"-I{include}", "use.cpp", "-o", "use"], work, env)
    ran = run([str(work / "use")], work, env) if done.returncode == 0 else done
    check(ran.returncode == 0, f"the header compiles against the wheel's headers and equals the blob "
                               f"({(done.stderr or ran.stderr).strip()[-200:]})")


def options(cmd) -> set:
    text = subprocess.run(cmd, capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z][a-z0-9-]*", text))


def main() -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIPPED: /usr/bin/python3 has no torch (apt-get install python3-torch)")
        return 77
    check_sources()
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        print("SKIPPED the install: no pip (apt-get install python3-pip python3-setuptools)")
        return 1 if failures else 77
    with tempfile.TemporaryDirectory() as d:
        check_installed(Path(d))
    env_path = str(ROOT / "python")
    script = options([sys.executable, str(ROOT / "tools" / "export_pytorch.py"), "--help"])
    module = options(["env", f"PYTHONPATH={env_path}", sys.executable, "-m", "staticformer_export", "--help"])
    check(script and script == module, f"tools/export_pytorch.py and python3 -m staticformer_export take the same "
                                       f"{len(script)} options")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("the package: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
