#!/usr/bin/env python3
"""Checks that tests/common/reference_configs.hpp lists the reference configurations exactly as
python/staticformer_export/encoder_schema.py's REFERENCE_CONFIGS does (names, dimensions, options)."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))  # the checkout's staticformer_export package
from staticformer_export.encoder_schema import REFERENCE_CONFIGS, config_type  # noqa: E402

header = (ROOT / "tests" / "common" / "reference_configs.hpp").read_text()
cpp = dict(re.findall(r"^using (\w+) = (staticformer::encoder_config<[^;]*>);", header, re.M))
python = {name: config_type(spec) for name, spec in REFERENCE_CONFIGS.items()}
if cpp != python:
    print("reference configurations differ:\n  C++:    %s\n  Python: %s" % (cpp, python))
    sys.exit(1)
print("%d reference configurations: C++ == Python" % len(cpp))
