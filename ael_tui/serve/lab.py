"""The lab one browser visitor gets: `python -m ael_tui.serve.lab`, started by the server.

It reads its `ServedMode` from the environment (`AEL_LAB_SERVED`), works in
the sessions folder, and refuses, with a notification, what a served lab must
not do: a file outside the folder, a session that would call a model with the
teacher's keys, data from outside (or downloaded), a write over the visitor's
quota (quota.py). In class mode it opens on the teacher's scenario and seed, at
the tour's first card. When the server ends it (tab closed, idle), unsaved
progress is autosaved to the folder; so it is on SIGTERM or SIGHUP (the teacher's
terminal closing) and when the server dies (kill -9, the OOM killer), which a
forked lab hears as its control socket's close (ClassLink) and a lab the server
started itself (--no-fork) as its parent's death (die_with_parent).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import socket
import sys
from pathlib import Path

from dataclasses import replace

from textual import work

from ael_lab import AELError
from ael_lab.runs import Session
from ael_lab.store import load_session

from ..app import AelLab
from ..compat import ExitHook
from ..config import LabSettings
from ..widgets.opening import NewSession
from .classroom import ClassLink
from .mode import ServedMode, first_session
from .quota import VisitorFiles
from .supervise import die_with_parent


# A served lab's frames cross the class's network, forty at once: a run draws what a person can
# read, four views a second (the last state always drawn), not every episode (a view of a
# 160x48 lab is kilobytes; at the default speed a window is twenty episodes a second). The
# screen's own rate (TEXTUAL_FPS, server.py) caps everything else: typing, scrolling, dialogs.
FRAME_EVERY = 0.25


class ServedLab(ExitHook, AelLab):
    # relative to the lab's module, not this one (the lab lists one stylesheet per feature folder)
    CSS_PATH = [Path(inspect.getfile(AelLab)).parent / p for p in AelLab.CSS_PATH]

    def __init__(self, mode: ServedMode, session: Session | None = None, *,
                 control: socket.socket | None = None, visitor: str = "", **kwargs) -> None:
        folder = mode.folder
        saves = Path(".") if Path.cwd().resolve() == folder else folder  # short names when working there
        settings = kwargs.pop("settings", None) or LabSettings()
        self.files = VisitorFiles(mode)
        settings.saves_dir, settings.exports_dir, settings.served = saves, saves / "exports", self.files
        settings.frame_every = FRAME_EVERY
        super().__init__(session, settings=settings, **kwargs)
        self.served = mode
        self.class_link = ClassLink(self, control, visitor) if control is not None else None

    def on_mount(self) -> None:
        # (no super().on_mount(): Textual calls the lab's own on_mount after this one, as it calls the
        # handler of every class of the app; called here too, it pushed the first screen twice, and every
        # served lab composed two labs, or two start screens, one under the other)
        if not self.is_headless:  # (the fork server's warm-up is headless: its signals stay the server's)
            try:  # SIGHUP as the web driver takes SIGTERM: an autosave, then the end
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self.exit)
            except (NotImplementedError, RuntimeError, ValueError):  # no SIGHUP here, or not the main thread
                pass
        if self.class_link is not None:
            self.class_link.start()
        if self.served.tour and self.initial_session is not None:
            self.call_after_refresh(self._open_tour)

    def _open_tour(self) -> None:
        if self.lab is not None:
            self.lab.action_tour()  # runs to the first moment and shows its card

    async def before_exit_app(self) -> None:
        """The server ends a lab this way (its tab closed, or idle too long): progress no file
        holds goes to an autosave in the sessions folder first, so a closed tab loses nothing.
        (A visitor's own quit asks them instead, and does not come here.)"""
        lab = self.lab
        if lab is not None and lab.host.unsaved:
            host = lab.host
            host.pause()
            try:
                host.save(host.autosave_path())
            except (AELError, OSError) as err:
                print(f"ael-lab: autosave at exit failed: {err}", file=sys.stderr)

    def open_saved_session(self, path: Path) -> None:
        try:
            path = self.served.confine(path, "open")
        except AELError as err:
            self.notify(str(err), severity="error", title="Not loaded", timeout=10)
            return
        super().open_saved_session(path)

    def start_new_session(self, spec: NewSession) -> None:
        try:
            self.served.check_new(spec.agent, spec.reflector, spec.llm)
            spec = replace(spec, options=self.served.scenario_options(spec.scenario, spec.options))
        except AELError as err:
            self.notify(str(err), severity="error", title="Cannot start")
            return
        super().start_new_session(spec)

    @work(thread=True, exclusive=True, group="session-io", exit_on_error=False)
    def _load(self, path: Path) -> None:
        """As the lab's, with the served checks before the save's scenario is built (a news
        save would otherwise read, or fetch, its articles first)."""
        try:
            session = load_session(path, self.served.make_scenario)
        except AELError as err:
            self.call_from_thread(self.notify, str(err), severity="error", title="Not loaded", timeout=10)
            return
        self.call_from_thread(self._loaded, session, path)

    def action_save_svg(self) -> None:
        """As the lab's, refused at once (no prompt) when the visitor's quota is used up."""
        try:
            self.files.check("screenshot")
        except AELError as err:
            self.notify(str(err), severity="error", title="Screenshot")
            return
        super().action_save_svg()

    def _save_svg(self, path: Path) -> None:
        """As the lab's, within the visitor's quota, and counted in it."""
        try:
            self.files.check("screenshot")
        except AELError as err:
            self.notify(str(err), severity="error", title="Screenshot")
            return
        folder = path.parent
        before = set(folder.glob("*.svg")) if folder.is_dir() else set()
        super()._save_svg(path)
        if folder.is_dir():
            self.files.record(*(set(folder.glob("*.svg")) - before))

    def _loaded(self, session: Session, path: Path) -> None:
        try:
            self.served.admit(session)
        except AELError as err:
            self.notify(str(err), severity="error", title="Not loaded", timeout=10)
            return
        super()._loaded(session, path)


def main() -> int:
    mode = ServedMode.from_env()
    if mode is None:
        print("ael-lab: this module is started by `ael-lab serve`, not by hand", file=sys.stderr)
        return 2
    die_with_parent(signal.SIGHUP)  # the server started us (--no-fork): its death ends us, with an autosave
    try:
        os.chdir(mode.folder)
        session = first_session(mode)
    except (AELError, OSError) as err:
        print(f"ael-lab: {err}", file=sys.stderr)
        return 2
    app = ServedLab(mode, session, settings=LabSettings(tends_heap=True))
    app.run()
    return app.return_code or 0


if __name__ == "__main__":
    raise SystemExit(main())
