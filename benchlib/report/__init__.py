"""The report: the HTML report of a reproduction (``html``, ``templates/``)
and the figures the notebooks share (``figures``: machine labels, the
highlighted row, interval plots, saving PNG and SVG).

May import every layer below it (measuring, results, stats, memory,
papers); only the CLI and the notebooks import it."""
