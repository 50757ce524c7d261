"""The status line: where the run is and what it is doing."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from ael_tui.readouts import Status


def _speed(delay: float) -> str:
    """The delay between episodes, not a rate: an episode's own time comes on top (20 ep/s
    was shown for 50 ms while 13-17 were measured)."""
    if delay <= 0:
        return "full speed"
    return f"delay {delay * 1000:.0f} ms" if delay < 1 else f"delay {delay:.1f} s"


class StatusBar(Widget):
    """Two lines: the session and the run. Its size never depends on its text, so an
    update repaints the line that changed (a step changes the first only), no layout pass."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lines: tuple[Text, ...] = ()
        self._drawn: dict[int, tuple[Text, int, Strip]] = {}  # line -> (its text, the width, its strip)

    def render(self) -> Text:
        both = Text("\n").join(self._lines)
        both.no_wrap = True
        both.overflow = "ellipsis"
        return both

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn = {}  # a theme or class change: the lines again

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y >= len(self._lines):
            return Strip.blank(width, self.visual_style.rich_style)
        text = self._lines[y]
        kept = self._drawn.get(y)
        if kept is None or kept[0] is not text or kept[1] != width:
            kept = self._drawn[y] = (text, width, Visual.to_strips(self, visualize(self, text), width, 1,
                                                                    self.visual_style)[0])
        return kept[2]

    def _set_lines(self, *lines: Text) -> None:
        for line in lines:
            line.no_wrap = True
            line.overflow = "ellipsis"
        before, self._lines = self._lines, lines
        if len(before) != len(lines):
            self.refresh()
            return
        changed = [Region(0, y, self.size.width, 1) for y, (a, b) in enumerate(zip(before, lines)) if a != b]
        if changed:
            self.refresh(*changed)

    def show(self, s: Status, running: str | None, delay: float, autosave_every: int) -> None:
        wide = self.size.width >= 120
        sep = ("  │  " if wide else " │ ", "dim")  # below 120 columns: narrower, so both lines stay whole
        line1 = Text.assemble(
            (f" {s.scenario}", "bold"), f" · seed {s.seed}", sep,
            "episode ", (f"{s.t}/{s.n}", "bold"), " · ", (s.phase, "bold cyan"),
            *((" · ", ("❄ frozen for test", "bold blue")) if s.frozen else ()),
            sep, "true regime " if wide else "regime ", (s.regime or "—", "bold"),
            sep, "reflector: ",
            ((f"{s.belief[0]} ({s.belief[1]:.2f})", "bold magenta") if s.belief else ("—", "dim")),
        )
        standing = ", ".join(f"always {v} {k}" for k, v in sorted(s.standing.items()))
        if standing:  # where the rule can be seen in full and revoked
            key_for = getattr(self.app, "key_for", None)
            standing += f" ({key_for('lab.rules')}: rules)" if key_for else ""
        state = (("▶ running " + running, "bold green") if running else
                 ("■ finished", "bold") if s.done else ("⏸ paused", "yellow"))
        line2 = Text.assemble(
            (f" {s.selector}", "bold"), " · approval ", (s.approval, "bold"),
            *((" · ", (standing, "italic")) if standing else ()),
            " · ", ((f"⚠ {s.pending} pending", "bold black on yellow") if s.pending else ("0 pending", "dim")),
            sep, s.backend if s.backend == "offline" and not s.cost else f"{s.backend} ${s.cost:.2f}",
            sep, state, " · ", _speed(delay),
            *((sep, f"autosave every {autosave_every}") if autosave_every else ()),  # off: said in Options (o)
        )
        self._set_lines(line1, line2)


class CompareStatusBar(StatusBar):
    """The compare view's two lines: where the stream is, and that decisions are automatic."""

    def show_compare(self, s: Status, count: int, running: str | None, delay: float) -> None:
        sep = ("  │  ", "dim")
        line1 = Text.assemble(
            (f" {s.scenario}", "bold"), f" · seed {s.seed}", sep,
            "episode ", (f"{s.t}/{s.n}", "bold"), " · ", (s.phase, "bold cyan"),
            *((" · ", ("❄ frozen for test", "bold blue")) if s.frozen else ()),
            sep, "true regime ", (s.regime or "—", "bold"),
            sep, (f"{count} selectors in lockstep", "bold"), ": ", s.selector,
        )
        state = (("▶ running " + running, "bold green") if running else
                 ("■ finished", "bold") if s.done else ("⏸ paused", "yellow"))
        line2 = Text.assemble(
            (" approvals automatic", "bold black on yellow"),
            " (every proposal is approved and logged as auto)", sep, "offline", sep,
            state, " · ", _speed(delay), sep, (f"{self.app.key_for('compare.close')} back to the lab", "dim"),
        )
        self._set_lines(line1, line2)
