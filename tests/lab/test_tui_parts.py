"""The lab's parts without a terminal: keymap file, settings, the session host,
the views the panels read, and the command palette's list."""

from __future__ import annotations

import json
import threading

import numpy as np

from ael_tui.actions import ACTIONS, BY_ID, bindings_for
from ael_tui.commands import LabCommands
from ael_tui.config import DELAYS, LabSettings, load_keymap
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.readouts import (backend_and_cost, beta_pdf, density_grid, downsample, evidence_episodes, list_saves,
                           memory_rows, progress_data, read_save_info, rolling, status_of)
from engine.llm import UsageRecord
from engine.store.persistence import save_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario
from tests.tui_helpers import FROZEN_NOW, frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401


# ------------------------------------------------------------- registry
def test_every_action_has_a_unique_id_a_key_and_help():
    assert len(BY_ID) == len(ACTIONS)
    for a in ACTIONS:
        assert a.key and a.label and a.help and a.id.startswith(a.scope + ".")


def test_bindings_carry_their_id_and_tooltip():
    b = {x.id: x for x in bindings_for("lab")}["lab.step"]
    assert (b.key, b.action, b.tooltip) == ("space", "step", "Run one episode")


# ---------------------------------------------------------------- keymap
def test_keymap_file_maps_ids_to_keys(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"lab.step": "n", "lab.pause": ["p", "q"]}))
    assert load_keymap(path) == ({"lab.step": "n", "lab.pause": "p,q"}, [])


def test_keymap_problems_are_named_and_the_rest_is_used(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"lab.stpe": "n", "lab.save": "", "lab.load": "f3"}))
    keymap, problems = load_keymap(path)
    assert keymap == {"lab.load": "f3"}
    assert any("'lab.stpe'" in p for p in problems) and any("'lab.save'" in p for p in problems)


def test_a_keymap_that_is_not_json_is_reported(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text("{lab.step: n")
    keymap, problems = load_keymap(path)
    assert keymap == {} and "not valid JSON" in problems[0]


def test_no_keymap_file_is_no_keymap(tmp_path):
    assert load_keymap(tmp_path / "absent.json") == ({}, [])


def test_speed_steps_stay_within_the_delays():
    st = LabSettings(delay=DELAYS[1])
    assert st.faster() == DELAYS[0] and st.faster() == DELAYS[0]
    st.delay = DELAYS[-2]
    assert st.slower() == DELAYS[-1] and st.slower() == DELAYS[-1]


# ------------------------------------------------------------------ host
def test_run_targets_follow_the_mode():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0))
    assert host.target("step")[0] == 1
    assert host.target("window")[0] == 13
    assert host.target("phase")[0] == 208  # the synthetic stream is one training phase


def test_a_run_to_the_reflection_stops_blocked_by_the_manual_proposal():
    host = SessionHost(synthetic(), LabSettings(delay=0))
    assert host.begin("reflection") is None
    outcome = host.run("reflection")
    assert (outcome.reason, outcome.steps, host.session.t) == ("blocked", 13, 13)
    assert host.begin("step") is not None  # refused while the decision waits


def test_a_set_stop_event_pauses_before_the_next_episode():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0))
    host.begin("phase")
    host.pause()
    assert host.run("phase").reason == "paused" and host.session.t == 0


def test_pause_from_another_thread_ends_a_slow_run_promptly():
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0.05))
    host.begin("phase")
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("o", host.run("phase")))
    worker.start()
    threading.Event().wait(0.12)
    host.pause()
    worker.join(timeout=0.1)
    assert not worker.is_alive()
    assert result["o"].reason == "paused" and 0 < host.session.t < 10


def test_decide_with_standing_sets_the_rule_and_records_the_person():
    host = SessionHost(synthetic(), LabSettings(delay=0))
    host.session.run()
    pid = host.session.queue.pending[0].id
    host.decide(pid, "approve", standing=True)
    q = host.session.queue
    assert q.standing == {"arm": "approve"} and q.audit[-1].who == "human"
    assert "always approve arm" in q.audit[-1].reason


# ----------------------------------------------------------------- views
def test_beta_density_integrates_to_one():
    x = density_grid(2000)
    for a, b in ((1, 1), (3, 9), (40, 12)):
        assert abs(beta_pdf(x, a, b).mean() - 1.0) < 0.02


def test_rolling_mean_is_trailing_and_shorter_at_the_start():
    assert rolling(np.array([1.0, 0.0, 1.0, 1.0]), 2).tolist() == [1.0, 0.5, 0.5, 1.0]


def test_downsampling_keeps_about_one_point_per_column():
    x = np.arange(1200)
    xs, ys = downsample(x, x * 2.0, 100)
    assert len(xs) <= 100 and xs[0] == 0 and xs[-1] == 1199 and (ys == xs * 2.0).all()


def test_progress_marks_regimes_reflections_and_injections():
    s = synthetic(approval="auto")
    s.run(until=60)
    d = progress_data(s)
    assert d.kind == "reward" and len(d.y) == 60
    assert [r for r, _ in d.regime_starts] == [0, 52]
    assert d.reflections == [12] and d.injections == [(13, "a10")]


def test_progress_shows_equity_and_drawdown_when_episodes_carry_returns():
    s = synthetic(approval="auto")
    s.history = [{"episode": i, "regime": 0, "reward": 0.5, "correct": None, "policy": "a0",
                  "info": {"port_return": r}} for i, r in enumerate([0.1, -0.5, 0.2])]
    d = progress_data(s)
    assert d.kind == "equity"
    assert np.allclose(d.y, [1.1, 0.55, 0.66]) and np.allclose(d.y2, [0.0, -0.5, -0.4])


def test_backend_and_cost_come_from_the_sessions_ledger_and_count_fallbacks():
    assert backend_and_cost(synthetic()) == ("offline", 0.0)
    s = Session(SessionConfig("synthetic", 1, "ts+reflection", llm={"reflector": "anthropic"}),
                make_scenario("synthetic", 1))
    s.usage.add(UsageRecord("reflect.diagnose", "anthropic", "claude-haiku-4-5", 100, 20, 0.125, 0.5, 1, False))
    assert backend_and_cost(s) == ("agent offline, reflector anthropic", 0.125)
    s.usage.add(UsageRecord("reflect.diagnose", "anthropic", "claude-haiku-4-5", 0, 0, 0.0, 0.1, 4, True))
    assert backend_and_cost(s) == ("agent offline, reflector anthropic ⚠ 1 fallback", 0.125)


def test_status_knows_the_true_regime_and_the_reflectors_label():
    s = synthetic()
    s.run()
    st = status_of(s)
    assert (st.t, st.regime, st.belief, st.pending) == (13, "R0", ("pool underperforming", 0.5), 1)


def test_memory_rows_are_newest_first_filtered_and_mark_last_hits():
    s = synthetic(approval="auto")
    s.run(until=20)
    first = s.memory.tiers["episodic"].entries[0]
    s.last_hits = [first.id]
    rows = memory_rows(s, "episodic")
    assert rows[0].id == s.memory.tiers["episodic"].entries[-1].id
    assert len(rows) == len(s.memory.tiers["episodic"].entries)
    assert [r.id for r in rows[:2]] == [e.id for e in s.memory.tiers["episodic"].entries[-1:-3:-1]]
    assert rows[0].age == s.t - 1 - s.memory.tiers["episodic"].entries[-1].episode
    assert [r.id for r in rows if r.hit] == [first.id]
    arm = first.metadata["arm"]
    assert all(f"{arm} " in r.content for r in memory_rows(s, "episodic", f"{arm} paid"))


def test_evidence_episodes_are_the_records_the_evidence_names():
    s = synthetic(approval="auto")
    s.run(until=20)
    rows = evidence_episodes(s, {"fixed_episodes": [3, 7, 99], "failures": 2})
    assert [r["episode"] for r in rows] == [3, 7]


# ----------------------------------------------------------------- saves
def test_save_list_reads_documents_and_names_broken_files(tmp_path):
    s = synthetic(approval="auto")
    s.run(until=30)
    save_session(s, tmp_path / "good.json")
    (tmp_path / "bad.json").write_text("not json")
    infos = {i.path.name: i for i in list_saves(tmp_path)}
    good = infos["good.json"]
    assert (good.scenario, good.seed, good.episode, good.phase) == ("synthetic", 42, 30, "train")
    assert good.saved_at == FROZEN_NOW[:10] + " 03:04 UTC"
    assert "not JSON" in infos["bad.json"].problem


def test_save_info_of_a_missing_file_says_so(tmp_path):
    assert "no such session file" in read_save_info(tmp_path / "gone.json").problem


# --------------------------------------------------- keymap and palette in the app
async def test_a_remapped_key_runs_the_action_by_id(tmp_path, monkeypatch):
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"lab.step": "j"}))
    monkeypatch.setenv("AEL_LAB_KEYS", str(keys))
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("j")
        await settle(pilot)
        assert app.lab.host.session.t == 1
        await pilot.press("space")
        await settle(pilot)
        assert app.lab.host.session.t == 1


async def test_a_broken_keymap_is_reported_and_the_defaults_work(tmp_path, monkeypatch):
    keys = tmp_path / "keys.json"
    keys.write_text("[")
    monkeypatch.setenv("AEL_LAB_KEYS", str(keys))
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        assert app.lab.host.session.t == 1
        assert any("not valid JSON" in m for m in notifications(app))


async def _palette_titles(app) -> list[str]:
    provider = LabCommands(app.screen)
    return [str(hit.display) for hit in [h async for h in provider.discover()]]


async def test_the_palette_offers_what_can_be_done_now_with_its_key():
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        titles = await _palette_titles(app)
        assert "Step (space)" in titles and "Save (^s)" in titles and "Quit (^q)" in titles
        assert not any(t.startswith("Pause") or t.startswith("Decide") for t in titles)


async def test_palette_commands_run_the_action():
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        provider = LabCommands(app.screen)
        hits = [h async for h in provider.search("step")]
        assert hits
        await max(hits, key=lambda h: h.score).command()  # the palette lists the best match first
        await settle(pilot)
        assert app.lab.host.session.t == 1


def test_only_offline_backends_are_offered_without_keys(monkeypatch):
    from ael_tui.widgets.opening import usable_backends
    from engine.llm import local_model

    # the local model needs no key: it is offered whenever installed (test_local_backend.py)
    monkeypatch.setattr(local_model, "why_unusable", lambda model=None: "not installed")
    assert [v for v, _ in usable_backends("reflector", env={})] == ["offline"]


def test_an_episode_answered_by_the_offline_fallback_is_marked_in_the_log():
    from ael_tui.lab.episode_log import FALLBACK, EpisodeLog

    row = {"episode": 3, "phase": "train", "policy": "none", "action": "route → backend_error",
           "result": "gold x ✗", "correct": False, "reward": 0.0, "info": {"agent": "fallback"}}
    action, style = EpisodeLog.cells(None, row)[3]
    assert action.startswith("⚠ fallback: ") and style == FALLBACK


# ----------------------------------------------------- issue 13, item 12
def test_a_reflection_that_proposes_nothing_shows_no_regime_and_no_empty_fields():
    from engine.reflection import Reflection
    from ael_tui.lab.reflection_panel import reflection_text
    r = Reflection(episode=39, trigger="diagnose", diagnosis="accuracy fine", confidence=1.0,
                   evidence={"pattern": "", "failures": 3, "fixed_episodes": []})
    text = str(reflection_text(r, 0))
    assert "Regime" not in text and "confidence" not in text and "pattern:" not in text
    assert "fixed_episodes" not in text and "failures: 3" in text and "Proposes nothing" in text


def test_every_arm_has_its_own_colour_in_the_densities_and_the_table():
    from ael_tui.widgets.readouts import posterior_rows
    from ael_tui.lab.posteriors import PosteriorTable, arm_colour
    from tests.tui_helpers import synthetic
    s = synthetic(approval="auto")
    s.run(until=20)
    rows = posterior_rows(s)
    colours = [arm_colour(i) for i in range(len(rows))]
    assert len(set(colours)) == len(rows)  # eleven arms, eleven colours
    table = PosteriorTable()
    table.rows = rows
    assert table.cells(rows[3])[0][1].color.name == arm_colour(3)[1]


async def test_the_density_plot_draws_every_arm_in_its_colour_with_axes_and_the_now_and_new_marks():
    from ael_tui.lab.posteriors import DensityPlot, arm_colour
    from tests.tui_helpers import make_app, settle, synthetic
    s = synthetic(approval="auto")
    s.run(until=30)  # a10 injected at 13
    app = make_app(s)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        plot = app.screen.query_one(DensityPlot)
        strips = [plot.render_line(y) for y in range(plot.content_size.height)]
        text = "\n".join(strip.text for strip in strips)
        assert "Beta posteriors" in text and "(now)" in text and "a10 (new)" in text
        assert "0.00" in text and "0.25" in text and "1.00" in text and "┤" in text
        colours = {seg.style.color.name for strip in strips for seg in strip
                   if seg.style and seg.style.color and "\u2800" < seg.text[:1] <= "\u28ff"}
        assert len(colours) >= 5 and arm_colour(10)[1] in colours  # not one grey for all (overlaps hide some)
