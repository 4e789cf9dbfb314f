"""A bare install: the commands that need no extra work without them, and a
command that needs one says which in one line (the database's packages are
made unimportable in a child interpreter)."""
import subprocess
import sys

import pytest

BLOCK = ("import sys\n"
         "class Block:\n"
         "    def find_spec(self, name, path=None, target=None):\n"
         "        if name.split('.')[0] in ('sqlalchemy', 'psycopg'):\n"
         "            raise ImportError(f'No module named {name!r} (blocked by the test)')\n"
         "sys.meta_path.insert(0, Block())\n"
         "from benchlib.cli import main\n"
         "code = main(sys.argv[1:])\n"
         "assert 'sqlalchemy' not in sys.modules\n"
         "sys.exit(code)\n")


def _cli(*args):
    return subprocess.run([sys.executable, "-c", BLOCK, *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("args", [("--help",), ("list",),
                                  ("run", "syscall", "-p", "op=getppid", "--samples", "5")])
def test_commands_work_without_the_database_packages(args):
    p = _cli(*args)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("sub", ["list", "import"])
def test_the_database_command_names_its_extra_in_one_line(sub, tmp_path):
    p = _cli("db", sub, *([str(tmp_path)] if sub == "import" else []))
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr
    assert "pip install 'benchlib[db]'" in p.stderr
