"""Names that explain themselves do not collide: no two modules of the program share a
file name (scenario packages excepted: each has its spec.py and scenario.py by design)."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_two_modules_of_the_engine_and_the_lab_share_a_name():
    names = Counter(p.name for d in ("engine", "ael_tui") for p in (ROOT / d).rglob("*.py")
                    if p.name != "__init__.py")
    assert [n for n, k in names.items() if k > 1] == []


def test_the_lab_is_grouped_by_feature():
    folders = {p.name for p in (ROOT / "ael_tui").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == {"lab", "decisions", "memory", "compare", "tour", "files", "serve", "sweep", "reproduce", "charts"}
    for folder in ("lab", "compare", "tour", "files", "decisions"):
        assert list((ROOT / "ael_tui" / folder).glob("*.tcss")), f"{folder}/ has no stylesheet"
