"""``python -m benchlib.cli``: the benchlib command."""
import sys

from benchlib.cli import main

sys.exit(main())
