"""`Records`: the lab's views of what happened, as one object: the audit log, every
reflection, and the run's results so far beside the baselines (computed in a worker:
the baselines run on the same world and seed). It draws nothing (`display: none`)."""

from __future__ import annotations

from textual import work
from textual.widget import Widget

from ael_lab import AELError

from ael_tui.lab.records import AuditScreen, ReflectionsScreen, ResultsScreen
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.readouts import proposal_notes


class Records(Widget):
    DEFAULT_CSS = "Records { display: none; }"

    def __init__(self, host: SessionHost, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host
        self._results = None  # KeptResults, made on first use (results_table runs the engine: imported then)

    def audit(self) -> None:
        audit = self.host.read(lambda s: list(s.queue.audit))
        self.app.push_screen(AuditScreen(audit, show_times=self.app.show_times))

    def results(self) -> None:
        """This run beside the baselines, once it is paused and past its warm-up."""
        if self.host.running:
            self.notify("Results are computed when the run is paused (p).", severity="warning")
            return
        t, warmup = self.host.read(lambda s: (s.t, s.warmup))
        if t == 0:
            self.notify("No episode yet: nothing to compare.", severity="warning")
            return
        if t <= warmup:
            self.notify(f"Only warm-up so far ({t} of its {warmup} episodes): every selector plays the same first "
                        "arm there, so there is nothing to compare yet.", severity="warning")
            return
        self.notify("Running the baselines on this world and seed…", timeout=2)
        self._compute_results()

    @work(thread=True, exclusive=True, group="results", exit_on_error=False)
    def _compute_results(self) -> None:
        from ael_tui.lab.results_table import KeptResults
        if self._results is None:
            self._results = KeptResults()
        kept = self._results
        try:
            table = self.host.read(lambda s: kept(s, self.host.version))
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="No results")
            return
        self.app.call_from_thread(self._show_results, table)

    def _show_results(self, table) -> None:
        if not any(isinstance(s, ResultsScreen) for s in self.app.screen_stack):
            self.app.push_screen(ResultsScreen(table))

    def reflections(self) -> None:
        reflections, notes = self.host.read(lambda s: (list(s.reflections), proposal_notes(s)))
        self.app.push_screen(ReflectionsScreen(reflections, notes))
