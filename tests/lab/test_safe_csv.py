"""Issue: trust, round four, finding 6: CSV exports carried formulas (`=cmd|' /C calc'!A0`
from a stream file's text, 607 in one export of the lab's `x`), which a spreadsheet runs.
Every CSV the project writes goes through engine/safe_csv.py (OWASP: such a cell gets a
leading apostrophe; numbers stay numbers), and nothing else in the program writes CSV."""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from pathlib import Path

import pytest

from engine.safe_csv import frame_text, neutralised, rows_text
from tests.tui_helpers import frozen_lab, make_app, notifications, settle  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "ael_lab", "ael_cli", "ael_tui", "scenarios", "bench")
FORMULA = "=cmd|' /C calc'!A0"
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def evaluated(cell: str) -> bool:
    """Whether a spreadsheet opening the file would evaluate this cell (written here again,
    apart from the code under test)."""
    head = cell.lstrip(" ")
    return bool(head) and head[0] in "=+-@\t\r\n＝＋－＠" and not NUMBER.fullmatch(head)


def formulas(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row if evaluated(c)]


@pytest.mark.parametrize("value, written", [
    (FORMULA, "'" + FORMULA), ("+1+cmd", "'+1+cmd"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("  =1", "'  =1"), ("＝1+1", "'＝1+1"), ("-", "'-"),
    # numbers stay numbers, as values and as text; other text as it was
    (-0.5, -0.5), (3, 3), (True, True), (None, None), ("-0.5", "-0.5"), ("+3e-2", "+3e-2"), ("-.5", "-.5"),
    ("billing", "billing"), ("a=b", "a=b"), ("", ""),
])
def test_a_cell_a_spreadsheet_would_evaluate_gets_an_apostrophe_and_a_number_stays_a_number(value, written):
    assert neutralised(value) == written


def test_rows_and_frames_are_written_without_a_formula_in_any_cell_or_header():
    import pandas as pd

    rows = [{"text": FORMULA, "n": -1.5, "label": "@x"}, {"text": "fine", "n": 2, "label": "-1"}]
    text = rows_text(["text", "n", "label", "=head"], rows)
    assert formulas(text) == []
    assert list(csv.reader(io.StringIO(text)))[1] == ["'" + FORMULA, "-1.5", "'@x", ""]
    frame = pd.DataFrame({FORMULA: [FORMULA, "ok"], "x": [-0.25, 1.0]})
    text = frame_text(frame)
    assert formulas(text) == [] and "-0.25" in text  # the negative number written as a number


def _csv_writers(source: str, name: str) -> list[str]:
    """Where a module writes CSV itself: csv.writer / csv.DictWriter, or a DataFrame's to_csv."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("writer", "DictWriter", "to_csv"):
            if node.attr == "to_csv" or (isinstance(node.value, ast.Name) and node.value.id == "csv"):
                found.append(f"{name}:{node.lineno} {node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "csv":
            if {a.name for a in node.names} & {"writer", "DictWriter"}:
                found.append(f"{name}:{node.lineno} from csv import a writer")
    return found


def test_no_module_but_the_safe_one_writes_csv():
    """A new export writing CSV its own way would bring the formulas back: it fails here."""
    found = [w for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if path != ROOT / "engine" / "safe_csv.py"
             for w in _csv_writers(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert found == []


def test_the_check_finds_each_way_of_writing_csv():
    """The test above can fail: it sees each way of writing CSV."""
    probe = ("import csv\ncsv.writer(f)\ncsv.DictWriter(f, [])\nframe.to_csv(out)\n"
             "from csv import DictWriter\n")
    assert len(_csv_writers(probe, "probe")) == 4


def hostile_stream(path: Path, rows: int = 60, text_column: str = "text") -> str:
    """A stream file whose text, labels and meta values begin with a formula."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)  # the hostile input itself (the project's writer would neutralise it)
        w.writerow([text_column, "label", "src", "phase"])
        for i in range(rows):
            w.writerow([f"{FORMULA} w{i % 7} v{i % 4}", [FORMULA, "@SUM(1+1)", "-2+3"][i % 3], f"+{i % 5}x",
                        "R0" if i < rows // 2 else "=1+1"])
    return str(path)


async def test_x_on_a_stream_whose_cells_begin_with_a_formula_writes_none(tmp_path):
    from ael_tui.widgets.dialogs import PromptScreen
    from ael_tui.widgets.opening import NewSession, build_session

    options = {"data": hostile_stream(tmp_path / "hostile.csv"), "text": "text", "label": "label",
               "meta": ["src"], "regime": "phase"}
    app = make_app(build_session(NewSession("stream", 1, "ts+reflection", "auto", options=options)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("w", "w")
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert any("Exported" in m or ".csv" in m for m in notifications(app))
    (written,) = Path("exports").glob("*.csv")
    text = written.read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) > 10
    assert formulas(text) == []
    assert {r["regime"] for r in rows} >= {"R0"} and any(r["info.label"] == "'" + FORMULA for r in rows)
    assert any(r["action"].startswith("«" + FORMULA) for r in rows)  # not a formula: it starts with «
    # the JSON beside it keeps the data as it was (a program reads it, not a spreadsheet)
    doc = json.loads(written.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["selectors"]["ts+reflection"]["history"][0]["info"]["label"] == FORMULA


def test_a_sweep_export_as_csv_holds_no_formula(tmp_path, capsys):
    from ael_cli.main import main

    data = hostile_stream(tmp_path / "hostile.csv", rows=40, text_column=FORMULA)  # its column named by a formula
    assert main(["sweep", "stream", "--option", f"data={data}", "--option", f"text={FORMULA}", "--option", "label=label",
                 "--option", "regime=phase", "--seeds", "1", "--selector", "ts", "--workers", "1",
                 "--out", str(tmp_path / "sweep"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["sweep", "--out", str(tmp_path / "sweep"), "--export", "csv"]) == 0
    text = capsys.readouterr().out
    assert formulas(text) == []
    assert next(csv.DictReader(io.StringIO(text)))["option.text"] == "'" + FORMULA
