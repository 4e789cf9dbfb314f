"""``python -m benchlib.cli``: the benchlib command."""
import sys

from . import main

sys.exit(main())
