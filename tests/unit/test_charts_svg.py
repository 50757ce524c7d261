"""The pictures as SVG (issue 31 item 5): well-formed XML holding the expected series,
cells and bars, and `ael-lab chart` writing one from a save (refusing what it must)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ael_lab.drawing.curves import cumulative_chart, regret_chart
from ael_lab.drawing.data import RegimeMean
from ael_lab.drawing.reads import APPROVED, NEW_ARM, Decision, PictureData
from ael_lab.drawing.picture_svg import bars_svg, chart_svg, hex_of, runs_of, strip_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def run(name: str, policies: str, rewards: list[float], regimes: list[int], n: int = 8, **kw) -> PictureData:
    return PictureData(name, n, sorted(set(policies)), list(policies), rewards, "reward", rewards, regimes,
                       ["R0", "R1"], **kw)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def series_titles(root: ET.Element) -> list[str]:
    return [g.find("s:title", NS).text for g in root.iterfind(".//s:g[@class='series']", NS)]


def test_a_compare_cumulative_reward_chart_has_a_polyline_per_selector_in_its_colour():
    a = run("ts", "aabbaabb", [1, 0, 1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1])
    b = run("ts+reflection", "abababab", [0, 0, 1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1])
    root = parse(chart_svg(cumulative_chart([(a, "cyan"), (b, "magenta")])))
    assert series_titles(root) == ["ts", "ts+reflection"]
    lines = root.findall(".//s:polyline", NS)
    assert [p.get("stroke") for p in lines] == [hex_of("cyan"), hex_of("magenta")]
    assert len(lines[0].get("points").split()) == 8
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "R1" in texts and any(t and t.startswith("cumulative reward") for t in texts)


def test_regret_against_an_oracle_leaves_the_oracle_out_and_says_what_it_is_measured_against():
    ts = run("ts", "aaaaaaaa", [0.0] * 8, [0] * 8)
    oracle = run("oracle", "bbbbbbbb", [1.0] * 8, [0] * 8)
    chart = regret_chart([(ts, "cyan"), (oracle, "magenta")])
    assert "oracle run" in chart.title
    assert [s.label for s in chart.series] == ["ts"] and chart.series[0].y.tolist() == list(np.arange(1.0, 9.0))
    assert series_titles(parse(chart_svg(chart))) == ["ts"]


def test_regret_without_an_oracle_is_against_the_best_arm_in_hindsight_and_says_so():
    chart = regret_chart([(run("ts", "aaaaabbbbb", [1] * 5 + [0] * 5, [0] * 10, n=10), "cyan")])
    assert "best arm in hindsight" in chart.title and "no oracle run" in chart.title
    assert chart.series[0].y.tolist() == [0.0] * 5 + [1.0, 2.0, 3.0, 4.0, 5.0]


def test_the_strip_svg_has_a_rectangle_per_run_of_one_arm_and_the_decisions_marked():
    d = run("ts", "aabbbaab", [1.0] * 8, [0, 0, 0, 0, 1, 1, 1, 1],
            decisions=[Decision(3, APPROVED, "#1 arm approve by human"), Decision(3, NEW_ARM, "new arm b")])
    assert runs_of(d.policies) == [(0, 2, "a"), (2, 5, "b"), (5, 7, "a"), (7, 8, "b")]
    root = parse(strip_svg([d], {"a": "cyan", "b": "yellow"}))
    cells = root.findall(".//s:g[@class='strip']/s:rect", NS)
    assert [c.get("fill") for c in cells] == [hex_of(c) for c in ("cyan", "yellow", "cyan", "yellow")]
    marks = [t.text for t in root.iterfind(".//s:text[@class='decision']", NS)]
    assert marks == ["✓", "+"]
    assert len(root.findall(".//s:path[@class='regime']", NS)) == 1  # R0 -> R1 at episode 4


def test_the_regime_bars_svg_has_a_bar_per_selector_and_regime():
    groups = [("ts", "cyan", [RegimeMean("R0", 0.9, 10), RegimeMean("R1", 0.5, 10)]),
              ("oracle", "magenta", [RegimeMean("R0", 0.95, 10), RegimeMean("R1", 0.7, 10)])]
    root = parse(bars_svg(groups, "accuracy"))
    bars = root.findall(".//s:rect[@class='bar']", NS)
    assert [b.find("s:title", NS).text.split(":")[0] for b in bars] == \
        ["ts in R0", "oracle in R0", "ts in R1", "oracle in R1"]
    widths = [float(b.get("width")) for b in bars]
    assert widths[0] < widths[1] and widths[2] < widths[3] and widths[2] < widths[0]


# ------------------------------------------------------------------ headless
@pytest.fixture
def saved(tmp_path):
    from engine.store.persistence import save_session
    from tests.tui_helpers import synthetic

    s = synthetic(approval="auto")
    s.run(until=60)
    path = tmp_path / "run.json"
    save_session(s, path)
    return path


@pytest.mark.parametrize("kind,element", [("arms", "rect"), ("reward", "polyline"), ("regret", "polyline"),
                                          ("regimes", "rect")])
def test_ael_lab_chart_writes_each_kind_as_svg(saved, tmp_path, capsys, kind, element):
    from ael_cli.main import main

    out = tmp_path / f"{kind}.svg"
    assert main(["chart", str(saved), "--kind", kind, "--svg", str(out)]) == 0
    root = parse(out.read_text())
    assert root.findall(f".//s:{element}", NS)
    assert f"wrote {out}" in capsys.readouterr().out
    if kind == "regret":  # the synthetic world has an oracle: it ran, and the title says so
        assert "oracle run" in root.find("s:text", NS).text


def test_ael_lab_chart_never_writes_over_the_save_or_another_session(saved, tmp_path, capsys):
    from ael_cli.main import main

    before = saved.read_bytes()
    assert main(["chart", str(saved), "--kind", "arms", "--svg", str(saved)]) == 2
    assert "the save itself" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_bytes(before)
    assert main(["chart", str(saved), "--kind", "arms", "--svg", str(other)]) == 2
    assert "is an AEL Lab session" in capsys.readouterr().err
    assert saved.read_bytes() == before == other.read_bytes()


def test_the_colour_table_is_rich_s_own_so_a_picture_drawn_without_rich_matches_the_lab():
    from rich.color import ANSI_COLOR_NAMES, Color

    from ael_lab.drawing.colours import INK, NAMED

    assert set(NAMED) == set(ANSI_COLOR_NAMES)
    assert all(hex_of(name) == Color.parse(name).get_truecolor().hex for name in ANSI_COLOR_NAMES)
    assert hex_of("#A0b1C2") == "#a0b1c2" and hex_of("bold red") == INK and hex_of("no-such-colour") == INK
