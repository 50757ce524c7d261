"""Issue 40's first Done-when: a script using only docs/api.md's names (examples/library_decisions.py)
plays support seed 42 in manual approval to the proposals at 920, approves the insight, rejects the
arm, runs to the end, and gets the results `ael-lab run` gives with the same decisions; its history
has one row per episode.

The CLI decides a run's proposals by its approval mode (`--approve`, auto by default) and, where a
saved run stops or a branch changes one, by `--decide K=...`; so its run with the same decisions is
the default run taken back to 920 with proposal #2 rejected there, then resumed to the end."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

from ael_cli.main import main
from tests.api_docs import documented

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "library_decisions.py"


def _script():
    spec = importlib.util.spec_from_file_location("library_decisions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def played():
    return _script().play()


def _cli(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@pytest.mark.heavy  # two support runs and a replay to 920: about 3 s of CPU
def test_the_script_gets_the_cli_results_with_the_same_decisions(played, tmp_path):
    saved, branched = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    _cli(["run", "support", "--seeds", "42", "--until", "921", "--save", saved, "--quiet"])
    _cli(["branch", saved, "--at", "920", "--decide", "2=reject", "--save", branched])
    document = json.loads(_cli(["run", "support", "--resume", branched, "--json", "-"]))
    assert played.results() == document["runs"][0]
    # the decisions made a difference: the default run took the arm at 920, this one only later
    assert played.results()["injections"] == [{"episode": 1080, "arm": "route_aware"}]


@pytest.mark.heavy
def test_its_history_has_one_row_per_episode_and_its_audit_the_decisions(played):
    history = played.history()
    assert len(history) == played.n_episodes == 1200
    assert history["episode"].tolist() == list(range(1200))
    audit = played.audit().set_index("proposal")
    assert (audit.loc[1, "decision"], audit.loc[1, "who"]) == ("approve", "ael_lab")
    assert (audit.loc[2, "decision"], audit.loc[2, "who"]) == ("reject", "ael_lab")
    assert audit.loc[2, "reason"].startswith("keep the pool")


def test_the_script_uses_only_the_names_docs_api_documents():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert not any(isinstance(node, ast.ImportFrom) for node in ast.walk(tree))
    assert all(name == "ael_lab" or name in sys.stdlib_module_names for name in imported)
    stdlib = imported - {"ael_lab"}
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and not (isinstance(node.value, ast.Name) and node.value.id in stdlib)}
    assert used and used <= documented(), used - documented()
