"""What happened, in order and in words: regime changes, reflections, insights and
new arms, each tagged with its selector in that selector's colour."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from ael_lab.text import shown

from ael_tui.compare.lockstep import TimelineEntry

KIND_STYLE = {"regime": "bold", "phase": "bold blue", "reflection": "", "insight": "italic", "arm": "bold green"}


class Timeline(RichLog):
    def __init__(self, colours: dict[str, str], **kw) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, min_width=20, **kw)
        self.colours = colours
        self._written = 0
        self._hint = False

    def show(self, entries: list[TimelineEntry]) -> None:
        if not entries and not self._hint:
            self.write(Text("Regime changes, reflections, insights and new arms appear here, "
                            "tagged with the selector they happened to.", style="dim"))
            self._hint = True
            return
        if len(entries) < self._written or (entries and self._hint):
            self.clear()
            self._written, self._hint = 0, False
        for e in entries[self._written:]:
            line = Text.assemble((f"{e.episode:>5} ", "dim"))
            if e.selector is not None:
                line.append(e.selector, style=f"bold {self.colours.get(e.selector, '')}")
                line.append(" ")
            line.append(shown(e.text), style=KIND_STYLE.get(e.kind, ""))  # regimes and arms the data named
            self.write(line)
        self._written = len(entries)
