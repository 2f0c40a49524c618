#!/usr/bin/env python3
"""The exporter's command line in the checkout: staticformer-export (python/staticformer_export,
cli.py), which `python3 -m pip install --no-deps --no-build-isolation ./python` and cmake --install
install. Same arguments; `--help` lists them."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))  # the checkout's package

from staticformer_export.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
