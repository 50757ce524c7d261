"""The command palette: every named action of the current screen, with its key.

The list comes from the action registry (`actions.py`), filtered by the
screen's scope and by its `check_action`, so an action that is disabled now
(pause while nothing runs, decide with nothing pending) is not offered.
"""

from __future__ import annotations

from functools import partial
from typing import Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ael_tui.actions import NamedAction, actions_for


class LabCommands(Provider):
    def _available(self) -> Iterator[tuple[NamedAction, str, object]]:
        screen = self.screen
        scope = getattr(screen, "ACTION_SCOPE", None)
        keys: dict[str, str] = {}
        for key, active in screen.active_bindings.items():
            b = active.binding
            if b.id and b.id not in keys:
                keys[b.id] = b.key_display or self.app.get_key_display(b)
        scopes = ["app"] + ([scope] if scope else [])
        for scope_name in scopes:
            target = self.app if scope_name == "app" else screen
            for a in actions_for(scope_name):
                if not a.palette:
                    continue
                name = a.action.split("(", 1)[0]
                if target.check_action(name, ()) is not True:
                    continue
                yield a, keys.get(a.id, a.key_display or a.key.split(",")[0]), target

    def _title(self, a: NamedAction, key: str) -> str:
        return f"{a.label} ({key})"

    async def discover(self) -> Hits:
        for a, key, target in self._available():
            yield DiscoveryHit(self._title(a, key), partial(target.run_action, a.action), help=a.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for a, key, target in self._available():
            title = self._title(a, key)
            score = max(matcher.match(title), matcher.match(a.help) * 0.8)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(target.run_action, a.action), help=a.help)
