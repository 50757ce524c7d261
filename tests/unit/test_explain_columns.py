"""What each policy would have retrieved, side by side (engine/explain_columns.py), and the
explanation's regime named as the lab's status line names it."""

from __future__ import annotations

import pytest

import scenarios
from engine.explain import explain, render
from engine.explain_columns import SHOWN, columns, side_by_side
from engine.session import Session, SessionConfig


def hit(i: int, score: float, shared: bool | None = None) -> dict:
    h = {"id": f"e{i}", "tier": "episodic", "episode": i, "score": score, "content": f"entry {i}"}
    return h if shared is None else {**h, "shared": shared}


RETRIEVAL = {
    "policy": "compressed", "query": {"endpoint": "/v1/x"},
    "hits": [hit(1, 0.9), hit(2, 0.8)],
    "other_policies": {
        "none": {"hits": [], "only_here": [], "missing": ["e1", "e2"], "same": False},
        "recent_window": {"hits": [hit(i, float(i), shared=i in (1, 2)) for i in range(20, 0, -1)],
                          "only_here": [f"e{i}" for i in range(20, 2, -1)], "missing": [], "same": False},
        "a_policy_with_a_rather_long_name": {"hits": [hit(1, 0.9, True), hit(2, 0.8, True)],
                                             "only_here": [], "missing": [], "same": True},
    },
}


def test_one_column_per_policy_the_played_first_the_differences_marked():
    cols = columns(RETRIEVAL)
    assert [c.title for c in cols] == ["compressed (played)", "none", "recent_window",
                                       "a_policy_with_a_rather_long_name"]
    assert cols[0].cells == ["  e1 ep 1 0.900", "  e2 ep 2 0.800"]
    assert cols[1].cells == ["(nothing)"] and cols[1].note == "+0 new, −2 left out"
    recent = cols[2].cells
    assert recent[0] == "+ e20 ep 20 20.000" and len(recent) == SHOWN + 1 and recent[-1] == "… 8 more"
    assert cols[3].cells[0].startswith("= e1") and cols[3].note == "the same entries"
    assert columns({**RETRIEVAL, "hits": []})[0].cells == ["  (nothing)"]  # said, not left blank


@pytest.mark.parametrize("width", [80, 100, 160])
def test_bands_fit_the_width_and_cut_no_policy(width):
    lines = side_by_side(RETRIEVAL, width)
    assert all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    for name in ("none", "recent_window", "a_policy_with_a_rather_long_n…"):
        assert name in text  # a name longer than a column is cut with "…", visibly
    heads = [line for line in lines if line.startswith("compressed (played)")]
    assert len(heads) == text.count("\n\n") + 1  # the played column heads every band
    assert (len(heads) > 1) == (width == 80)  # the four columns need 96 characters


def test_without_a_width_all_columns_are_one_band():
    lines = side_by_side(RETRIEVAL)
    assert sum(line.startswith("compressed (played)") for line in lines) == 1
    assert "recent_window" in lines[0] and "a_policy_with" in lines[0]


@pytest.fixture(scope="module")
def support_report():
    s = Session(SessionConfig(scenario="support", seed=42, episodes=80), scenarios.make_scenario("support", 42, {}))
    s.run()
    return s, explain(s, 70)


def test_render_sets_the_other_policies_side_by_side_in_the_width_given(support_report):
    _, report = support_report
    piped, wide = render(report), render(report, 100)  # a pipe gets the engine's 120 columns
    for text, width in ((piped, 120), (wide, 100)):
        assert "What each policy would have retrieved" in text and "recent_window:" not in text
        start = text.index("What each policy")
        block = text[start:text.index("Insight applied")].split("\n  e")[0]  # the table, before the entries
        assert all(len(line) <= width for line in block.splitlines())
        assert f"{report['retrievals'][0]['policy']} (played)" in block


def test_the_regime_is_named_as_the_status_line_names_it(support_report):
    from ael_tui.widgets.readouts import regime_name

    s, report = support_report
    name = regime_name(s, report["regime"])
    assert report["regime_name"] == name == "R0"
    assert render(report).splitlines()[0].startswith(f"Episode 70 · train · true regime {name} ·")
