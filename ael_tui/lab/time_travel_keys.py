"""The lab's time-travel keys: go to episode N (or click the progress chart), undo the last
decision, compare a branch with the run it came from.

`TimeTravelKeys` is one of the objects the lab screen composes (it draws nothing): the
screen hands it the keys; it asks, says what happened in a notification and posts `Moved`
(the screen redraws) or `Reopened` (the screen opens the decision). The work is in
`time_travel.py` (UI-free, under the host's lock); nothing here runs while a run goes (a
rewind between two of a run's steps would leave the run's target wrong): the keys say to
pause first.
"""

from __future__ import annotations

import pickle
from textual.message import Message
from textual.widget import Widget

from ael_lab import AELError

from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.lab import time_travel
from ael_tui.lab.session_host import SessionHost
from ael_tui.lab.time_travel import PAST


class TimeTravelKeys(Widget):
    DEFAULT_CSS = "TimeTravelKeys { display: none; }"

    class Moved(Message):
        """The session went to another episode: every panel shows it, and the branch key may
        come (there is an original to compare with)."""

    class Reopened(Message):
        """A decision was undone: its proposal waits again, its dialog should open."""

    def __init__(self, host: SessionHost, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host

    def _key(self, action: str) -> str:
        return self.app.key_for(action)

    def _refused_while_running(self) -> bool:
        if self.host.running:
            self.notify(f"A run is going: pause ({self._key('lab.pause')}) first, then go back.",
                               severity="warning", title="Not now")
            return True
        return False

    # ------------------------------------------------------------- rewind
    def ask_rewind(self) -> None:
        if self._refused_while_running():
            return
        t, reach = self.host.read(lambda s: (s.t, s.timeline.reach(s)))
        hint = (f"The run is at episode {t} and has been to {reach}. Going back keeps the run ahead: "
                f"{self._key('lab.step')}, {self._key('lab.window')} or {self._key('lab.reflection')} step on "
                "along it, the same episodes again; a decision taken otherwise there starts a branch "
                f"({self._key('lab.branches')} compares it with the original). A click on the progress chart "
                "goes there too.")
        self.app.push_screen(
            PromptScreen("Go to episode", value=str(t), placeholder=f"0 to {reach}", ok="Go",
                         input_id="rewind-episode", hint=hint), self._typed)

    def _typed(self, text: str | None) -> None:
        if text is None:
            return
        reach = self.host.read(lambda s: s.timeline.reach(s))
        try:
            n = time_travel.parse_episode(text, reach)
        except AELError as err:
            self.notify(str(err), severity="error", title="No such episode")
            return
        self.go_to(n)

    def go_to(self, n: int) -> None:
        """The session at the start of episode n (within the run's reach)."""
        if self._refused_while_running():
            return
        reach = self.host.read(lambda s: s.timeline.reach(s))
        if n > reach:
            self.notify(f"Episode {n} is beyond this run: it has been to {reach}.", severity="warning",
                               title="Not there")
            return
        try:
            time_travel.rewind(self.host, n)
        except AELError as err:
            self.notify(str(err), severity="error", title="Cannot go back")
            return
        self._after()
        ahead = f" The run ahead is kept to {reach}: stepping on gives it again." if reach > n else ""
        self.notify(f"At the start of episode {n}.{ahead}", title="Went back")

    # --------------------------------------------------------------- undo
    def undo(self) -> None:
        if self._refused_while_running():
            return
        try:
            entry = time_travel.undo(self.host)
        except AELError as err:
            self.notify(str(err), severity="warning", title="Nothing undone")
            return
        self._after()
        t = self.host.read(lambda s: s.t)
        self.notify(f"Proposal #{entry.proposal_id} ({entry.kind}) is no longer {PAST[entry.decision]}: "
                           f"back at episode {t}, it waits for a decision again (the audit log will say it "
                           "was decided again after an undo).", title="Undone")
        self.post_message(self.Reopened())

    def _after(self) -> None:
        self.post_message(self.Moved())

    # ------------------------------------------------------------ compare
    def compare_branches(self) -> None:
        if self.host.original is None:
            self.notify(self.why_no_branch(), severity="warning", title="No branch")
            return
        self.host.pause()
        with self.host.lock:  # a copy now: the worker must not read the session while it may step
            original, branch = self.host.original, pickle.loads(pickle.dumps(self.host.session.to_dict()))
        self.notify("Opening the original run and the branch side by side…", timeout=2)
        self.run_worker(lambda: self._build(original, branch), thread=True, group="branches",
                        exclusive=True, exit_on_error=False)

    def _build(self, original: dict, branch: dict) -> None:
        from ael_tui.lab.branch_compare import branch_host

        app = self.app
        try:
            host, parted = branch_host(original, branch, self.host.settings)
        except AELError as err:
            app.call_from_thread(self.notify, str(err), severity="error", title="Cannot compare")
            return
        app.call_from_thread(self._open, host, parted)

    def _open(self, host, parted) -> None:
        from ael_tui.lab.branch_compare import BranchCompareScreen

        self.app.push_screen(BranchCompareScreen(host, parted))

    def why_no_branch(self) -> str:
        return (f"Nothing to compare yet: go back ({self._key('lab.rewind')}) or undo a decision "
                f"({self._key('lab.undo')}), decide otherwise, and this compares the branch with the run it "
                "came from.")
