"""The library's C++ as the exporter uses it: where its headers are, and the small programs the
exporter compiles with $CXX (default c++) and runs: the int8 quantiser (quantize_tool.hpp), the
self-check (verify_tool.hpp) and the size probes of the report and the C API."""

import os
import shlex
import subprocess
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent  # quantize_tool.hpp, verify_tool.hpp


def include_dir() -> Path:
    """The directory holding staticformer/staticformer.hpp: $STATICFORMER_INCLUDE_DIR, else the
    package's include/ (in the checkout and a CMake install a link to the library's headers, in a
    wheel their copy)."""
    for d in [os.environ.get("STATICFORMER_INCLUDE_DIR"), PACKAGE_DIR / "include"]:
        if d and (Path(d) / "staticformer" / "staticformer.hpp").is_file():
            return Path(d)
    raise RuntimeError(f"staticformer's headers are not in {PACKAGE_DIR / 'include'}: set STATICFORMER_INCLUDE_DIR "
                       "to the directory holding staticformer/staticformer.hpp")


def compile_program(source: str, tmp: Path, optimise: str, what: str) -> Path:
    """source written to tmp and compiled as C++17 (no contraction, as the library's arithmetic
    needs) against the headers and this package's tool headers; returns the program's path.
    RuntimeError names `what` if the compiler fails."""
    src, exe = tmp / "program.cpp", tmp / "program"
    src.write_text(source)
    cxx = shlex.split(os.environ.get("CXX", "c++"))
    build = cxx + ["-std=c++17", optimise, "-ffp-contract=off", f"-I{include_dir()}", f"-I{PACKAGE_DIR}",
                   str(src), "-o", str(exe)]
    if subprocess.run(build).returncode != 0:
        raise RuntimeError(f"compiling the {what} failed (is a C++17 compiler installed? set CXX)")
    return exe
