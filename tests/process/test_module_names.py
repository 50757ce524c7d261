"""Names that explain themselves do not collide: no two modules of the program share a
file name (scenario packages excepted: each has its spec.py and scenario.py by design)."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_two_modules_of_the_engine_the_library_the_command_line_and_the_lab_share_a_name():
    names = Counter(p.name for d in ("engine", "ael_lab", "ael_cli", "ael_tui") for p in (ROOT / d).rglob("*.py")
                    if p.name != "__init__.py")
    assert [n for n, k in names.items() if k > 1] == []


def test_the_lab_is_grouped_by_feature():
    folders = {p.name for p in (ROOT / "ael_tui").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == {"lab", "decisions", "memory", "compare", "tour", "files", "serve", "widgets"}
    for folder in ("lab", "compare", "tour", "files", "decisions"):
        assert list((ROOT / "ael_tui" / folder).glob("*.tcss")), f"{folder}/ has no stylesheet"


def test_the_command_line_is_its_own_package_and_never_imports_textual():
    """The headless commands beside the lab, not inside it: `run`, `sweep`, `reproduce` work
    where Textual is not even importable (the lab is reached only by `ael-lab`, `lab`, `open`, `serve`)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['textual'] = None\n"
            "import ael_cli.main, ael_cli.runner, ael_cli.sweep.sweep_command, ael_cli.reproduce.reproduce_command\n"
            "import ael_cli.timetravel_command, ael_cli.replay_command\n"
            "ael_cli.main.build_parser()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    folders = {p.name for p in (ROOT / "ael_cli").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == {"flags", "sweep", "reproduce"}
