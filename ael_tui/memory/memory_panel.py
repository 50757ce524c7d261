"""The three memory tiers: a tab per tier, a filter, the entries, the selected one in full."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Self

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.message import Message
from textual.widgets import Input, Tab, Tabs

from ael_lab.text import shown, shown_lines

from ael_tui.compat import scroll_update
from ael_tui.memory.method_memory import MethodMemoryView
from ael_tui.widgets.parts import Parts
from ael_tui.widgets.readouts import TIERS, MemoryRow
from ael_tui.widgets.row_list import PLAIN, RowList

BOLD, DIM = Style(bold=True), Style(dim=True)


class MemoryTable(RowList):
    """Entries of one tier, newest first; ● marks those retrieved for the last episode."""

    COLUMNS = (("", 1, False), ("id", 5, False), ("content", None, False), ("qual", 4, True), ("age", 4, True),
               ("retr", 4, True), ("useful", 6, True))
    GAP = 1
    FOLLOW = "start"
    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {"memory-table--hit"}
    DEFAULT_CSS = "MemoryTable > .memory-table--hit { color: $warning; text-style: bold; }"

    def row_key(self, row: MemoryRow) -> str:
        return row.id

    def whole_widths(self) -> dict[int, int]:
        """The id and the age whole, however many entries: the newest (first) has the longest
        id of a tier, the oldest (last) the greatest age."""
        if not len(self.rows):
            return {}
        newest, oldest = self.rows[0], self.rows[len(self.rows) - 1]
        return {1: max(len(newest.id), len(oldest.id)), 4: len(str(oldest.age))}

    def cells(self, r: MemoryRow) -> list[tuple[str, Style]]:
        hit = self.get_component_rich_style("memory-table--hit") if r.hit else PLAIN
        bold = BOLD if r.hit else PLAIN
        return [("●" if r.hit else "", hit), (r.id, BOLD if r.hit else DIM), (r.content, bold),
                (f"{r.quality:.2f}", PLAIN), (str(r.age), PLAIN), (_count(r.retrievals), PLAIN),
                (f"{r.usefulness:.2f}", PLAIN)]


def _count(n: int) -> str:
    """A count in the 4 columns of `retr`: 9999, then 12k, 999k, 12M (never cut to a wrong number)."""
    if n < 10_000:
        return str(n)
    return f"{n // 1000}k" if n < 1_000_000 else f"{n // 1_000_000}M"


class FilterInput(Input):
    """The memory filter: Enter or Escape hand the keys back to the table (and so to the
    lab), else the next `m` would be typed into the filter."""

    BINDINGS = [Binding("escape", "leave", "Leave the filter", show=False)]

    def action_leave(self) -> None:
        self.screen.query_one(MemoryTable).focus()


class EntryDetail(ScrollView):
    """The highlighted entry in full, scrolled when longer than its box. The newest entry is
    highlighted after every step: a Static's update (or any change of this widget's height)
    re-lays the whole screen, a full redraw that cost more than the rest of the step. So
    the box has a fixed height (lab.tcss) and its text is wrapped and scrolled here, with
    the virtual size set without a layout pass, as the row lists do."""

    DEFAULT_CSS = "EntryDetail { overflow-x: hidden; }"  # wrapped to its width: nothing to scroll sideways

    def __init__(self, text: Text | str = "", **kw) -> None:
        super().__init__(**kw)
        self._text = Text(text) if isinstance(text, str) else text
        self._strips: list[Strip] | None = None
        self._wrapped_at = -1

    def update(self, text: Text | str) -> None:
        self._text = Text(text) if isinstance(text, str) else text
        self._strips = None
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def _wrap(self, width: int) -> list[Strip]:
        console = self.app.console
        lines = self._text.wrap(console, max(width, 1))
        strips = [Strip(list(line.render(console)), line.cell_len) for line in lines]
        if self.virtual_size.height != len(strips):
            self.set_reactive(ScrollView.virtual_size, Size(1, len(strips)))
            scroll_update(self, self.virtual_size)  # the scrollbar's thumb too, not only whether it shows
        self._strips, self._wrapped_at = strips, width
        return strips

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        strips = self._strips if self._strips is not None and self._wrapped_at == width else self._wrap(width)
        index = round(self.scroll_offset.y) + y
        strip = strips[index] if 0 <= index < len(strips) else Strip.blank(width)
        return strip.crop_extend(0, width, None).apply_style(self.rich_style)

    @property
    def text(self) -> Text:
        return self._text


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

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.part = Parts(self)
        self._method_name: str | None = None   # the method tab shown (set_method)
        self._method_shown: bool | None = None  # the method's tables shown instead of a tier's (show_method)
        self._border_only = False               # a refresh repaints the bottom border alone (set_counts)

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(t, id=f"tier-{t}") for t in TIERS), id="memory-tabs")
        yield FilterInput(placeholder="filter entries", id="memory-filter")
        yield MemoryTable(id="memory-table")
        yield EntryDetail("No entry selected.", id="memory-detail-box")
        yield MethodMemoryView(id="method-memory")

    @property
    def tier(self) -> str:
        active = self.part(Tabs).active
        return active.removeprefix("tier-") if active else TIERS[0]

    @property
    def needle(self) -> str:
        return self.part(FilterInput).value

    def on_mount(self) -> None:
        key_for = getattr(self.app, "key_for", None)
        if key_for is not None:  # the key as the keymap has it
            self.part(FilterInput).placeholder = f"filter entries ({key_for('lab.filter')}; Enter or Esc when done)"

    def next_tier(self) -> None:
        self.part(Tabs).action_next_tab()

    def focus_filter(self) -> None:
        self.part(FilterInput).focus()

    def set_counts(self, counts: dict[str, int], cap: int) -> None:
        """In the border, not on the tabs: a new label is a layout pass, a border only a
        repaint, and of that line alone (the panel's every line was a tenth of a step's frame)."""
        subtitle = " · ".join(f"{t} {counts.get(t, 0)}" for t in TIERS) + f" (cap {cap} each)"
        if self.border_subtitle != subtitle:
            self._border_only = True
            try:
                self.border_subtitle = subtitle
            finally:
                self._border_only = False

    def refresh(self, *regions: Region, **kw) -> Self:
        if self._border_only and not regions and self.outer_size.height:
            # (regions are relative to the content area: the bottom border is below it)
            offset, outer = self.content_offset, self.outer_size
            regions = (Region(-offset.x, outer.height - 1 - offset.y, outer.width, 1),)
        return super().refresh(*regions, **kw)

    METHOD_TAB = "tier-method"

    def set_method(self, name: str | None) -> None:
        """A last tab with a prior method's own memory (`name`), or none for AEL's methods."""
        if name == self._method_name:
            return
        self._method_name = name
        tabs = self.part(Tabs)
        have = tabs.query(f"#{self.METHOD_TAB}")
        if name and not have:
            tabs.add_tab(Tab(f"{name}", id=self.METHOD_TAB))
        elif not name and have:
            tabs.remove_tab(self.METHOD_TAB)

    def show_method(self, tables) -> None:
        """The method tab's tables (`tables` None: an AEL tier is shown)."""
        on = tables is not None
        if on != self._method_shown:
            self._method_shown = on
            for kind in (FilterInput, MemoryTable, EntryDetail):
                self.part(kind).display = not on
            self.part(MethodMemoryView).display = on
        if on:
            self.part(MethodMemoryView).show(tables)

    def show_rows(self, rows: Sequence[MemoryRow]) -> None:
        self.part(MemoryTable).set_rows(rows)

    def show_entry(self, entry) -> None:
        detail = self.part(EntryDetail)
        if entry is None:
            detail.update("No entry selected.")
            return
        # an entry holds a row's text and metadata, or a model's words: shown, never obeyed
        meta = shown(json.dumps(entry.metadata, ensure_ascii=False, default=str))
        detail.update(Text.assemble(
            (f"{entry.id}", "bold"), f" · {entry.tier} · written at episode {entry.episode}\n",
            shown_lines(entry.content), "\n",
            ("quality ", "dim"), f"{entry.quality:.2f}", ("  retrievals ", "dim"), str(entry.retrieval_count),
            ("  usefulness ", "dim"), f"{entry.avg_usefulness:.2f} ({entry.usefulness:g} useful)\n",
            ("metadata ", "dim"), meta,
        ))

    # ----------------------------------------------------------------- events
    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        self.post_message(self.NeedRows())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(FilterInput).action_leave()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.NeedRows())

    def on_row_list_highlighted(self, event: MemoryTable.Highlighted) -> None:
        event.stop()
        self.post_message(self.EntryHighlighted(self.tier, event.key))
