"""`ael-lab open` of a save holding code: the review shows the source and its hash,
and nothing runs or is written until a person admits it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static

from ael_tui.decisions.code_review import CodeReviewScreen
from ael_tui.widgets.opening import open_session
from engine.sandbox.codepolicy import source_hash
from engine.sandbox.codeworker import CodeWorker
from engine.store.persistence import save_session
from tests.unit.test_code_policy_session import WINNERS
from tests.process.test_code_sandbox import TIME_BOMB, admitted
from tests.tui_helpers import frozen_lab, make_app, notifications, settle  # noqa: F401 - the autouse fixture


def files_under(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


async def test_a_saved_code_policy_is_reviewed_before_anything_runs(tmp_path, monkeypatch):
    s = admitted(WINNERS)
    s.run(until=50)
    path = tmp_path / "shared.json"
    save_session(s, path)
    starts = []
    real_start = CodeWorker._start
    monkeypatch.setattr(CodeWorker, "_start", lambda self: (starts.append(1), real_start(self))[1])
    before = files_under(tmp_path)
    app = make_app(open_session(path), autosave_every=1)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        review = app.screen
        assert isinstance(review, CodeReviewScreen)
        assert source_hash(WINNERS) in str(review.query_one("#code-review-why", Static).content)
        assert review.query_one("#code-review-source", Static).content.code == WINNERS
        await pilot.press("escape")                 # later: it stays quarantined
        await pilot.press("space")                  # and stepping waits
        await settle(pilot)
        session = app.lab.host.session
        assert session.t == 50 and "winners" in session.code_arms.quarantined
        assert starts == [] and files_under(tmp_path) == before  # nothing ran, nothing was written
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")                      # admit
        await settle(pilot)
        assert not session.code_arms.quarantined
        [entry] = [a for a in session.queue.audit if a.decision == "admit"]
        assert entry.who == "human" and entry.code_sha256 == source_hash(WINNERS)
        await pilot.press("space")
        await settle(pilot)
        assert session.t == 51
        await pilot.press("a")                      # the audit log shows the admission and the hash
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        [admit] = [r for r in rows if "admit" in r]
        assert any(source_hash(WINNERS)[:16] in c for c in admit)


async def test_the_lab_says_when_a_failing_code_policy_is_suspended():
    app = make_app(admitted(TIME_BOMB))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("g")  # to the end of the run: the bomb goes off from episode 61
        await settle(pilot, rounds=4)
        assert "winners" in app.lab.host.session.code_arms.suspended
        assert any("no longer sampled" in n for n in notifications(app))
