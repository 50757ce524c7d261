"""The status line: where the run is and what it is doing."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget

from ael_tui.widgets.readouts import Status


def _speed(delay: float) -> str:
    """The delay between episodes, not a rate: an episode's own time comes on top (20 ep/s
    was shown for 50 ms while 13-17 were measured)."""
    if delay <= 0:
        return "full speed"
    return f"delay {delay * 1000:.0f} ms" if delay < 1 else f"delay {delay:.1f} s"


SEP = ("  │  ", "dim")
NARROW_SEP = (" │ ", "dim")


def wrap_parts(parts: list[Text], sep: Text, width: int) -> list[Text]:
    """`parts` joined by `sep` on as few lines of `width` as they fit, broken only between
    parts (a continuation line starts with one space); a part wider than a line is cut with
    an ellipsis, the only cut there is."""
    lines: list[Text] = []
    line: Text | None = None
    for part in parts:
        if line is None:
            line = part.copy()
        elif line.cell_len + sep.cell_len + part.cell_len <= width:
            line = Text.assemble(line, sep, part)
        else:
            lines.append(line)
            line = Text.assemble(" ", part)
    if line is not None:
        lines.append(line)
    return lines


def run_state(s: Status, running: str | None) -> Text:
    """Running, finished or paused; "‖" for paused, a sign every font has (the SVG export
    drew the media-pause sign as a box)."""
    if running:
        return Text("▶ running " + running, "bold green")
    return Text("■ finished", "bold") if s.done else Text("‖ paused", "yellow")


class StatusBar(Widget):
    """The session and the run, as two lines of parts; a line wider than the screen wraps
    between its parts (so nothing is cut), and the bar grows by that line. Its size depends
    on its text only when the number of lines changes, so an update repaints the line that
    changed (a step changes the first only), no layout pass."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lines: tuple[Text, ...] = ()
        self._parts: tuple[list[Text], ...] = ()
        self._sep = Text(*SEP)
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

    def on_resize(self) -> None:
        if self._parts:
            self._set_parts(self._sep, *self._parts)

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    def _set_parts(self, sep: tuple[str, str], *lines: list[Text]) -> None:
        """Each line's parts, wrapped to the width."""
        self._parts, self._sep = lines, Text(*sep) if isinstance(sep, tuple) else sep
        width = self._width()
        self._set_lines(*(wrapped for parts in lines for wrapped in wrap_parts(parts, self._sep, width)))

    def _set_lines(self, *lines: Text) -> None:
        for line in lines:
            line.no_wrap = True
            line.overflow = "ellipsis"
        before, self._lines = self._lines, lines
        if len(before) != len(lines):
            self.styles.height = max(2, len(lines))
            self.refresh()
            return
        changed = [Region(0, y, self.size.width, 1) for y, (a, b) in enumerate(zip(before, lines)) if a != b]
        if changed:
            self.refresh(*changed)

    def show(self, s: Status, running: str | None, delay: float, autosave_every: int) -> None:
        wide = self._width() >= 120
        sep = SEP if wide else NARROW_SEP  # below 120 columns: narrower, so more fits on a line
        line1 = [
            Text.assemble((f" {s.scenario}", "bold"), f" · seed {s.seed}"),
            Text.assemble("episode ", (f"{s.t}/{s.n}", "bold"), " · ", (s.phase, "bold cyan"),
                          *((" · ", ("❄ frozen for test", "bold blue")) if s.frozen else ())),
            Text.assemble("true regime " if wide else "regime ", (s.regime or "—", "bold")),
            Text.assemble("reflector: ",
                          ((f"{s.belief[0]} ({s.belief[1]:.2f})", "bold magenta") if s.belief else ("—", "dim"))),
            *([Text(s.plugins, style="bold yellow")] if s.plugins else []),  # what else runs in the engine
        ]
        standing = ", ".join(f"always {v} {k}" for k, v in sorted(s.standing.items()))
        if standing:  # where the rule can be seen in full and revoked
            key_for = getattr(self.app, "key_for", None)
            standing += f" ({key_for('lab.rules')}: rules)" if key_for else ""
        line2 = [
            Text.assemble((f" {s.selector}", "bold"), " · approval ", (s.approval, "bold"),
                          *((" · ", (standing, "italic")) if standing else ()),
                          " · ", ((f"⚠ {s.pending} pending", "bold black on yellow") if s.pending
                                  else ("0 pending", "dim"))),
            Text(s.backend if s.backend == "offline" and not s.cost else f"{s.backend} ${s.cost:.2f}"),
            Text.assemble(run_state(s, running), " · ", _speed(delay)),
            *([Text(f"autosave every {autosave_every}")] if autosave_every else []),  # off: said in Options (o)
        ]
        self._set_parts(sep, line1, line2)


class CompareStatusBar(StatusBar):
    """The compare view's two lines: where the stream is, and that decisions are automatic."""

    def show_compare(self, s: Status, count: int, running: str | None, delay: float) -> None:
        line1 = [
            Text.assemble((f" {s.scenario}", "bold"), f" · seed {s.seed}"),
            Text.assemble("episode ", (f"{s.t}/{s.n}", "bold"), " · ", (s.phase, "bold cyan"),
                          *((" · ", ("❄ frozen for test", "bold blue")) if s.frozen else ())),
            Text.assemble("true regime ", (s.regime or "—", "bold")),
            Text.assemble((f"{count} selectors in lockstep", "bold"), ": ", s.selector),
            *([Text(s.plugins, style="bold yellow")] if s.plugins else []),
        ]
        line2 = [
            Text.assemble((" approvals automatic", "bold black on yellow"),
                          " (every proposal is approved and logged as auto)"),
            Text("offline"),
            Text.assemble(run_state(s, running), " · ", _speed(delay)),
            Text(f"{self.app.key_for('compare.close')} back to the lab", style="dim"),
        ]
        self._set_parts(SEP, line1, line2)
