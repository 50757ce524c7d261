"""`ael_lab`'s public surface: every public name documented in docs/api.md (and every heading
there naming something), each frame's columns as documented, mistakes as one-line AELErrors,
and the lab and the CLI standing on it alone: its public names, never the engine's or the
worlds' modules (issue 40)."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import sqlite3
from pathlib import Path

import pytest

import ael_lab
from ael_lab import Chart, Explanation, Session
from ael_lab.sweep import RUNS, SweepTables
from tests.api_docs import sections

ROOT = Path(__file__).resolve().parents[2]
CLASSES = {"Session": Session, "Chart": Chart, "Explanation": Explanation, "SweepTables": SweepTables}


def _public_members(cls: type) -> set[str]:
    own = {n for klass in cls.__mro__ if klass.__module__.startswith("ael_lab") for n in vars(klass)}
    fields = set(getattr(cls, "__dataclass_fields__", {}))
    return {n for n in own | fields if not n.startswith("_")}


def _every_public_name() -> set[str]:
    names = {f"ael_lab.{n}" for n in ael_lab.__all__}
    names |= {f"{module}.{n}" for module, public in PUBLIC_MODULES.items() if module != "ael_lab" for n in public}
    names |= {f"{c}.{m}" for c, cls in CLASSES.items() for m in _public_members(cls)}
    return names


def test_every_public_name_has_a_heading_in_docs_api_with_its_status():
    documented = sections()
    missing = sorted(_every_public_name() - set(documented))
    assert not missing, f"public but not in docs/api.md: {missing}"
    unmarked = sorted(n for n, (status, _) in documented.items() if status is None)
    assert not unmarked, f"docs/api.md: say *stable* or *provisional* under {unmarked}"


def test_every_heading_of_docs_api_names_something_public():
    assert sorted(set(sections()) - _every_public_name()) == []


def test_all_names_what_the_package_has():
    for name in ael_lab.__all__:
        assert hasattr(ael_lab, name), name
    assert {n for n in vars(ael_lab) if not n.startswith("_") and n not in ("annotations",)} - set(ael_lab.__all__) \
        <= {"sessions", "frames", "pictures", "side_by_side", *FLOOR}  # its modules, each once imported


FRAMES = ("history", "posteriors", "memory", "audit", "proposals")


@pytest.fixture(scope="module")
def waiting():
    """A synthetic run in manual approval, stopped where its first proposal (an arm) waits (episode 13)."""
    return ael_lab.new("synthetic", seed=1, approval="manual").run()


def test_each_frame_has_its_documented_columns_empty_and_played(waiting):
    documented = sections()
    fresh = ael_lab.new("synthetic", seed=1)
    for name in FRAMES:
        columns = documented[f"Session.{name}"][1]
        assert columns, f"docs/api.md has no column table under Session.{name}"
        assert list(getattr(fresh, name)().columns) == columns, name
        played = list(getattr(waiting, name)().columns)
        assert played[:len(columns)] == columns, name
    assert list(waiting.pending().columns) == documented["Session.proposals"][1]
    assert len(waiting.history()) == waiting.episode == 13


def test_the_sweep_tables_are_documented_as_the_store_holds_them():
    from ael_lab.sweep_store import SCHEMA

    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    documented = sections()
    for table in ("runs", "metrics", "rewards", "sweep", "ledger"):
        held = [c for (_, c, *_) in db.execute(f"PRAGMA table_info({table})") if c != "digest"]
        assert documented[f"SweepTables.{table}"][1] == held, table
    assert list(RUNS) == documented["SweepTables.runs"][1]


def _one_line(call) -> str:
    with pytest.raises(ael_lab.AELError) as caught:
        call()
    text = str(caught.value)
    assert text and "\n" not in text
    return text


def test_mistakes_are_one_line_errors_that_say_what_to_do(waiting, tmp_path):
    assert "support" in _one_line(lambda: ael_lab.new("suport"))
    assert "outside 0.." in _one_line(lambda: ael_lab.new("synthetic", seed=-1))
    assert "manual, auto, reject" in _one_line(lambda: ael_lab.new("synthetic", approval="sometimes"))
    assert "its options" in _one_line(lambda: ael_lab.new("synthetic", options={"bogus": 1}))
    assert "trigger, cadence" in _one_line(lambda: ael_lab.new("synthetic", reflector_options={"cadance": 5}))
    assert "reflector_options['cadence']" in _one_line(lambda: ael_lab.new("synthetic", reflector_options={"cadence": 0}))
    assert "credit=fcc" in _one_line(lambda: ael_lab.new("synthetic", variants=[3]))
    assert "a dict" in _one_line(lambda: ael_lab.new("synthetic", llm="anthropic"))
    assert "LLMConfig" in _one_line(lambda: ael_lab.new("synthetic", llm={"agnet": "local"}))
    assert "#1" in _one_line(waiting.step)
    assert "no proposal #99" in _one_line(lambda: waiting.approve(99))
    assert "whole number" in _one_line(lambda: waiting.reject("1"))
    assert "arms, reward, regret, regimes" in _one_line(lambda: waiting.chart("pie"))
    assert "out of range" in _one_line(lambda: waiting.rewind(500))
    assert "out of range" in _one_line(lambda: waiting.explain(13))
    assert "approve' or 'reject" in _one_line(lambda: waiting.branch(5, decide={1: "maybe"}))
    assert "policy field" in _one_line(lambda: waiting.edit(1, {"name": "a1"}))  # a name the pool has
    assert waiting.pending()["id"].tolist() == [1]  # none of it changed the run
    (tmp_path / "notes.txt").write_text("mine")
    assert "not an AEL Lab session" in _one_line(lambda: waiting.save(tmp_path / "notes.txt"))
    assert "not a usable session file" in _one_line(lambda: ael_lab.open(tmp_path / "notes.txt"))
    assert "no sweep store" in _one_line(lambda: ael_lab.sweep.read(tmp_path))
    assert "approval=" in _one_line(lambda: setattr(waiting, "approval", "later"))


def test_a_saved_session_opens_where_it_stood_and_steps_on_as_it_would_have(waiting, tmp_path):
    path = waiting.save(tmp_path / "s.json")
    opened = ael_lab.open(path)
    assert opened.episode == waiting.episode and opened.pending()["id"].tolist() == [1]
    for s in (waiting, opened):
        s.reject(1, reason="no hidden arm").run(until=60)
    assert opened.history().equals(waiting.history())
    assert opened.results() == waiting.results()
    waiting.rewind(13)  # the start of episode 13, the decision made before it included
    assert waiting.proposals()["status"].tolist() == ["rejected"]
    waiting.rewind(10).run()  # stepping on again: the decision made from code waits for one again
    assert waiting.pending()["id"].tolist() == [1] and waiting.episode == 13


def test_a_branch_is_a_new_session_and_leaves_its_original_as_it_was(waiting):
    s = ael_lab.new("synthetic", seed=1, approval="manual").run()
    s.reject(1).run(until=40)
    before = s.history()
    b = s.branch(30, decide={1: "approve"})
    assert (s.episode, b.episode) == (40, 30)
    assert s.history().equals(before)
    assert b.history().iloc[:13].equals(before.iloc[:13])  # the same run up to the decision changed
    assert b.posteriors().set_index("arm").loc["a10", "proposal"] == 1
    assert not s.posteriors()["injected"].any()


def test_explain_reads_the_session_and_prints_as_the_cli_does(waiting):
    from engine.explain import render

    e = waiting.explain(12)
    assert e["episode"] == 12 and e["policy"]["played"] == waiting.history()["policy"].iloc[12]
    assert str(e) == render(dict(e)) and "<pre>" in e._repr_html_()


def test_a_chart_shows_inline_and_saves_as_svg(waiting, tmp_path):
    chart = waiting.chart("arms")
    assert chart._repr_svg_().startswith("<svg") and chart.kind == "arms"
    assert chart.save(tmp_path / "arms.svg").read_text() == chart.svg
    session = waiting.save(tmp_path / "s.json")
    assert "is an AEL Lab session" in _one_line(lambda: chart.save(session))


# ------------------------------------------------------------------ the lab and the CLI stand on it
def _imports(package: str, root: Path = ROOT) -> tuple[tuple[Path, str, list[str]], ...]:
    """(module path, imported module, names taken) of each import in `package`, in functions too;
    the attribute reads of an `import ael_lab` (or `import ael_lab.text as t`) count as names
    taken from that module. Parsed once for every test here."""
    return _imports_under(package, root)


@functools.cache
def _imports_under(package: str, root: Path) -> tuple[tuple[Path, str, list[str]], ...]:
    return tuple(_walk(package, root))


def _walk(package: str, root: Path):
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    yield path, a.name, []
                    if a.name.split(".")[0] == "ael_lab" and (a.asname or "." not in a.name):
                        aliases[a.asname or a.name] = a.name
            elif isinstance(node, ast.ImportFrom) and not node.level:
                yield path, node.module or "", [a.name for a in node.names]
        reads = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases:
                reads.setdefault(aliases[n.value.id], []).append(n.attr)
        for module, names in reads.items():
            yield path, module, names


# the public modules beside the package itself (docs/api.md): every name in their `__all__`
FLOOR = ("sweep", "extend", "drawing", "batch", "sweep_store",  # the library's own
         "store", "text", "worlds", "llm", "selectors", "registries", "runs", "run_events", "review",
         "variant_views", "host", "replay")  # the engine's and the worlds' names the front ends stand on
PUBLIC_MODULES = {"ael_lab": set(ael_lab.__all__),
                  **{f"ael_lab.{m}": set(importlib.import_module(f"ael_lab.{m}").__all__) for m in FLOOR}}


@pytest.mark.parametrize("package", ["ael_cli", "ael_tui"])
def test_the_lab_and_the_cli_take_only_public_names_of_ael_lab(package):
    wrong = []
    for path, module, names in _imports(package):
        if module.split(".")[0] != "ael_lab":
            continue
        public = PUBLIC_MODULES.get(module)
        if public is None:
            wrong.append(f"{path.relative_to(ROOT)}: imports {module}, which is internal")
        wrong += [f"{path.relative_to(ROOT)}: {module}.{n} is not public" for n in names
                  if public is not None and n not in public]
    assert wrong == []


def _below_ael_lab(package: str, root: Path = ROOT) -> list[str]:
    """Where a module of `package` imports the engine or the worlds (in a function too)."""
    return [f"{path.relative_to(root)}: imports {module}" for path, module, _ in _imports(package, root)
            if module.split(".")[0] in ("engine", "scenarios")]


@pytest.mark.parametrize("package", ["ael_cli", "ael_tui"])
def test_the_lab_and_the_cli_stand_only_on_ael_lab(package):
    """Issue 40: the front ends take the engine's and the worlds' objects through ael_lab's public
    modules (docs/api.md, "For the front ends"), never from `engine` or `scenarios` themselves."""
    assert _below_ael_lab(package) == [], "reach it through ael_lab's public names (docs/api.md)"


def test_the_check_sees_a_reach_below_ael_lab_in_every_form(tmp_path):
    (tmp_path / "front").mkdir()
    (tmp_path / "front" / "a.py").write_text(
        "import engine.session\nfrom scenarios import spec_of\nfrom engine import events as ev\n"
        "def f():\n    from engine.store.atomic import write_text_atomic\n"
        "import ael_lab\nfrom ael_lab.text import shown\n")
    assert _below_ael_lab("front", tmp_path) == [
        "front/a.py: imports engine.session", "front/a.py: imports scenarios", "front/a.py: imports engine",
        "front/a.py: imports engine.store.atomic"]


def test_the_names_for_the_front_ends_are_the_engines_own_objects_read_when_asked():
    """A public module of the floor re-exports (never copies) the engine's and the worlds' objects,
    each found when first read: `import ael_lab` stays light (ael_lab/_reexport.py)."""
    import engine.store.persistence
    import scenarios
    from ael_lab import store, worlds

    assert store.load_session is engine.store.persistence.load_session and worlds.spec_of is scenarios.spec_of
    for module in FLOOR:
        public = importlib.import_module(f"ael_lab.{module}")
        assert [n for n in public.__all__ if not hasattr(public, n)] == [], module
        assert set(public.__all__) <= set(dir(public)), module
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        store.nothing  # noqa: B018


def test_a_world_says_what_a_served_lab_may_read_of_its_data(tmp_path):
    """The serve command names no world (issue 40): each world's spec says how a served lab treats
    its `data` (`served_data`), and a teacher's local copy is checked by the world's own reader."""
    from dataclasses import replace

    from ael_lab.worlds import check_local_copy, spec_of

    served = {n: spec_of(n).served_data for n in ("synthetic", "support", "portfolio", "news", "stream")}
    assert served == {"synthetic": "offline", "support": "offline", "portfolio": "offline", "news": "local",
                      "stream": "file"}
    missing = _one_line(lambda: check_local_copy("news", str(tmp_path / "none"), flag="--news-data"))
    assert missing.startswith("--news-data") and "no such folder" in missing
    assert "reads no local copy" in _one_line(lambda: check_local_copy("support", "x", flag="--support-data"))
    with pytest.raises(ValueError, match="local_copy"):
        replace(spec_of("support"), served_data="local")


def test_the_session_signature_is_the_documented_one():
    documented = [n for n in sections() if n.startswith("ael_lab.new")]
    assert documented == ["ael_lab.new"]
    params = inspect.signature(ael_lab.new).parameters
    assert list(params)[:2] == ["scenario", "seed"]
    assert {"approval", "selector", "variants", "llm"} <= set(params)


def test_stepping_stops_where_a_decision_waits_and_an_edit_is_what_is_accepted():
    s = ael_lab.new("synthetic", seed=1, approval="manual")
    assert s.step(5).episode == 5
    assert s.step(100).episode == 13 and s.waiting.startswith("proposal #1")  # stopped early, not refused
    payload = s.pending()["payload"][0]
    s.edit(1, {**payload, "description": "the hidden arm, named by hand"}, reason="clearer")
    audit = s.audit()
    assert audit["decision"].tolist() == ["edit"] and audit["accepted"][0]["description"] == "the hidden arm, named by hand"
    assert s.posteriors()["arm"].iloc[-1] == "a10" and s.waiting is None
    auto = ael_lab.new("synthetic", seed=1, approval="auto").run_to_reflection()
    assert auto.episode == 13 and auto.proposals()["status"].tolist() == ["approved"]  # right after it


def test_a_sweep_store_reads_as_its_tables_and_a_changed_run_is_refused(tmp_path, capsys):
    from ael_cli.main import main

    out = tmp_path / "sweep"
    assert main(["sweep", "synthetic", "--seeds", "1,2", "--selector", "ts", "--episodes", "30", "--workers", "1",
                 "--quiet", "--out", str(out)]) == 0  # one worker: the runs play in this process
    tables = ael_lab.sweep.read(out)
    assert tables.runs["seed"].tolist() == [1, 2] and set(tables.runs["status"]) == {"ok"}
    assert tables.runs["result"][0]["episodes"] == 30 and tables.runs["config"][0]["scenario"] == "synthetic"
    assert tables.rewards.groupby("run").size().tolist() == [30, 30]
    overall = tables.metrics.set_index(["run", "name"]).loc[(tables.runs["id"][0], "overall"), "value"]
    assert overall == tables.runs["overall"][0]
    assert len(tables.ledger) == 2 and "format" in tables.sweep["key"].tolist()
    with sqlite3.connect(out / "sweep.sqlite") as db:
        db.execute("UPDATE runs SET overall = 0.99 WHERE seed = 2")
    assert "no longer match" in _one_line(lambda: ael_lab.sweep.read(out))
