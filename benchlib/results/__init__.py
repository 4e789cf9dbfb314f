"""Results: what a measurement leaves and how two are compared.

Owns the result file and its JSON schema
with upgrades from older versions (``resultfile``, ``schema/``), the
results store of a folder of runs (``store``), the SQL database of many
machines' runs (``db/``, an optional extra: ``pip install 'benchlib[db]'``),
and the comparison of two sets of results (``compare``).

May import: ``benchlib.errors``, ``benchlib.stats``,
``benchlib.measuring`` (the ``Result`` type and the machine description).  Never a
paper, the report or the CLI (an import-linter contract)."""
