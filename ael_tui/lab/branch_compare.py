"""A branch beside the run it came from, in the compare view.

After a rewind and another decision (or an undo and another decision) the lab holds the
run as it was (`host.original`, a save's document) and the branch (the session). Both
are copied into sessions of their own (`Session.from_dict`, as a save is loaded), so
the compare view shows them with what it shows any two selectors: the curves on one
chart, each run's posteriors, and what happened when; its timeline begins with where
they part (the decision taken otherwise, the first episode played otherwise). The two
are frozen: the branch goes on in the lab, and `B` there compares again.
"""

from __future__ import annotations

import pickle
from typing import Any

from rich.text import Text
from textual.app import ComposeResult

from ael_lab.worlds import make_scenario

from ael_lab.runs import Session

from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.widgets.run_controls import RunControls
from ael_tui.compare.lockstep import CompareHost, TimelineEntry
from ael_tui.config import LabSettings
from ael_tui.widgets.status_bar import SEP, CompareStatusBar
from ael_tui.lab.time_travel import Divergence, divergence
from ael_tui.widgets.readouts import Status

NAMES = ("original", "branch")


def parting_words(d: Divergence) -> list[tuple[int, str]]:
    """(episode, sentence) of where the branch departs from the original."""
    out = []
    if d.decision is not None:
        out.append((d.decided_at or 0, f"the branch parts: {d.decision} after episode {d.decided_at}"))
    if d.first_episode is not None:
        out.append((d.first_episode, f"first episode played otherwise: {d.first_episode}"))
    else:
        out.append((d.shared, f"no episode played otherwise yet (both have played {d.shared})"))
    return out


def branch_host(original: dict[str, Any], branch: dict[str, Any], settings: LabSettings | None = None
                ) -> tuple[CompareHost, Divergence]:
    """A compare host of the two runs (copies: the lab's session is not touched)."""
    sessions = {name: Session.from_dict(pickle.loads(pickle.dumps(d)), make_scenario)
                for name, d in zip(NAMES, (original, branch))}
    host = CompareHost(sessions, settings)
    d = divergence(original, branch)
    host.timeline += [TimelineEntry(e, None, "regime", text) for e, text in parting_words(d)]
    host.timeline.sort(key=lambda e: e.episode)  # (stable: what happened at an episode, then that they part)
    return host, d


class BranchStatusBar(CompareStatusBar):
    """Where each run is and where they part, instead of a comparison's automatic approvals."""

    def __init__(self, host: CompareHost, parted: Divergence, **kw) -> None:
        super().__init__(**kw)
        self.host, self.parted = host, parted

    def show_compare(self, s: Status, count: int, running: str | None, delay: float) -> None:
        original, branch = (self.host.sessions[name] for name in NAMES)
        d = self.parted
        line1 = [Text.assemble((f" {s.scenario}", "bold"), f" · seed {s.seed}"),
                 Text.assemble("original at ", (f"{original.t}/{original.n_episodes}", "bold"),
                               " · branch at ", (f"{branch.t}/{branch.n_episodes}", "bold")),
                 Text.assemble("first episode played otherwise: ",
                               (str(d.first_episode) if d.first_episode is not None else "none yet", "bold"))]
        line2 = [Text.assemble((" the branch parts", "bold black on yellow"), ": ",
                               d.decision + f" after episode {d.decided_at}" if d.decision else
                               "no decision taken otherwise"),
                 Text("both frozen: the branch goes on in the lab"),
                 Text(f"{self.app.key_for('compare.close')} back to the lab", style="dim")]
        self._set_parts(SEP, line1, line2)


class BranchCompareScreen(CompareScreen):
    """The compare view of a branch and its original: both frozen, so no run key acts."""

    def __init__(self, host: CompareHost, parted: Divergence) -> None:
        super().__init__(host)
        self.parted = parted

    def compose(self) -> ComposeResult:
        for widget in super().compose():  # the compare view's panels, with this status line
            yield (BranchStatusBar(self.host, self.parted, id="compare-status")
                   if isinstance(widget, CompareStatusBar) else widget)

    def on_mount(self) -> None:  # (after CompareScreen's, which Textual calls too, and titles the chart)
        self.call_after_refresh(self._title)

    def _title(self) -> None:
        d = self.parted
        where = (f"first differ at episode {d.first_episode}" if d.first_episode is not None
                 else f"no episode differs yet ({d.shared} shared)")
        self.query_one("#compare-chart").border_title = f"The original run and the branch · {where}"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in RunControls.RUN_KEYS or action == "pause":
            return False
        return super().check_action(action, parameters)

    def why_not(self, action: str, key: str) -> str | None:
        if action in RunControls.RUN_KEYS:
            return (f"The original and the branch are frozen here: step the branch in the lab "
                    f"({self.app.key_for('compare.close')}), then compare again.")
        return None
