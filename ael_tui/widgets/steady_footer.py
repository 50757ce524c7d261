"""A footer that rebuilds its keys only when they change, and shows what fits.

Textual's `Footer` recomposes (unmounts and mounts every key, about 40 in the lab:
50-100 ms on this machine) on every bindings signal: a focus change, a screen
resumed, each `refresh_bindings`. At start-up that is three rebuilds of the same
keys right after the first frame, and a key pressed then (the first step) waits
for them. `SteadyFooter` compares what it would show with what it shows and
rebuilds only on a difference.

Which keys show depends on the width (issue 29): help, save and quit always (quit
though its binding is hidden), then the palette's key (where every other action is),
then the screen's keys in their order, as many as fit; a key that does not fit is
hidden whole, never cut. The palette's key is one of the row, not docked over its
right end (that drew `^▏^p palettee` over a cut key).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from ael_tui.compat import FooterKey, FooterLabel, KeyGroup, bindings_ready

ESSENTIAL = ("app.help", "lab.save", "app.quit")  # shown at every width, in this order, at the right
# kept where they stand in the row before the keys after them when the width is short: the tour
# (how a newcomer begins) and the next group of panels (how a small screen sees the others);
# so are the focused widget's own keys (the episode log's Enter and /), which nothing else shows
KEPT = ("lab.tour", "lab.panels")


class SteadyFooter(Footer):
    DEFAULT_CSS = """
    SteadyFooter FooterKey.-command-palette { dock: none; border-left: none; }
    SteadyFooter FooterKey.-essential .footer-key--key { text-style: bold; }
    """

    _shown: tuple | None = None  # what the keys composed last show

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # a key's text width, measured once (rendering each key to measure it was most of a fit,
        # and a fit runs on every resize and twice per rebuild); forgotten with the keys, and
        # when the footer is restyled (a theme, its -compact): a key's width is its text and padding
        self._text_widths: dict[Widget, int] = {}

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._text_widths.clear()

    def _what_it_shows(self) -> tuple:
        focused = self.screen.focused
        keys = tuple((binding.key, binding.description, binding.action, enabled, tooltip,
                      focused is not None and namespace is focused)  # the focused widget's own keys go first
                     for (namespace, binding, enabled, tooltip) in self.screen.active_bindings.values()
                     if binding.show or binding.id in ESSENTIAL)
        return keys, self.show_command_palette, self.compact

    def compose(self) -> ComposeResult:
        if not bindings_ready(self):
            return
        self._shown = self._what_it_shows()
        active = self.screen.active_bindings
        essential: dict[str, tuple] = {}
        by_action: defaultdict[str, list[tuple]] = defaultdict(list)
        focused = self.screen.focused
        own: set[int] = set()  # the focused widget's bindings (kept, as KEPT)
        for (namespace, binding, enabled, tooltip) in active.values():
            if binding.id in ESSENTIAL:
                essential.setdefault(binding.id, (binding, enabled, tooltip))
            elif binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
                if focused is not None and namespace is focused:
                    own.add(id(binding))
        for group, same in groupby(by_action.values(), lambda multi: multi[0][0].group):
            same = list(same)
            if group is not None and len(same) > 1:
                with KeyGroup(classes="-compact" if group.compact else ""):
                    for multi in same:
                        binding, enabled, tooltip = multi[0]
                        yield self._key(binding, "", disabled=not enabled,
                                        tooltip=tooltip or binding.description, classes="-grouped")
                yield FooterLabel(group.description)
            else:
                for multi in same:
                    binding, enabled, tooltip = multi[0]
                    kept = binding.id in KEPT or id(binding) in own
                    yield self._key(binding, binding.description, disabled=not enabled, tooltip=tooltip,
                                    classes="-kept" if kept else "")
        for bid in ESSENTIAL:
            if bid in essential:
                binding, enabled, tooltip = essential[bid]
                yield self._key(binding, binding.description, disabled=not enabled,
                                tooltip=tooltip or binding.description, classes="-essential")
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                yield self._key(binding, binding.description, disabled=not enabled,
                                tooltip=binding.tooltip or binding.description, classes="-command-palette")

    def _key(self, binding, description: str, disabled: bool, tooltip: str, classes: str) -> FooterKey:
        """A key, born with the footer's compactness. FooterKey's `compact` defaults to True and
        its watcher sets the class `-compact` once mounted: each such class change restyles the key
        on its own, about 40 restyles per rebuild of the lab's footer, a tenth of a lab test's CPU
        (py-spy/cProfile, 2026-11-29). With the class and the value set here the watcher finds
        nothing to change; the binding still follows the footer's `compact` after."""
        key = FooterKey(binding.key, self.app.get_key_display(binding), description, binding.action,
                        disabled=disabled, tooltip=tooltip,
                        classes=f"{classes} -compact" if self.compact else classes)
        key.set_reactive(FooterKey.compact, self.compact)
        return key.data_bind(compact=Footer.compact)

    async def recompose(self) -> None:
        """The keys again, then which of them fit (once they are mounted: measured before,
        every key showed and help, save and quit fell off the right end)."""
        if self._shown is not None and self.is_attached and self._what_it_shows() == self._shown:
            # bindings_changed compares when the signal comes, and each signal that differs queues
            # a rebuild: two in one frame (a run's end refreshes the keys, then its view does)
            # queued two, and the first built what the second would (a fifth of the rebuilds in
            # tests/lab/test_tui_sizes.py and test_tui_keys_say_why.py)
            return
        self._text_widths.clear()  # the keys measured are about to go
        await super().recompose()
        self.fit()
        self.call_after_refresh(self.fit)

    def on_resize(self) -> None:
        self.fit()

    def _units(self) -> list[list[Widget]]:
        """The footer's items as they are shown or hidden together (a key group and its label)."""
        units: list[list[Widget]] = []
        for child in self.children:
            if isinstance(child, FooterLabel) and units and isinstance(units[-1][0], KeyGroup):
                units[-1].append(child)
            else:
                units.append([child])
        return units

    def _width_of(self, widget: Widget) -> int:
        if isinstance(widget, KeyGroup):
            inner = sum(self._width_of(child) for child in widget.children)
        else:
            inner = self._text_widths.get(widget)
            if inner is None:
                inner = self._text_widths[widget] = widget.get_content_width(self.size, self.app.size)
        return inner + widget.styles.gutter.width + widget.styles.margin.width

    def fit(self) -> None:
        """Show the units that fit the width, by priority: help, save and quit, the palette's
        key, the kept keys (KEPT), then the screen's other keys in order (the first that does
        not fit ends them)."""
        width = self.size.width or self.app.size.width
        if not width:
            return
        units = self._units()
        first = [u for u in units if u[0].has_class("-essential")]
        palette = [u for u in units if u[0].has_class("-command-palette")]
        kept = [u for u in units if u[0].has_class("-kept")]
        rest = [u for u in units if u not in first and u not in palette and u not in kept]
        used, show = 0, set()
        for unit in first + palette + kept:
            need = sum(self._width_of(w) for w in unit)
            if used + need <= width or unit in first:
                used += need
                show.add(id(unit[0]))
        for unit in rest:
            need = sum(self._width_of(w) for w in unit)
            if used + need > width:
                break
            used += need
            show.add(id(unit[0]))
        for unit in units:
            for widget in unit:
                widget.display = id(unit[0]) in show

    def bindings_changed(self, screen: Screen) -> None:
        if self._shown is not None and self.is_attached and screen is self.screen \
                and self._what_it_shows() == self._shown:
            return  # the same keys: Footer would unmount and mount them all again
        super().bindings_changed(screen)
