"""``python -m benchlib.report RUN_DIR``: the HTML report of a reproduction."""
import sys

from benchlib.report.html import main

sys.exit(main())
