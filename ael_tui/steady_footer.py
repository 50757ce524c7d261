"""A footer that rebuilds its keys only when they change.

Textual's `Footer` recomposes (unmounts and mounts every key, about 40 in the lab:
50-100 ms on this machine) on every bindings signal: a focus change, a screen
resumed, each `refresh_bindings`. At start-up that is three rebuilds of the same
keys right after the first frame, and a key pressed then (the first step) waits
for them. `SteadyFooter` compares what it would show with what it shows and
rebuilds only on a difference.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    _shown: tuple | None = None  # what the keys composed last show

    def _what_it_shows(self) -> tuple:
        keys = tuple((binding.key, binding.description, binding.action, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in self.screen.active_bindings.values() if binding.show)
        return keys, self.show_command_palette, self.compact

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._what_it_shows()
        yield from super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        if self._shown is not None and self.is_attached and screen is self.screen \
                and self._what_it_shows() == self._shown:
            return  # the same keys: Footer would unmount and mount them all again
        super().bindings_changed(screen)
