"""The three memory tiers: a tab per tier, a filter, the entries, the selected one in full."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Input, Static, Tab, Tabs

from ..views import TIERS, MemoryRow

COLUMNS = (("", "hit"), ("id", "id"), ("content", "content"), ("qual", "quality"), ("age", "age"),
           ("retr", "retrievals"), ("useful", "usefulness"))
CONTENT_WIDTH = 34


def _cells(r: MemoryRow) -> list:
    content = r.content if len(r.content) <= CONTENT_WIDTH else r.content[: CONTENT_WIDTH - 1] + "…"
    mark = Text("●", style="bold yellow") if r.hit else Text("")
    return [mark, Text(r.id, style="bold" if r.hit else "dim"), Text(content, style="bold" if r.hit else ""),
            Text(f"{r.quality:.2f}", justify="right"), Text(str(r.age), justify="right"),
            Text(str(r.retrievals), justify="right"), Text(f"{r.usefulness:.2f}", justify="right")]


class MemoryPanel(Vertical):
    """Asks the lab for rows (`NeedRows`) when the tier or the filter changes; the lab
    answers with `show_rows` under its lock, and `show_entry` for the highlighted one."""

    class NeedRows(Message):
        pass

    class EntryHighlighted(Message):
        def __init__(self, tier: str, entry_id: str) -> None:
            super().__init__()
            self.tier = tier
            self.entry_id = entry_id

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(t, id=f"tier-{t}") for t in TIERS), id="memory-tabs")
        yield Input(placeholder="filter entries (/)", id="memory-filter")
        yield DataTable(id="memory-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="memory-detail-box"):
            yield Static("No entry selected.", id="memory-detail")

    def on_mount(self) -> None:
        table = self.query_one("#memory-table", DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key, width=CONTENT_WIDTH if key == "content" else None)
        self._shown: list[str] = []

    @property
    def tier(self) -> str:
        active = self.query_one(Tabs).active
        return active.removeprefix("tier-") if active else TIERS[0]

    @property
    def needle(self) -> str:
        return self.query_one("#memory-filter", Input).value

    def next_tier(self) -> None:
        self.query_one(Tabs).action_next_tab()

    def focus_filter(self) -> None:
        self.query_one("#memory-filter", Input).focus()

    def set_counts(self, counts: dict[str, int], cap: int) -> None:
        for t in TIERS:
            tab = self.query_one(f"#tier-{t}", Tab)
            label = f"{t} {counts.get(t, 0)}/{cap}"
            if str(tab.label) != label:
                tab.label = label

    def show_rows(self, rows: list[MemoryRow]) -> None:
        table = self.query_one("#memory-table", DataTable)
        keys = [r.id for r in rows]
        if keys == self._shown:  # same entries: update the numbers in place
            for r in rows:
                for (_, key), cell in zip(COLUMNS, _cells(r)):
                    table.update_cell(r.id, key, cell)
            return
        current = None  # keep the highlighted entry, unless it was the newest: then follow the newest
        if table.row_count and 0 < table.cursor_row < table.row_count:
            current = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        table.clear()
        self._shown = keys
        for r in rows:
            table.add_row(*_cells(r), key=r.id)
        if current in keys:
            table.move_cursor(row=keys.index(current), animate=False)

    def show_entry(self, entry) -> None:
        detail = self.query_one("#memory-detail", Static)
        if entry is None:
            detail.update("No entry selected.")
            return
        meta = json.dumps(entry.metadata, ensure_ascii=False, default=str)
        detail.update(Text.assemble(
            (f"{entry.id}", "bold"), f" · {entry.tier} · written at episode {entry.episode}\n",
            entry.content, "\n",
            ("quality ", "dim"), f"{entry.quality:.2f}", ("  retrievals ", "dim"), str(entry.retrieval_count),
            ("  usefulness ", "dim"), f"{entry.avg_usefulness:.2f} ({entry.usefulness:g} useful)\n",
            ("metadata ", "dim"), meta,
        ))

    # ----------------------------------------------------------------- events
    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        self._shown = []
        self.post_message(self.NeedRows())

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.NeedRows())

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.post_message(self.EntryHighlighted(self.tier, event.row_key.value))
