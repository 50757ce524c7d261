"""Text from data as it may be shown or written: a terminal shows it without obeying it
(no escape sequence, no control character), a CSV cell is never a formula a spreadsheet
would evaluate, and a secret never reaches a screen, a log or a file (docs/api.md, "For the
front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "shown": "engine.shown_text:shown",
    "shown_lines": "engine.shown_text:shown_lines",
    "frame_text": "engine.safe_csv:frame_text",
    "rows_text": "engine.safe_csv:rows_text",
    "scrub": "engine.secrets:scrub",
    "clip": "engine.secrets:clip",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
