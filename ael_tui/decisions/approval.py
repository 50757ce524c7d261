"""The decision dialog: what a reflection proposes, the evidence behind it, and
approve (y) / edit (e) / reject (n) / always approve this kind (A) / later (Esc).

The dialog reads nothing from the session itself: the lab hands it a
`ProposalContext` (the proposal, its reflection, the window's numbers, and how to
replay the window with and without the proposal and open an episode) and a
`validate` callable (the session's `validate_edit` for this proposal), and
gets back a `Decision`, or None for "later". The replay (engine/preview.py) runs in
a worker when the dialog opens and fills in its panel when done; closing the dialog
cancels it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static
from textual.worker import get_current_worker

from ael_lab import AELError
from ael_lab.review import Proposal, Reflection
from ael_lab.text import shown, shown_lines

from ael_tui.actions import SaysWhy, bindings_for
from ael_tui.widgets.button_rows import ButtonRows
from ael_tui.widgets.tick_list import TickList
from ael_tui.widgets.evidence import evidence_text
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.decisions.editor import EditProposalScreen
from ael_tui.decisions.preview_panel import REPLAYING, PreviewPanel, headline


@dataclass
class Decision:
    action: str                          # approve, edit, reject, always, batch
    edited: dict[str, Any] | None = None  # the normalised object, for an edit
    reason: str = ""
    batch: "BatchDecision | None" = None  # for "batch": every ticked proposal and what to do with them


@dataclass
class BatchDecision:
    action: str                          # approve or reject
    ids: list[int]
    reason: str = ""


@dataclass
class ProposalContext:
    proposal: Proposal
    reflection: Reflection | None
    window: dict[str, Any] = field(default_factory=dict)
    pending_count: int = 1
    episodes: list[dict[str, Any]] = field(default_factory=list)  # records the evidence names
    note: str = ""       # e.g. how many silent reflections the run to this proposal passed
    pending: list[Proposal] = field(default_factory=list)  # every pending proposal, this one included
    retrieval_arms: bool = True  # False: the world's arms ignore retrieval fields (synthetic)
    # the window replayed with and without the proposal: called in a worker with `should_stop`,
    # returns an engine.preview.Preview or raises AELError; None: no preview offered
    preview: Callable[[Callable[[], bool]], Any] | None = None
    preview_window: tuple[int, int] = (0, 0)
    open_episode: Callable[[int], None] | None = None  # an episode in the inspector


def episodes_table(records: list[dict[str, Any]]) -> Table:
    table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold dim")
    for col in ("episode", "policy", "action", "outcome"):
        table.add_column(col, justify="right" if col == "episode" else "left")
    for r in records:
        # what the episodes did quotes the data: plain text (a str cell is markup), shown
        table.add_row(str(r["episode"]), *(Text(shown(r.get(k, ""))) for k in ("policy", "action", "result")))
    return table


def window_table(window: dict[str, Any]) -> Table:
    table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold dim")
    for col in ("policy", "pulls", "mean reward", "posterior mean"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    for row in window.get("per_policy", []):
        post = row.get("posterior")
        table.add_row(Text(shown(row["policy"])), str(row["pulls"]), f"{row['mean']:.2f}", "—" if post is None else f"{post:.3f}")
    return table


def code_payload(p: Proposal):
    """A method's or variant's code: what it is, its SHA-256, then its source (what is approved)."""
    from rich.console import Group
    from rich.syntax import Syntax  # pygments: loaded when code is shown, not with the lab

    from ael_lab.review import source_hash

    what = {"allocator": "HyperAgent's allocation code, written by a model",
            "planner": "a planner written by a model"}.get(p.kind, p.kind)
    head = Text.assemble((f"Proposed: {what} ({shown(p.payload.get('name', ''))})\n", "bold"),
                         "Approved code is scored and run only in the sandboxed worker; rejected code is that "
                         "generation's validation failure. It is approved as it stands (no edit).\n",
                         ("SHA-256 ", "bold"), (source_hash(p.payload["code"]), "cyan"))
    # the code as it is, but a control or bidi override in it shown where it sits (Trojan Source)
    return Group(head, Syntax(shown_lines(p.payload["code"]), "python", line_numbers=True, word_wrap=True))


def proposal_line(p: Proposal) -> str:
    what = p.payload.get("insight", "") if p.kind == "insight" else p.payload.get("name", "?")
    text = f"#{p.id} {p.kind_name} after episode {p.episode}: {shown(what)}"
    return text if len(text) <= 110 else text[:109] + "…"


class BatchScreen(ModalScreen[BatchDecision | None]):
    """Every pending proposal, ticked: approve or reject the ticked ones in one go."""

    BINDINGS = bindings_for("batch")

    def __init__(self, pending: list[Proposal]) -> None:
        super().__init__(classes="dialog-screen")
        self.pending = list(pending)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog small-dialog", id="batch") as box:
            box.border_title = f"{len(self.pending)} proposals pending"
            yield TickList[int](*((proposal_line(p), p.id, True) for p in self.pending), id="batch-list")
            yield Static("space ticks or unticks; an arm is admitted only if it is valid, in the order listed.",
                         classes="dialog-hint")
            with ButtonRows(classes="dialog-buttons"):
                key = self.app.key_for
                yield Button(f"Approve ticked ({key('batch.approve')})", id="approve", variant="success",
                             compact=True)
                yield Button(f"Reject ticked ({key('batch.reject')})", id="reject", variant="error", compact=True)
                yield Button(f"Back ({key('batch.cancel')})", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#batch-list").focus()

    def ticked(self) -> list[int]:
        from textual.widgets import SelectionList
        chosen = set(self.query_one(SelectionList).selected)
        return [p.id for p in self.pending if p.id in chosen]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_action(event.button.id or "cancel")

    def action_approve(self) -> None:
        if self.ticked():
            self.dismiss(BatchDecision("approve", self.ticked()))

    def action_reject(self) -> None:
        ids = self.ticked()
        if not ids:
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self.dismiss(BatchDecision("reject", ids, reason.strip()))

        self.app.push_screen(PromptScreen(f"Reject {len(ids)} proposal(s)", placeholder="reason (optional)",
                                          hint="Enter rejects them all; Esc goes back.", ok="Reject",
                                          input_id="reject-reason"), done)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ApprovalScreen(SaysWhy, ModalScreen[Decision | None]):
    BINDINGS = bindings_for("approval")

    def __init__(self, ctx: ProposalContext, validate: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        super().__init__(classes="dialog-screen")
        self.ctx = ctx
        self.validate = validate
        self._said: list[str] = []  # what keys that cannot act here said, in the note

    @property
    def proposal(self) -> Proposal:
        return self.ctx.proposal

    def compose(self) -> ComposeResult:
        p, r = self.ctx.proposal, self.ctx.reflection
        kind = p.kind_name
        with Vertical(id="approval", classes="dialog big-dialog") as box:
            box.border_title = f"Proposal #{p.id}: {kind}, after episode {p.episode}"
            if self.ctx.pending_count > 1:
                box.border_subtitle = (f"{self.ctx.pending_count} proposals pending · "
                                       f"{self.app.key_for('approval.batch')}: decide them all at once")
            with VerticalScroll(id="approval-body"):
                if self.ctx.note:
                    yield Static(Text(self.ctx.note, style="italic"), id="approval-note")
                if self.ctx.preview is not None:  # the replay's finding in one line, above a long proposal
                    yield Static(Text(REPLAYING, style="dim"), id="approval-headline")
                # what is being decided first, in view without scrolling; the why below it
                yield Static(self._payload(p), id="approval-payload")
                yield Static(self._diagnosis(p, r), id="approval-diagnosis")
                if self.ctx.preview is not None:
                    yield PreviewPanel(self.ctx.preview_window, id="approval-preview")
                yield Static(self._window(), id="approval-window")
                yield Static(window_table(self.ctx.window), id="approval-window-table")
                if p.evidence:
                    yield Static(Text.assemble(("Evidence\n", "bold"), evidence_text(p.evidence, limit=12)),
                                 id="approval-evidence")
                if self.ctx.episodes:
                    yield Static(Text("The episodes the evidence names", style="bold"))
                    yield Static(episodes_table(self.ctx.episodes), id="approval-episodes")
                if p.rationale and (r is None or p.rationale.strip() != r.diagnosis.strip()):
                    yield Static(Text.assemble(("Rationale\n", "bold"), shown_lines(p.rationale)), id="approval-rationale")
            with ButtonRows(classes="dialog-buttons"):
                key = self.app.key_for
                yield Button(f"Approve ({key('approval.approve')})", id="approve", variant="success", compact=True)
                yield Button(f"Edit ({key('approval.edit')})", id="edit", variant="primary", compact=True)
                yield Button(f"Reject ({key('approval.reject')})", id="reject", variant="error", compact=True)
                yield Button(f"Always approve {p.kind}s ({key('approval.always')})", id="always", variant="warning",
                             compact=True)
                yield Button(f"Later ({key('approval.later')})", id="later", compact=True)
        yield Footer()

    def _payload(self, p: Proposal):
        if p.payload.get("code") and p.kind in ("allocator", "planner"):
            return code_payload(p)
        if p.kind == "arm" and not self.ctx.retrieval_arms:
            fields = {k: p.payload[k] for k in ("name", "description") if k in p.payload}
            return Text.assemble(("Proposed: a new arm\n", "bold"),
                                 shown_lines(json.dumps(fields, indent=2, ensure_ascii=False)),
                                 ("\nThis world's arms are Bernoulli machines: a retrieval policy's fields "
                                  "(tiers, k, order…) mean nothing here and are not shown.", "dim"))
        return Text.assemble(("Proposed, exactly as it would be used\n", "bold"),
                             shown_lines(json.dumps(p.payload, indent=2, ensure_ascii=False)))

    def _diagnosis(self, p: Proposal, r: Reflection | None) -> Text:
        if r is None:
            return Text("No reflection recorded for this proposal.", style="dim")
        text = Text.assemble(
            ("Diagnosis", "bold"), f"  (reflection #{p.reflection + 1}, trigger {r.trigger}, {r.source})\n",
            shown_lines(r.diagnosis),
        )
        if r.regime_label:
            text.append_text(Text.assemble("\n", ("Regime: ", "bold"), (shown(r.regime_label), "magenta"),
                                           f" · confidence {r.confidence:.2f}"))
        return text

    def _window(self) -> Text:
        w = self.ctx.window
        if not w or not w.get("n"):
            return Text("")
        lo, hi = w["episodes"]
        parts = [("The window", "bold"), f": episodes {lo}–{hi} ({w['n']}), mean reward {w['mean_reward']:.3f}"]
        if w.get("accuracy") is not None:
            parts.append(f", accuracy {w['accuracy']:.3f}")
        return Text.assemble(*parts)

    def on_mount(self) -> None:
        # the body, not a button: PageDown/End scroll at once, and Enter changes nothing
        self.query_one("#approval-body").focus()
        if self.ctx.preview is not None:
            self._replay()

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _replay(self) -> None:
        """The engine's replay of the window, off the UI thread; a closed dialog cancels it."""
        worker = get_current_worker()
        try:
            result = self.ctx.preview(lambda: worker.is_cancelled)  # type: ignore[misc]
        except AELError as err:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._previewed, None, str(err))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._previewed, result, "")

    def _previewed(self, result, why: str) -> None:
        panels = self.query(PreviewPanel)
        if not panels:
            return
        line = self.query_one("#approval-headline", Static)
        if result is None:
            panels.first().fail(why)
            line.update(Text(f"No replay: {shown(why)}", style="dim"))
        else:
            name = shown(self.proposal.payload.get("name", ""))
            panels.first().show(result, name)
            line.update(headline(result, name))

    def on_preview_panel_open_episode(self, event: PreviewPanel.OpenEpisode) -> None:
        if self.ctx.open_episode is not None:
            self.ctx.open_episode(event.episode)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_action(event.button.id or "later")

    # ----------------------------------------------------------------- actions
    def action_approve(self) -> None:
        self.dismiss(Decision("approve"))

    def action_always(self) -> None:
        self.dismiss(Decision("always"))

    def action_later(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "batch":
            return len(self.ctx.pending) > 1
        return True

    def action_tour_waits(self) -> None:
        """t (the tour's key in the lab) cannot act here: the dialog says what the tour waits for."""
        key = self.app.key_for
        self.say_why(f"The tour goes on once this proposal is decided: approve ({key('approval.approve')}), edit "
                     f"({key('approval.edit')}) or reject ({key('approval.reject')}); then {key('lab.tour')} runs "
                     "to the next moment.")

    def why_not(self, action: str, key: str) -> str | None:
        if action == "batch":
            return f"Only this proposal is pending: {key} decides several at once."
        return None

    def say_why(self, why: str) -> None:
        """In the dialog's note, at the top of its body: a notification would sit over the dialog."""
        if why not in self._said:
            self._said.append(why)
            text = "\n".join(x for x in (self.ctx.note, *self._said) if x)
            notes = self.query("#approval-note")
            if notes:
                notes.first(Static).update(Text(text, style="italic"))
            else:
                self.query_one("#approval-body").mount(Static(Text(text, style="italic"), id="approval-note"),
                                                       before=0)
        self.query_one("#approval-body").scroll_home(animate=False)

    def action_batch(self) -> None:
        def done(batch: BatchDecision | None) -> None:
            if batch is not None:
                self.dismiss(Decision("batch", batch=batch))

        self.app.push_screen(BatchScreen(self.ctx.pending), done)

    def action_reject(self) -> None:
        def done(reason: str | None) -> None:
            if reason is not None:
                self.dismiss(Decision("reject", reason=reason.strip()))

        self.app.push_screen(PromptScreen(f"Reject proposal #{self.proposal.id}", placeholder="reason (optional)",
                                          hint="Enter rejects; Esc goes back to the proposal.", ok="Reject",
                                          input_id="reject-reason"), done)

    def action_edit(self) -> None:
        def done(result: tuple[dict[str, Any], str] | None) -> None:
            if result is not None:
                normalised, reason = result
                self.dismiss(Decision("edit", edited=normalised, reason=reason))

        self.app.push_screen(EditProposalScreen(self.proposal, self.validate), done)
