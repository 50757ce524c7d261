"""`Decisions`: what the lab puts before a person, as one object: a proposal or a
quarantined code arm (one at a time, or a batch of proposals), and the standing rules.
It opens the dialog, records what was decided through the host, says so, and opens the
next one that waits.

It draws nothing (`display: none`); `Decided` tells its screen the session changed (the
panels redraw, and a tour's card that waited for the decision comes next)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.widget import Widget

from ael_lab import AELError
from ael_lab.review import preview, window_of
from ael_lab.runs import detached

from ael_tui.lab.records import RulesScreen, inspect_episode
from ael_tui.lab.session_host import SessionHost
from ael_tui.lab.time_travel import decided_ahead
from ael_tui.widgets.readouts import evidence_episodes, window_stats

if TYPE_CHECKING:
    from ael_tui.decisions.approval import BatchDecision, Decision

PAST = {"approve": "approved", "edit": "approved as edited", "reject": "rejected",
        "always": "approved (and every later one of its kind will be)"}


class Decisions(Widget):
    DEFAULT_CSS = "Decisions { display: none; }"

    class Decided(Message):
        """A decision was recorded, or refused (the panels show the session as it is now).
        `settled`: nothing waits for a decision any more, so a tour's card may come next."""

        def __init__(self, settled: bool = False) -> None:
            super().__init__()
            self.settled = settled

    def __init__(self, host: SessionHost, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host
        self.note = ""  # what the run that opened a proposal passed on its way, said in the dialog

    def open(self) -> None:
        """The code arm a file brought in first (a person looks before anything runs), else
        the first pending proposal; says so if nothing waits."""
        # the decisions/ folder's screens, imported where they open (a feature folder imports no other at load)
        from ael_tui.decisions.approval import ApprovalScreen, ProposalContext
        from ael_tui.decisions.code_review import CodeReviewScreen, MethodCode

        if any(isinstance(screen, (ApprovalScreen, CodeReviewScreen)) for screen in self.app.screen_stack):
            return
        with self.host.lock:
            quarantined = dict(self.host.session.code_arms.quarantined)
            name = next(iter(quarantined), None)
            spec = self.host.session.pool.get(name) if name else None
            if name and spec is None:   # a method's code (HyperAgent's allocator), not an arm
                from ael_lab.review import owned_code

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
            note = " ".join(x for x in (self.note, decided_ahead(s, p)) if x)  # a replayed run: how it went
            if self.host.tour is not None:
                note = " ".join(x for x in (note, f"The tour waits for this decision: decide to go on "
                                                  f"({self.app.key_for('lab.tour')} then runs to the next moment).") if x)
            ctx = ProposalContext(p, reflection, window_stats(s, p), len(pending), evidence_episodes(s, p.evidence),
                                  note=note, pending=list(pending),
                                  retrieval_arms=s.scenario.spec.retrieval_arms,
                                  preview=partial(self._preview, p.id), preview_window=window_of(s, p),
                                  open_episode=self._open_episode)
        self.note = ""  # no notification covers the dialog: AelLab holds them while it is open
        self.app.push_screen(ApprovalScreen(ctx, partial(self._validate, p)), partial(self._decided, p.id))

    def _preview(self, pid: int, should_stop) -> Any:
        """The proposal's window replayed with and without it, in the dialog's worker, on a copy
        of the session taken under its lock: the live session is never moved, so the lab reads
        it as it is while the replay runs."""
        build = self.host.read(detached)
        if should_stop():  # the dialog closed meanwhile (a quick decision): no copy built for nothing
            raise AELError("the dialog closed before the replay began")
        return preview(build(), pid, should_stop)

    def _open_episode(self, n: int) -> None:
        """Episode n in the inspector, over the dialog (esc comes back to it)."""
        record = self.host.read(lambda s: dict(s.history[n]) if 0 <= n < len(s.history) else None)
        if record is not None:
            self.app.push_screen(inspect_episode(self.host.read, record))

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
            self.post_message(self.Decided())
            self.notify(str(err), severity="error", title=f"Proposal #{pid}")
            return
        # what the engine recorded: an edit that changed nothing is an approval
        recorded = self.host.read(lambda s: s.queue.get(pid).status)
        action = "approve" if decision.action == "edit" and recorded == "approved" else decision.action
        self.notify(f"Proposal #{pid} {PAST[action]}.", title="Decided")
        self._next_after_decision()

    def _next_after_decision(self) -> None:
        """The screen hears of the decision; the next pending proposal opens."""
        pending = self.host.read(lambda s: bool(s.queue.pending))
        self.post_message(self.Decided(settled=not pending))
        if pending:
            self.call_after_refresh(self.open)

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
            self.post_message(self.Decided())
        done = "admitted: it runs sandboxed" if decision == "admit" else "rejected: its arm is never sampled"
        self.notify(f"Code policy {name!r} {done}.", title="Reviewed")
        if self.host.read(lambda s: bool(s.queue.pending or s.code_arms.quarantined)):
            self.call_after_refresh(self.open)

    def _decided_batch(self, batch: BatchDecision) -> None:
        """Each ticked proposal in turn; one refused (an invalid arm) is said and stays pending."""
        done: list[int] = []
        for pid in batch.ids:
            try:
                self.host.decide(pid, batch.action, reason=batch.reason)
                done.append(pid)
            except AELError as err:
                self.notify(str(err), severity="error", title=f"Proposal #{pid}")
        if done:
            self.notify(f"{len(done)} proposal(s) {PAST[batch.action]}: " + ", ".join(f"#{i}" for i in done),
                        title="Decided")
        self._next_after_decision()

    # ------------------------------------------------------------ standing rules
    def rules(self) -> None:
        """The standing rules, who set each and when; one chosen there is revoked."""
        rules = self.host.read(lambda s: list(s.queue.rules))

        def chosen(kind: str | None) -> None:
            if kind is None:
                return
            self.host.revoke_rule(kind)
            self.post_message(self.Decided())
            self.notify(f"Standing rule revoked: {kind} proposals now wait for a person.", title="Rules")

        self.app.push_screen(RulesScreen(rules, show_times=self.app.show_times), chosen)
