"""The run keys every stepping screen shares (lab and compare): each asks the
screen's `_start(mode)` to run in its worker, or its host to pause or change speed."""

from __future__ import annotations


class RunControls:
    """Mixed into a Screen that has `host` (with `pause()` and `settings`), `_start(mode)` and `redraw()`."""

    def action_step(self) -> None:
        self._start("step")

    def action_run_window(self) -> None:
        self._start("window")

    def action_run_reflection(self) -> None:
        self._start("reflection")

    def action_run_phase(self) -> None:
        self._start("phase")

    def action_pause(self) -> None:
        self.host.pause()

    def action_faster(self) -> None:
        self.host.settings.faster()
        self.redraw()

    def action_slower(self) -> None:
        self.host.settings.slower()
        self.redraw()
