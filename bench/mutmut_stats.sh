#!/usr/bin/env bash
# mutmut on benchlib/stats/summary.py with its tests, in a temporary copy of
# the repository (mutmut writes a mutants/ folder and reads its settings from
# pyproject.toml; neither belongs in the checkout).  Prints mutmut's results
# (the survivors) and the counts.  Needs `pip install mutmut` (3.x).
#   bench/mutmut_stats.sh [PYTHON]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${1:-python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PYTHONPATH="$repo" "$python" -c "import sys; sys.path.insert(0, '$repo/bench'); \
import mutation_check as m; from pathlib import Path; m.make_copy(Path('$work'))"
cat >> "$work/pyproject.toml" <<'TOML'

[tool.mutmut]
source_paths = ["benchlib/"]
only_mutate = ["benchlib/stats/summary.py"]
pytest_add_cli_args_test_selection = ["tests/test_stats_compare.py", "tests/test_paired.py", "tests/test_intervals.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not notebook", "-q"]
TOML
cd "$work"
mutmut=$(dirname "$("$python" -c 'import sys; print(sys.executable)')")/mutmut
PYTHONPATH= "$mutmut" run --max-children 2 > mutmut.log 2>&1 || { tail -20 mutmut.log; exit 1; }
"$mutmut" results || true
tail -c 200 mutmut.log | tr '\r' '\n' | tail -2
