"""The answer of an export prompt (lab or compare), written: NAME.csv and NAME.json of
the host's sessions, and one notification saying where, or why not."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from textual.dom import DOMNode

from ael_lab import AELError
from ael_lab.runs import Session

from ael_tui.widgets.exports import export_history
from ael_tui.widgets.run_loop import RunLoop


def export_answer(node: DOMNode, host: RunLoop, sessions: Callable[[], dict[str, Session]],
                  text: str | None) -> None:
    """Write the history of `sessions()` (selector -> session, read under the host's lock)
    to the path `text` (None or empty: the prompt was cancelled). The path is placed by the
    host's settings (a served lab: inside its folder); the exports folder is made if it is
    the one meant."""
    if not text or not text.strip():
        return
    settings = host.settings
    try:
        base = settings.place(Path(text.strip()).expanduser(), "export")
        if base.parent == settings.place(settings.exports_dir, "export"):
            base.parent.mkdir(parents=True, exist_ok=True)
        with host.lock:
            csv_path, json_path = export_history(sessions(), base)
    except AELError as err:
        node.notify(str(err), severity="error", title="Not exported")
        return
    node.notify(f"{csv_path}\n{json_path}", title="Exported")
