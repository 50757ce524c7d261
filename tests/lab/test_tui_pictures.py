"""The pictures in the lab and the compare view (issue 31 item 5): the arm strip under the
progress chart, k switching the chart to cumulative reward and regret, S writing the
focused chart alone as SVG into exports/ (never over a file), the compare view's
per-regime bars and strips, and i bringing them forward on a small screen."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ael_tui.widgets.charts.arm_strip import ArmStrip
from ael_tui.widgets.charts.regime_bars import RegimeBars
from ael_tui.compare.compare_chart import CompareChart
from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.compare.lockstep import CompareHost, build_compare
from ael_tui.config import LabSettings
from ael_tui.lab.progress_chart import ProgressChart
from tests.tui_helpers import frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

SVG = "{http://www.w3.org/2000/svg}"


def lab_at(episode: int):
    """The lab on a synthetic session (proposals approved automatically) run to `episode`."""
    s = synthetic(approval="auto")
    s.run(until=episode)
    return make_app(s)


def rendered(widget) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


async def test_the_strip_under_the_progress_chart_shows_the_arms_and_the_new_arm_in_line_with_the_chart():
    app = lab_at(60)  # the synthetic reflector adds arm a10 at episode 13
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        strip, chart = app.screen.query_one(ArmStrip), app.screen.query_one(ProgressChart)
        assert [d.policies for d in strip.runs] == [[r["policy"] for r in app.lab.host.session.history]]
        row = rendered(strip).splitlines()[0]
        left = chart.plot_margins()[0]
        assert row.startswith("arm ".rjust(left)) and "+" in row  # the cells start under the plot's
        assert row.rstrip().endswith("·")  # episodes 60-207 are still to play


async def test_k_switches_the_progress_chart_to_cumulative_reward_then_regret_and_back():
    app = lab_at(60)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        chart = app.screen.query_one(ProgressChart)
        chart.focus()
        titles = []
        for _ in range(3):
            await pilot.press("k")
            await pilot.pause()
            titles.append(chart.chart.title)
        assert titles[0].startswith("cumulative reward")
        assert titles[1].startswith("cumulative regret vs the best arm in hindsight") and "no oracle run" in titles[1]
        assert titles[2].startswith("rolling")


async def test_s_on_the_focused_chart_writes_it_alone_as_svg_into_exports_and_never_over_a_file():
    app = lab_at(60)
    async with app.run_test(size=(100, 30)) as pilot:  # a small screen: the progress page holds the chart
        await settle(pilot)
        await pilot.press("v")
        await pilot.pause()
        app.screen.query_one(ProgressChart).focus()
        await pilot.press("k")  # cumulative reward
        await pilot.press("S")
        await pilot.press("S")
        await pilot.pause()
        files = sorted(Path("exports").iterdir())
        assert [f.name for f in files] == ["lab-synthetic-s42-e60-reward-2.svg", "lab-synthetic-s42-e60-reward.svg"]
        root = ET.parse(files[1]).getroot()
        line = root.find(f".//{SVG}polyline")
        assert line is not None and len(line.get("points").split()) == 60
        assert any("Saved the reward chart" in n for n in notifications(app))


async def test_a_chart_that_cannot_be_written_says_so_in_one_line():
    app = lab_at(20)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        Path("exports").write_text("a file where the folder should be")
        app.screen.query_one(ArmStrip).focus()
        await pilot.press("S")
        await pilot.pause()
        said = [n for n in app.notifications if n.severity == "error"]
        assert len(said) == 1 and "chart not saved" in said[0].message and "\n" not in said[0].message
        assert Path("exports").read_text() == "a file where the folder should be"


def support_host(until: int) -> CompareHost:
    from ael_tui.widgets.opening import NewSession, build_session

    config = build_session(NewSession("support", 42, "ts+reflection", "manual")).config
    sessions = build_compare(config, ["ts", "ts+reflection", "oracle"])
    for s in sessions.values():
        s.run(until=until)
    return CompareHost(sessions, LabSettings(delay=0))


async def test_the_compare_view_shows_each_selectors_mean_per_regime_as_bars_and_its_strip():
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        host = support_host(until=650)  # R0, R1 and the start of R2
        app.push_screen(CompareScreen(host))
        await settle(pilot)
        bars = app.screen.query_one(RegimeBars)
        assert [name for name, _, _ in bars.groups] == ["ts", "ts+reflection", "oracle"]
        oracle_r1 = next(m for m in bars.groups[2][2] if m.regime == "R1")
        r1 = [r for r in host.sessions["oracle"].history if r["regime"] == 1]
        assert oracle_r1.mean == sum(bool(r["correct"]) for r in r1) / len(r1)
        lines = rendered(bars).splitlines()
        assert [line.split()[0] for line in lines[1:4]] == ["R0", "R1", "R2"]
        assert f"{oracle_r1.mean:5.2f}" in lines[2] and "█" in lines[2]
        strip = rendered(app.screen.query_one(ArmStrip)).splitlines()
        assert [line.split()[0] for line in strip[:3]] == ["ts", "ts+reflection", "oracle"]


async def test_a_small_compare_view_brings_the_pictures_forward_with_i_and_exports_the_bars():
    app = make_app(synthetic())
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(CompareScreen(support_host(until=320)))
        await settle(pilot)
        pictures, arms = app.screen.query_one("#compare-pictures"), app.screen.query_one("#compare-arms")
        assert not pictures.display and arms.display
        await pilot.press("i")
        await pilot.pause()
        assert pictures.display and not arms.display
        app.screen.query_one(RegimeBars).focus()
        await pilot.press("S")
        await pilot.pause()
        root = ET.parse("exports/compare-support-s42-e320-regimes.svg").getroot()
        assert len(root.findall(f".//{SVG}rect[@class='bar']")) == 3 * 2  # three selectors, R0 and R1
        app.screen.query_one(CompareChart).focus()
        await pilot.press("k", "k")  # cumulative regret: against the oracle, which is not drawn
        await pilot.pause()
        chart = app.screen.query_one(CompareChart).chart
        assert "oracle run" in chart.title and [s.label for s in chart.series] == ["ts", "ts+reflection"]


async def test_the_beta_densities_export_a_curve_per_arm():
    app = lab_at(20)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.focused is None or app.focused.id != "density"  # a chart never takes the first focus
        app.screen.query_one("#density").focus()
        await pilot.press("S")
        await pilot.pause()
        root = ET.parse("exports/lab-synthetic-s42-e20-posteriors.svg").getroot()
        titles = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
        assert sorted(titles) == sorted(a.name for a in app.lab.host.session.selector.arms)


def test_a_cell_with_an_approval_and_a_rejection_says_both():
    from ael_tui.widgets.charts.arm_strip import strip_row
    from ael_lab.drawing.reads import APPROVED, REJECTED, Decision, PictureData

    d = PictureData("ts", 4, ["a"], ["a"] * 4, [1.0] * 4, "reward", [1.0] * 4, [0] * 4, ["R0"],
                    [Decision(1, REJECTED, "#2 arm reject"), Decision(1, APPROVED, "#1 insight approve"),
                     Decision(3, REJECTED, "#3 arm reject")])
    assert "".join(seg.text for seg in strip_row(d, 4, {"a": "cyan"})) == " ± ✗"
