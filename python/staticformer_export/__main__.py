"""python3 -m staticformer_export: the exporter's command line (cli.py)."""
import sys

from .cli import main

sys.exit(main())
