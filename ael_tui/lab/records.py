"""Read-only views over the session's records: the audit log and every reflection."""

from __future__ import annotations

import json
from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from ael_lab import AELError
from ael_lab.review import AuditEntry, Reflection, StandingRule, explain_basis, explain_from, render_explanation
from ael_lab.text import shown, shown_lines

from ael_tui.actions import bindings_for
from ael_tui.widgets.proposal_diff import diff_text, pretty
from ael_tui.widgets.row_list import cut
from ael_tui.lab.reflection_panel import reflection_text


def _short(obj: dict[str, Any] | None, width: int = 60) -> str:
    """A proposal in a few words (a model wrote it: shown, never obeyed)."""
    if obj is None:
        return "—"
    if "name" in obj and "insight" not in obj:
        text = f"policy {obj['name']}"
    elif "insight" in obj:
        text = f"insight: {obj['insight']}"
    else:
        text = json.dumps(obj, ensure_ascii=False)
    text = shown(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def stamp(iso: str) -> str:
    """'2026-01-02T03:04:05+00:00' -> '01-02 03:04:05' (UTC, to the second): the audit log's
    column. Never a time without its day: a save resumed the next morning holds decisions of
    two days (the year is in the detail below)."""
    if "T" not in iso:
        return iso or "—"
    day, time = iso.split("T", 1)
    return f"{day[5:10]} {time[:8]}"


class AuditScreen(ModalScreen[None]):
    """Every decision, automatic ones included: who decided, and why."""

    BINDINGS = bindings_for("view")

    def __init__(self, audit: list[AuditEntry], show_times: bool = True) -> None:
        super().__init__(classes="dialog-screen")
        self.audit = list(audit)
        self.show_times = show_times

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog big-dialog", id="audit") as box:
            box.border_title = f"Audit log: {len(self.audit)} decision(s)"
            if self.audit:
                yield DataTable(id="audit-table", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="audit-detail-box"):
                    yield Static("", id="audit-detail")
            else:
                yield Static("No decisions yet.", classes="dialog-text")
        yield Footer()

    def on_mount(self) -> None:
        if not self.audit:
            return
        table = self.query_one(DataTable)
        # the time early and short (the year is in the detail below): last, it was cut to the date
        # one numbering, from 1: proposals are "#K" (what --decide K and the dialogs say); the rows are entries
        cols = ["entry", "episode", *(["at (UTC)"] if self.show_times else []),
                "proposal", "kind", "decision", "by", "reason", "accepted"]
        for c in cols:
            table.add_column(c, key=c)
        for a in self.audit:
            style = {"reject": "red", "drop": "red", "suspend": "red", "edit": "yellow"}.get(a.decision, "green")
            who = a.who + (" ⚠ LLM fallback" if a.source == "fallback" else "")
            # code-arm decisions (admit, suspend) have no proposal; code carries its hash
            reason = " · ".join(x for x in (a.reason, a.code_sha256 and f"sha256 {a.code_sha256[:16]}…") if x)
            # a reason and a proposal may be a model's words: plain text (a str cell is markup), shown
            row = [str(a.seq + 1), str(a.episode), *([stamp(a.at)] if self.show_times else []),
                   f"#{a.proposal_id}" if a.proposal_id else "—", a.kind,
                   Text(a.decision, style=style), Text(shown(who)), Text(cut(shown(reason), 40) if reason else "—"),
                   Text(_short(a.accepted))]
            table.add_row(*row)
        table.focus()
        self._detail(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.cursor_row)

    def _detail(self, row: int) -> None:
        """The highlighted decision in full: an edit with its diff, the time to the second."""
        if not 0 <= row < len(self.audit):
            return
        a = self.audit[row]
        text = Text.assemble((f"entry {a.seq + 1} · proposal #{a.proposal_id} ({a.kind}) · {a.decision} by {a.who}",
                              "bold"),
                             f" · after episode {a.episode}",
                             f" · at {a.at.replace('T', ' ')}" if self.show_times and a.at else "", "\n",
                             ("reason: ", "dim"), shown_lines(a.reason or "—"), "\n")
        if a.decision == "edit" and a.accepted is not None:
            text.append("What the person changed:\n", style="bold")
            text.append_text(diff_text(pretty(a.proposed), pretty(a.accepted)))
        elif a.accepted is not None:
            text.append_text(Text.assemble(("accepted: ", "dim"), _short(a.accepted, 200)))
        self.query_one("#audit-detail", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)


class ReflectionsScreen(ModalScreen[None]):
    """Every reflection of the run, newest first."""

    BINDINGS = bindings_for("view")

    def __init__(self, reflections: list[Reflection], decisions: dict[int, list[str]]) -> None:
        super().__init__(classes="dialog-screen")
        self.reflections = list(reflections)
        self.decisions = decisions

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog big-dialog", id="reflections") as box:
            box.border_title = f"Reflections: {len(self.reflections)}"
            with VerticalScroll(id="reflections-body"):
                if not self.reflections:
                    yield Static("No reflection yet.", classes="dialog-text")
                for i in reversed(range(len(self.reflections))):
                    yield Static(reflection_text(self.reflections[i], i, self.decisions.get(i)),
                                 classes="reflection-item")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reflections-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class RulesScreen(ModalScreen[str | None]):
    """Every standing rule ever set (always approve a kind): who set it, when, and whether
    it still stands. The revoke key on an active one returns its kind (the lab revokes it)."""

    BINDINGS = bindings_for("rules")

    def __init__(self, rules: list[StandingRule], show_times: bool = True) -> None:
        super().__init__(classes="dialog-screen")
        self.rules = list(rules)
        self.show_times = show_times

    def compose(self) -> ComposeResult:
        active = sum(r.active for r in self.rules)
        with Vertical(classes="dialog big-dialog", id="rules") as box:
            box.border_title = f"Standing rules: {active} in force"
            if self.rules:
                yield DataTable(id="rules-table", cursor_type="row", zebra_stripes=True)
                yield Static(f"{self.app.key_for('rules.revoke')} revokes the highlighted rule; later proposals "
                             "of its kind then wait for a person.", classes="dialog-hint", id="rules-hint")
            else:
                yield Static(f"No standing rule. In a decision, {self.app.key_for('approval.always')} approves "
                             "the proposal and every later one of its kind.", classes="dialog-text")
        yield Footer()

    def on_mount(self) -> None:
        if not self.rules:
            return
        table = self.query_one(DataTable)
        cols = ["kind", "rule", "set by", "after episode", "status"] + (["set at (UTC)"] if self.show_times else [])
        for c in cols:
            table.add_column(c, key=c)
        for i, r in enumerate(self.rules):
            status = Text("in force", style="bold green") if r.active else \
                Text(f"revoked after episode {r.revoked_episode} by {r.revoked_by}", style="dim")
            row = [r.kind, f"always {r.rule}", r.who, "—" if r.episode < 0 else str(r.episode), status]
            if self.show_times:
                row.append(r.at.replace("T", " ").removesuffix("+00:00") or "—")
            table.add_row(*row, key=str(i))
        table.focus()

    def action_revoke(self) -> None:
        if not self.rules:
            return
        table = self.query_one(DataTable)
        rule = self.rules[table.cursor_row]
        if not rule.active:
            # said in the dialog: a notification waits until a dialog closes (AelLab)
            self.query_one("#rules-hint", Static).update(Text("That rule was already revoked.", style="bold yellow"))
            self.app.bell()
            return
        self.dismiss(rule.kind)

    def action_close(self) -> None:
        self.dismiss(None)


class ResultsScreen(ModalScreen[None]):
    """This run beside its baselines (and the paper's rows where comparable): a `ResultsTable`."""

    BINDINGS = bindings_for("view")

    def __init__(self, results) -> None:
        super().__init__(classes="dialog-screen")
        self.results = results

    def compose(self) -> ComposeResult:
        from rich.table import Table
        r = self.results
        # narrower gaps on a small screen, so every column stays whole (the names never wrap)
        wide = self.app.size.width >= 120
        table = Table(box=None, padding=(0, 2 if wide else 1), pad_edge=wide, header_style="bold")
        table.add_column("selector", no_wrap=True)
        for i, c in enumerate(r.columns):  # a header may wrap between its words, a value never
            c = shown(c)  # a regime named by a stream's file: plain text, never markup or an escape
            longest = max([len(w) for w in c.split()] + [len(str(cells[i])) for _, cells, _ in r.rows])
            table.add_column(Text(c), justify="right", min_width=longest)
        styles = {"run": "bold green", "paper": "dim italic", "base": ""}
        for label, cells, kind in r.rows:
            table.add_row(Text(shown(label)), *cells, style=styles.get(kind, ""))
        with Vertical(classes="dialog big-dialog", id="results") as box:
            box.border_title = f"Results: {r.title}"
            if self.app.size.width < 100:
                box.styles.width = "100%"  # below 100 columns every column whole needs the whole width
            with VerticalScroll(id="results-body"):
                yield Static(table, id="results-table")
                yield Static(Text("\n".join(r.notes), style="dim"), id="results-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#results-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class EpisodeScreen(ModalScreen[None]):
    """One episode in full: why it went as it did (the engine's explain: the input as the
    agent saw it, the draws, what was retrieved and with what score, what each other policy
    would have retrieved, side by side in columns that fit the dialog, insight, rules, model
    calls), then its record as logged.

    `why` is a text shown as it is; `explain`, a function giving the explanation (a replay:
    tens of milliseconds), is called in a worker thread, the screen saying "explaining…"
    until it is ready. `inspect_episode` makes one for an episode of a session."""

    BINDINGS = bindings_for("view")
    WAITING = "explaining…"

    class Explained(Message):
        def __init__(self, report: dict[str, Any] | None, error: str = "") -> None:
            super().__init__()
            self.report, self.error = report, error

    def __init__(self, record: dict[str, Any], why: str = "",
                 explain: Callable[[], dict[str, Any]] | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.record, self.why, self.explain = record, why, explain
        self.report: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        r = self.record
        with Vertical(classes="dialog big-dialog", id="episode") as box:
            # a policy a model named: plain text (a str title is markup), shown
            box.border_title = Text(shown(f"Episode {r.get('episode')} · {r.get('phase', '')} · policy "
                                          f"{r.get('policy', '')}"))
            with VerticalScroll(id="episode-body"):
                if self.why or self.explain is not None:
                    yield Static(self._why_text(self.why or self.WAITING), id="episode-why")
                # the action and outcome quote the data (a stream's text and label): shown, never obeyed
                yield Static(Text.assemble(("Action\n", "bold"), shown(r.get("action", "")), "\n\n",
                                           ("Outcome\n", "bold"), shown(r.get("result", "")), "\n\n",
                                           ("Record\n", "bold"),
                                           shown_lines(json.dumps(r, indent=2, ensure_ascii=False, default=str))),
                             id="episode-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#episode-body").focus()
        if self.explain is not None and not self.why:
            self.run_worker(self._explain, thread=True, exclusive=True, group="explain")

    def _explain(self) -> None:
        try:
            report = self.explain()  # type: ignore[misc]
        except AELError as err:
            self.post_message(self.Explained(None, f"No explanation: {shown(err)}"))
        else:
            self.post_message(self.Explained(report))

    def on_episode_screen_explained(self, event: "EpisodeScreen.Explained") -> None:
        self.report = event.report
        if event.report is None:
            self.query_one("#episode-why", Static).update(self._why_text(event.error))
        else:
            self._show_report()

    def on_resize(self) -> None:
        if self.report is not None:
            self.call_after_refresh(self._show_report)  # the body's new width is known after the layout

    def _show_report(self) -> None:
        """The explanation, the other policies' retrievals in bands as wide as the body (the played
        policy heading each band: a narrow dialog stacks them, none is cut)."""
        body = self.query_one("#episode-body")
        width = max(40, body.scrollable_content_region.width - 1)
        why = render_explanation(self.report, width)
        self.query_one("#episode-why", Static).update(self._why_text(why))  # type: ignore[arg-type]

    @staticmethod
    def _why_text(text: str) -> Text:
        return Text.assemble(("Why\n", "bold"), text)

    def action_close(self) -> None:
        self.dismiss(None)


def inspect_episode(read: Callable[[Callable[[Any], Any]], Any], record: dict[str, Any]) -> EpisodeScreen:
    """The inspector on one episode of a session, given `read` (a host's `read`: a look at the
    session under its lock). Only what the explanation needs is copied under the lock (engine
    `explain_basis`); the replay runs in the screen's worker, beside any run going on."""
    n = record.get("episode")
    if not isinstance(n, int):
        return EpisodeScreen(record)
    try:
        session, live = read(lambda s: (s, explain_basis(s, n)))
    except AELError as err:
        return EpisodeScreen(record, f"No explanation: {err}")
    return EpisodeScreen(record, explain=lambda: explain_from(session, live, n))
