"""The lab's decisions and records: a proposal or a quarantined code arm put before a
person (one at a time, or a batch), standing rules, and the views of what happened
(audit log, reflections, results beside the baselines)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work

from engine.errors import AELError

from ael_tui.decisions.approval import ApprovalScreen, BatchDecision, Decision, ProposalContext
from ael_tui.decisions.code_review import CodeReviewScreen, MethodCode
from ael_tui.lab.records import AuditScreen, ReflectionsScreen, ResultsScreen, RulesScreen
from ael_tui.readouts import evidence_episodes, proposal_notes, window_stats

if TYPE_CHECKING:
    from ael_tui.lab.session_host import SessionHost

PAST = {"approve": "approved", "edit": "approved as edited", "reject": "rejected",
        "always": "approved (and every later one of its kind will be)"}


class LabDecisions:
    """Mixed into the lab screen (`host`, `redraw`, and the tour mixin's `_show_card`)."""

    host: SessionHost
    _run_note: str = ""  # what the run that opened a proposal passed on its way, said in the dialog

    def action_decide(self) -> None:
        if any(isinstance(screen, (ApprovalScreen, CodeReviewScreen)) for screen in self.app.screen_stack):
            return
        with self.host.lock:
            quarantined = dict(self.host.session.code_arms.quarantined)
            name = next(iter(quarantined), None)
            spec = self.host.session.pool.get(name) if name else None
            if name and spec is None:   # a method's code (HyperAgent's allocator), not an arm
                from engine.proposers import owned_code

                planner = name.startswith("planner ")
                spec = MethodCode(name, owned_code(self.host.session).get(name, ""),
                                  ("A planner a model wrote" if planner else "HyperAgent's approved allocation code")
                                  + ": it runs only in the sandboxed worker.",
                                  what="Planner code" if planner else "Allocation code")
        if spec is not None:
            self.app.push_screen(CodeReviewScreen(spec, quarantined[name], len(quarantined)),
                                 partial(self._reviewed, name))
            return
        with self.host.lock:
            s = self.host.session
            pending = s.queue.pending
            if not pending:
                self.notify("Nothing is waiting for a decision.")
                return
            p = pending[0]
            reflection = s.reflections[p.reflection] if 0 <= p.reflection < len(s.reflections) else None
            note = self._run_note
            if self.host.tour is not None:
                note = " ".join(x for x in (note, f"The tour waits for this decision: decide to go on "
                                                  f"({self.app.key_for('lab.tour')} then runs to the next moment).") if x)
            ctx = ProposalContext(p, reflection, window_stats(s, p), len(pending), evidence_episodes(s, p.evidence),
                                  note=note, pending=list(pending),
                                  retrieval_arms=s.scenario.spec.retrieval_arms)
        self._run_note = ""  # no notification covers the dialog: AelLab holds them while it is open
        self.app.push_screen(ApprovalScreen(ctx, partial(self._validate, p)), partial(self._decided, p.id))

    def _validate(self, proposal, edited: dict[str, Any]) -> dict[str, Any]:
        return self.host.read(lambda s: s.validate_edit(proposal, edited))

    def _decided(self, pid: int, decision: Decision | None) -> None:
        if decision is None:
            self.notify(f"Proposal #{pid} stays pending; stepping waits for a decision "
                        f"({self.app.key_for('lab.decide')} opens it).",
                        severity="warning", title="Later")
            return
        if decision.action == "batch" and decision.batch is not None:
            self._decided_batch(decision.batch)
            return
        try:
            if decision.action == "always":
                self.host.decide(pid, "approve", reason=decision.reason, standing=True)
            elif decision.action == "edit":
                self.host.decide(pid, "edit", edited=decision.edited, reason=decision.reason)
            else:
                self.host.decide(pid, decision.action, reason=decision.reason)
        except AELError as err:
            self.notify(str(err), severity="error", title=f"Proposal #{pid}")
            return
        finally:
            self.redraw(force=True)
        # what the engine recorded: an edit that changed nothing is an approval
        recorded = self.host.read(lambda s: s.queue.get(pid).status)
        action = "approve" if decision.action == "edit" and recorded == "approved" else decision.action
        self.notify(f"Proposal #{pid} {PAST[action]}.", title="Decided")
        self._next_after_decision()

    def _next_after_decision(self) -> None:
        """The next pending proposal, else the tour's card that waited for this decision."""
        if self.host.read(lambda s: bool(s.queue.pending)):
            self.call_after_refresh(self.action_decide)
        elif self.host.tour is not None and self.host.tour.cards:
            self.call_after_refresh(self.tour.show_card)

    def _reviewed(self, name: str, decision: str | None) -> None:
        if decision is None:
            self.notify(f"Code policy {name!r} stays quarantined; stepping waits "
                        f"({self.app.key_for('lab.decide')} opens it again).",
                        severity="warning", title="Later")
            return
        try:
            self.host.review_code(name, decision)
        except AELError as err:
            self.notify(str(err), severity="error", title=f"Code policy {name!r}")
            return
        finally:
            self.redraw(force=True)
        done = "admitted: it runs sandboxed" if decision == "admit" else "rejected: its arm is never sampled"
        self.notify(f"Code policy {name!r} {done}.", title="Reviewed")
        if self.host.read(lambda s: bool(s.queue.pending or s.code_arms.quarantined)):
            self.call_after_refresh(self.action_decide)

    def _decided_batch(self, batch: BatchDecision) -> None:
        """Each ticked proposal in turn; one refused (an invalid arm) is said and stays pending."""
        done: list[int] = []
        for pid in batch.ids:
            try:
                self.host.decide(pid, batch.action, reason=batch.reason)
                done.append(pid)
            except AELError as err:
                self.notify(str(err), severity="error", title=f"Proposal #{pid}")
        self.redraw(force=True)
        if done:
            self.notify(f"{len(done)} proposal(s) {PAST[batch.action]}: " + ", ".join(f"#{i}" for i in done),
                        title="Decided")
        self._next_after_decision()

    # ---------------------------------------------------------------- records
    def action_audit(self) -> None:
        audit = self.host.read(lambda s: list(s.queue.audit))
        self.app.push_screen(AuditScreen(audit, show_times=self.app.show_times))

    def action_results(self) -> None:
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
        from ael_tui.lab.results_table import compute_results
        try:
            table = self.host.read(compute_results)
        except AELError as err:
            self.app.call_from_thread(self.notify, str(err), severity="error", title="No results")
            return
        self.app.call_from_thread(self._show_results, table)

    def _show_results(self, table) -> None:
        if not any(isinstance(s, ResultsScreen) for s in self.app.screen_stack):
            self.app.push_screen(ResultsScreen(table))

    def action_rules(self) -> None:
        rules = self.host.read(lambda s: list(s.queue.rules))

        def chosen(kind: str | None) -> None:
            if kind is None:
                return
            self.host.revoke_rule(kind)
            self.redraw(force=True)
            self.notify(f"Standing rule revoked: {kind} proposals now wait for a person.", title="Rules")

        self.app.push_screen(RulesScreen(rules, show_times=self.app.show_times), chosen)

    def action_reflections(self) -> None:
        reflections, notes = self.host.read(lambda s: (list(s.reflections), proposal_notes(s)))
        self.app.push_screen(ReflectionsScreen(reflections, notes))
