"""`Parts`: a widget's children that are composed once and never replaced, each looked
up once. The lab gives every panel its part of the session after every step; a
`query_one` walks the DOM and matches CSS each time, which cost about a millisecond
a step over the dozen panels and their pieces."""

from __future__ import annotations

from typing import TypeVar

from textual.dom import DOMNode
from textual.widget import Widget

W = TypeVar("W", bound=Widget)


class Parts:
    def __init__(self, root: DOMNode) -> None:
        self._root = root
        self._found: dict[type, Widget] = {}

    def __call__(self, kind: type[W]) -> W:
        """The one widget of `kind` under the root (as `query_one(kind)`)."""
        found = self._found.get(kind)
        if found is None or not found.is_attached:
            found = self._found[kind] = self._root.query_one(kind)
        return found  # type: ignore[return-value]
