"""A prior method's own memory in the lab: the titled tables its `memory_view()` returns.

Reflexion's critique window, ExpeL's lesson store with use counts,
Meta-Reflexion's rules with applications and success... each method says what
its memory is (engine/prior/base.py `Table`); this view draws whatever it
returns, so a new method needs no lab code. It is the memory panel's last tab
("method") when the session runs a prior method.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ael_lab.selectors import PriorTable, is_prior
from ael_lab.text import shown, shown_lines

MAX_ROWS = 200  # a table longer than this is cut (the newest or most relevant come first)


def method_tables(session) -> list[PriorTable] | None:
    """The session's method memory as tables, or None when its method keeps none."""
    return session.method.memory_view() if is_prior(session.method) else None


def method_label(session) -> str | None:
    return session.method.name if is_prior(session.method) else None


def render(tables: list[PriorTable]) -> Group:
    parts = []
    for t in tables:
        table = RichTable(title=t.title, title_justify="left", title_style="bold", expand=True, box=None,
                          header_style="bold dim", padding=(0, 1))
        last = len(t.columns) - 1
        for i, col in enumerate(t.columns):
            # the last column (a critique, a rule) takes the rest and wraps; on a narrow panel the
            # others are shortened with "…" rather than that column squeezed to one folded letter
            if i == last:
                table.add_column(col, ratio=1, min_width=16, overflow="fold")
            else:
                table.add_column(col, no_wrap=True, overflow="ellipsis")
        for row in t.rows[:MAX_ROWS]:  # critiques, rules, the data's words: plain text, shown (a str is markup)
            table.add_row(*(Text(shown(c)) if isinstance(c, str) else c for c in row))
        if not t.rows:
            table.add_row(*([""] * (len(t.columns) - 1)), Text("(empty)", style="dim"))
        parts.append(table)
        parts.append(Text(shown_lines(t.note) + ("\n" if t.note else "") + (f"… {len(t.rows) - MAX_ROWS} more\n"
                                                              if len(t.rows) > MAX_ROWS else "")))
    return Group(*parts)


class MethodMemoryView(VerticalScroll):
    DEFAULT_CSS = "MethodMemoryView { height: 1fr; display: none; } MethodMemoryView > Static { height: auto; }"

    def compose(self):
        yield Static("", id="method-memory-body")

    tables: list[PriorTable] = []  # what is drawn now

    def show(self, tables: list[PriorTable]) -> None:
        self.tables = tables
        self.query_one("#method-memory-body", Static).update(render(tables))
