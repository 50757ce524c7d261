"""Issue: trust, round four, finding 5: escape sequences in a stream file's text, label or
regime columns reached the terminal through the `run`/`sweep` tables and `explain` (a
clipboard write, OSC 52; the window title; a screen clear), and Rich read a regime named
`[bold]…` as markup. One sanitiser (engine/shown_text.py) shows them instead."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ael_cli.main import main
from engine.shown_text import shown, shown_lines

OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # "set the clipboard to 'echo pwned'"
TITLE = "\x1b]0;PWNED\x07"
CLEAR = "\x1b[2J"
# what a terminal obeys, or reorders a line by: no output a person reads may hold one
OBEYED = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]} - {"\n"} | set("\u202a\u202b\u202c\u202d\u202e"
                                                                             "\u2066\u2067\u2068\u2069\u200e\u200f")


def obeyed(text: str) -> list[str]:
    return sorted({repr(c) for c in text if c in OBEYED})


@pytest.mark.parametrize("raw, seen", [
    (OSC52, "␛]52;c;ZWNobyBwd25lZA==␇"), (TITLE, "␛]0;PWNED␇"), (CLEAR, "␛[2J"),
    ("a\x9b2Jb", "a⟨U+009B⟩2Jb"), ("ab\bc", "ab␈c"), ("\x00\x7f", "␀␡"), ("over\rwrite", "over⏎write"),
    ("one\r\ntwo\nthree\u2028four", "one⏎two⏎three⏎four"), ("a\tb", "a b"),
    ("user\u202etxt.exe", "user⟨U+202E⟩txt.exe"), ("\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"),
])
def test_a_control_is_shown_by_a_stand_in(raw, seen):
    assert shown(raw) == seen
    assert obeyed(shown(raw)) == []


@pytest.mark.parametrize("plain", ["billing", "café · 東京 · ✓✗ · «x» → y", "a\u00a0b", "👩\u200d💻", "[bold]x[/]", ""])
def test_text_with_nothing_to_obey_is_unchanged(plain):
    assert shown(plain) == plain


def test_a_c0_control_keeps_its_width_and_lines_can_be_kept():
    assert len(shown(f"a{TITLE}b")) == len(f"a{TITLE}b")  # a table's columns stay aligned
    assert shown_lines(f"first{CLEAR}\nsecond\r\nthird") == "first␛[2J\nsecond\nthird"
    assert shown(12) == "12"


def hostile_stream(path: Path, rows: int = 90) -> str:
    """A small stream whose labels carry OSC 52, texts a title set, a meta column a C1
    CSI, and whose regimes (the label column again) name the `run` table's columns."""
    labels = ["spam" + OSC52, "ham" + TITLE, "[bold]eggs" + CLEAR]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)  # the hostile input itself
        w.writerow(["text", "label", "src"])
        for i in range(rows):
            w.writerow([f"word{i % 3} w{i % 7} x{i % 5}{TITLE}", labels[i % 3], f"s{i % 4}\x9b2J"])
    return str(path)


def stream_flags(path: str) -> list[str]:
    return ["--data", path, "--text", "text", "--label", "label", "--meta", "src", "--regime", "label"]


def test_an_osc52_label_is_shown_not_obeyed_in_runs_table(tmp_path, capsys):
    data = hostile_stream(tmp_path / "hostile.csv")
    assert main(["run", "stream", *stream_flags(data), "--seeds", "1", "--selector", "ts"]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out and obeyed(out) == [] and obeyed(err) == []
    assert "spam␛]52;" in out  # the regime's column is there, its escape shown
    assert "[bold]eggs" in out  # a regime named like markup is printed as it is, not made bold


def test_explain_shows_the_datas_escapes_and_its_json_keeps_them_as_json(tmp_path, capsys):
    data = hostile_stream(tmp_path / "hostile.csv")
    save = tmp_path / "run.json"
    assert main(["run", "stream", *stream_flags(data), "--seeds", "1", "--selector", "ts+reflection",
                 "--until", "40", "--save", str(save), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["explain", str(save), "--episode", "30"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and obeyed(out) == []
    assert "␛]0;PWNED␇" in out and "⟨U+009B⟩2J" in out  # the text and the meta value, shown
    assert main(["explain", str(save), "--episode", "30", "--json"]) == 0
    out = capsys.readouterr().out
    assert obeyed(out) == []  # JSON escapes them itself (\u001b)
    assert TITLE in json.loads(out)["input"]["text"]  # and a program reading it gets the data as it was


def test_an_error_line_naming_a_files_columns_obeys_none_of_them(tmp_path, capsys):
    path = tmp_path / "columns.csv"
    path.write_text(f"text,label,note{TITLE}\nhello world,a,x\nbye world,b,y\n", encoding="utf-8")
    assert main(["run", "stream", "--data", str(path), "--text", "body", "--label", "label"]) == 2
    err = capsys.readouterr().err
    assert "no such column" in err and "note␛]0;PWNED␇" in err
    assert err.count("\n") == 1 and obeyed(err) == []


def test_a_sweeps_table_shows_the_regimes_escapes(tmp_path, capsys):
    import io

    from ael_lab.sweep_store import Store
    from ael_cli.sweep.summary import print_summary

    data = hostile_stream(tmp_path / "hostile.csv", rows=45)
    assert main(["sweep", "stream", "--option", f"data={data}", "--option", "text=text", "--option", "label=label",
                 "--option", "regime=label", "--seeds", "1", "--selector", "ts", "--workers", "1",
                 "--out", str(tmp_path / "sweep"), "--quiet"]) == 0
    # the table a sweep ends with, of the store's runs (a stream's sweep ends with none today: the
    # grid's hashes do not find its runs in the store, another matter than this one)
    out = io.StringIO()
    with Store(str(tmp_path / "sweep"), create=False) as store:
        print_summary(store.runs(), out)
    out = out.getvalue()
    assert "mean ± sd over seeds" in out and "[bold]eggs" in out and "spam␛]52;" in out
    assert "\x1b" not in out and obeyed(out) == []


def test_replays_table_shows_a_policys_escapes(tmp_path, capsys, monkeypatch):
    """`replay` prints the policies' names and descriptions, which a model may have written."""
    import ael_cli.replay_command as replay

    save = tmp_path / "run.json"
    assert main(["run", "synthetic", "--seeds", "1", "--selector", "ts", "--until", "20", "--save", str(save),
                 "--quiet"]) == 0
    real = replay.render
    monkeypatch.setattr(replay, "render", lambda *a, **k: real(*a, **k) + f"\n  arm{TITLE}   0.500   {OSC52}")
    assert main(["replay", str(save), "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "arm␛]0;PWNED␇" in out and obeyed(out) == []


def test_reproduces_report_lists_a_failed_runs_error_shown():
    from ael_cli.reproduce.markdown import failed_lines

    text = "\n".join(failed_lines([f"support ts seed 1: --data x{TITLE}: no such file"]))
    assert "x␛]0;PWNED␇" in text and obeyed(text) == []
