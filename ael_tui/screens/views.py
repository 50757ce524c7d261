"""Read-only views over the session's records: the audit log and every reflection."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from engine.approvals import AuditEntry
from engine.reflection import Reflection

from ..actions import bindings_for
from ..widgets.reflection import reflection_text


def _short(obj: dict[str, Any] | None, width: int = 60) -> str:
    if obj is None:
        return "—"
    if "name" in obj and "insight" not in obj:
        text = f"policy {obj['name']}"
    elif "insight" in obj:
        text = f"insight: {obj['insight']}"
    else:
        text = json.dumps(obj, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


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
            else:
                yield Static("No decisions yet.", classes="dialog-text")
        yield Footer()

    def on_mount(self) -> None:
        if not self.audit:
            return
        table = self.query_one(DataTable)
        cols = ["#", "episode", "proposal", "kind", "decision", "by", "reason", "accepted"]
        if self.show_times:
            cols.append("at (UTC)")
        for c in cols:
            table.add_column(c, key=c)
        for a in self.audit:
            style = {"reject": "red", "drop": "red", "suspend": "red", "edit": "yellow"}.get(a.decision, "green")
            who = a.who + (" ⚠ LLM fallback" if a.source == "fallback" else "")
            # code-arm decisions (admit, suspend) have no proposal; code carries its hash
            reason = " · ".join(x for x in (a.reason, a.code_sha256 and f"sha256 {a.code_sha256[:16]}…") if x)
            row = [str(a.seq), str(a.episode), f"#{a.proposal_id}" if a.proposal_id else "—", a.kind,
                   Text(a.decision, style=style), who, reason or "—", _short(a.accepted)]
            if self.show_times:
                row.append(a.at.replace("T", " ").removesuffix("+00:00"))
            table.add_row(*row)
        table.focus()

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
