"""A long table drawn line by line: only the rows on screen are ever rendered.

`RowList` is the base of the episode log and the memory table, which grow by
a row an episode to 1,200 and more: giving it new rows is a list assignment
(a DataTable measures and stores every row it is given, which at that size
costs more than the rest of a step). Columns have fixed widths, one of them
may take what is left; up/down/page/home/end or a click move the cursor, and
the row under it is posted as `Highlighted`. Subclasses say how a row looks.

A row given is never changed afterwards (a changed row is a new object): a
line drawn is kept for as long as the same row object sits at that index
with the same widths and styles, so a step that scrolls the log by one row
draws one new line, not a screenful.
"""

from __future__ import annotations

from typing import Any, Sequence

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ael_lab.text import shown

from ael_tui.compat import scroll_update
from ael_tui.widgets.steady_scrollbar import SteadyScrollbars


PLAIN = Style()  # a cell with no style of its own (one object: a line makes a dozen)


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def cut_keeping_tail(text: str, width: int, tail: str) -> str:
    """`text` in `width`, cut in the middle so that `tail` (its end: a ✓/✗ mark, a cash
    share) stays whole; an ordinary cut when even the tail does not fit."""
    if len(text) <= width:
        return text
    if not tail or not text.endswith(tail) or len(tail) + 2 > width:
        return cut(text, width)
    head = text[: len(text) - len(tail)]
    return head[: width - len(tail) - 1] + "…" + tail


class RowList(SteadyScrollbars, ScrollView, can_focus=True):
    # (header, width or None for "what is left", right-aligned?)
    COLUMNS: Sequence[tuple[str, int | None, bool]] = ()
    FLEX_MIN = 12
    FLEX_MAX = 10_000       # the flexible column takes all the slack (content columns use the width)
    GAP = 2                 # spaces after each column
    FOLLOW = "start"        # where new rows appear and the cursor follows them: start (top), end (bottom) or none
    ANNOUNCE = True         # post `Highlighted` when the cursor's row changes (a message that nobody
                            # reads still bubbles up through every container, after every step)

    BINDINGS = [
        Binding("up", "move(-1)", show=False), Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False),
        Binding("home", "move(-1000000)", show=False), Binding("end", "move(1000000)", show=False),
    ]
    COMPONENT_CLASSES = {"rows--header", "rows--cursor", "rows--odd"}
    DEFAULT_CSS = """
    RowList { overflow-x: hidden; }
    RowList > .rows--header { text-style: bold; color: $text-muted; }
    RowList > .rows--cursor { background: $primary 30%; }
    RowList:focus > .rows--cursor { background: $accent 40%; }
    RowList > .rows--odd { background: $boost; }
    """

    class Highlighted(Message):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.rows: list[Any] = []
        self.cursor = 0
        self._looks: tuple[Style, Style, Style, Style] | None = None  # see `_line_styles`
        self._drawn: dict[int, tuple[Any, Style, Strip]] = {}  # index -> (row, its style, line)
        self._drawn_for: tuple | None = None                     # the widths and styles they were drawn with
        self._paint_pass: tuple | None = None                    # `_drawing()` during one `render_lines`

    # --------------------------------------------------------- subclasses
    def row_key(self, row: Any) -> str:
        raise NotImplementedError

    def cells(self, row: Any) -> list[tuple[str, Style]]:
        raise NotImplementedError

    # ------------------------------------------------------------ content
    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def highlighted(self) -> str | None:
        return self.row_key(self.rows[self.cursor]) if 0 <= self.cursor < len(self.rows) else None

    def _at_newest(self) -> bool:
        if self.FOLLOW == "none":
            return False
        return self.cursor == 0 if self.FOLLOW == "start" else self.cursor >= len(self.rows) - 1

    def set_rows(self, rows: list[Any]) -> None:
        """Replace the rows. The cursor stays on its row, unless it was on the newest: then it
        follows the newest (and the view with it)."""
        before, follow, had = self.highlighted, self._at_newest(), len(self.rows)
        self.rows = rows
        if follow or before is None:
            self.cursor = 0 if self.FOLLOW == "start" else max(len(rows) - 1, 0)
        else:
            self.cursor = next((i for i, r in enumerate(rows) if self.row_key(r) == before), 0)
        with self.vertical_scrollbar.held():  # the new length and the scroll, one repaint of the bar
            if self.virtual_size.height != len(rows) + 1:
                # set without the reactive's layout pass: the widget's own size does not depend on its
                # rows (CSS fixes it), and a layout of the whole screen after every step cost more
                # than the rest of the step; the scrollbars are told by hand (their thumb's size and
                # place, not only whether they show: else the thumb stood where the last layout left it)
                self.set_reactive(RowList.virtual_size, Size(self.size.width, len(rows) + 1))
                scroll_update(self, self.virtual_size)
            if follow and self.FOLLOW == "end":
                self._scroll_to_newest()
        if len(rows) >= had and self.size.height > len(rows) + 1:
            # a short table (the arms): its lines, not the empty ones below (each costs the same)
            self.refresh(Region(0, 0, self.size.width, len(rows) + 1))
        else:
            self.refresh()
        if self.ANNOUNCE and self.highlighted is not None and self.highlighted != before:
            self.post_message(self.Highlighted(self.highlighted))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        if self.FOLLOW == "end" and self._at_newest():
            self.call_after_refresh(self._scroll_to_newest)

    def _scroll_to_newest(self) -> None:
        self.scroll_to(y=max(len(self.rows) + 1 - self.size.height, 0), animate=False, immediate=True)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """For `width: auto`: every column at its width (a flexible one at its minimum)."""
        return 1 + sum((w if w is not None else self.FLEX_MIN) + self.GAP for _, w, _ in self.COLUMNS)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows) + 1

    # ------------------------------------------------------------- cursor
    def _set_cursor(self, index: int) -> None:
        if not self.rows:
            return
        index = max(0, min(index, len(self.rows) - 1))
        if index == self.cursor:
            return
        self.cursor = index
        top, visible = round(self.scroll_offset.y), max(self.size.height - 1, 1)
        if index < top:
            self.scroll_to(y=index, animate=False)
        elif index >= top + visible:
            self.scroll_to(y=index - visible + 1, animate=False)
        self.refresh()
        if self.ANNOUNCE:
            self.post_message(self.Highlighted(self.row_key(self.rows[index])))

    def action_move(self, delta: int) -> None:
        self._set_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self.cursor + direction * max(self.size.height - 2, 1))

    def on_click(self, event: Click) -> None:
        if event.y >= 1:
            self._set_cursor(round(self.scroll_offset.y) + event.y - 1)

    # ------------------------------------------------------------ drawing
    def whole_widths(self) -> dict[int, int]:
        """Columns whose text is never cut (an episode number, an id: a cut one names another
        row), as {column: the width its widest value needs}, read off the rows cheaply (the
        first and the last, where they are in order): it is asked at every paint."""
        return {}

    def fixed_widths(self) -> list[int | None]:
        """The columns' declared widths, each widened to what `whole_widths` asks."""
        whole = self.whole_widths()
        return [None if w is None else max(w, whole.get(i, 0)) for i, (_, w, _) in enumerate(self.COLUMNS)]

    def _widths(self) -> list[int]:
        widths = self.fixed_widths()
        fixed = 1 + sum(w for w in widths if w is not None) + self.GAP * len(widths)
        flex = max(self.FLEX_MIN, min(self.FLEX_MAX, self.size.width - fixed))
        return [w if w is not None else flex for w in widths]

    def cut_cell(self, column: int, text: str, width: int) -> str:
        """A cell's text in its column's width (subclasses keep what must stay whole)."""
        return cut(text, width)

    def _line(self, cells: list[tuple[str, Style]], widths: list[int], base: Style, width: int) -> Strip:
        segments = [Segment(" ", base)]
        for column, ((text, style), w, (_, _, right)) in enumerate(zip(cells, widths, self.COLUMNS)):
            text = self.cut_cell(column, shown(text), w)  # a row's text comes from data: shown, never obeyed
            segments.append(Segment((text.rjust(w) if right else text.ljust(w)) + " " * self.GAP,
                                    base + style if style else base))
        return Strip(segments).crop_extend(0, width, base)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._looks = None  # a theme, focus or class change: the line styles again

    def _line_styles(self) -> tuple[Style, Style, Style, Style]:
        """(plain, header, cursor, odd row), worked out once per style change rather than
        per line: each asks the CSS of every ancestor for its background, which was most
        of a line's cost (a step repaints every visible line of the log and the tables)."""
        if self._looks is None:
            base = self.rich_style
            self._looks = (base, base + self.get_component_rich_style("rows--header"),
                           base + self.get_component_rich_style("rows--cursor"),
                           base + self.get_component_rich_style("rows--odd"))
        return self._looks

    def _drawing(self) -> tuple[list[int], tuple[Style, Style, Style, Style], int, int, int]:
        """(widths, line styles, width, height, first row shown): the same for every line of
        one paint, and asking the widget's size and scroll cost more than drawing a kept line."""
        return self._widths(), self._line_styles(), self.size.width, self.size.height, round(self.scroll_offset.y)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint_pass = self._drawing()
        try:
            return super().render_lines(crop)
        finally:
            self._paint_pass = None

    def render_line(self, y: int) -> Strip:
        widths, looks, width, height, top = self._paint_pass or self._drawing()
        base, header, cursor, odd = looks
        if y == 0:
            return self._line([(name, PLAIN) for name, _, _ in self.COLUMNS], widths, header, width)
        index = top + y - 1
        if index >= len(self.rows):
            return Strip([Segment(" " * width, base)])
        if index == self.cursor:
            base = cursor
        elif index % 2:
            base = odd
        row = self.rows[index]
        drawn_for = (widths, looks, width)
        if drawn_for != self._drawn_for or len(self._drawn) > 4 * max(height, 8):
            self._drawn, self._drawn_for = {}, drawn_for
        kept = self._drawn.get(index)
        if kept is not None and kept[0] is row and kept[1] is base:
            return kept[2]
        line = self._line(self.cells(row), widths, base, width)
        self._drawn[index] = (row, base, line)
        return line
