"""The AEL Lab application: screens, the keymap, and opening sessions.

`run_app(args)` is what `ael-lab`, `ael-lab lab …` and `ael-lab open FILE`
call. A session named on the command line is built (or loaded) before the
interface starts, so a bad flag or file is one line on stderr and exit 2,
like every other command; `ael-lab lab` takes the LLM flags of `ael-lab run`.

Quitting with progress no file holds asks first (y quits, n or Escape stays).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from time import time

from textual import events, work
from textual.app import App, Notify, ScreenStackError
from textual.css.query import NoMatches
from textual.notifications import Notification, Notifications
from textual.screen import ModalScreen

from ael_lab import AELError
from ael_lab.runs import Session, SessionConfig
from ael_lab.text import shown, shown_lines
from ael_lab.worlds import all_specs, spec_of

from ael_tui.actions import BY_ID, bindings_for, key_label
from ael_tui.commands import LabCommands
from ael_tui.compat import NotificationHooks, ToastRack, share_parsed_css
from ael_cli.flags.llm_flags import llm_config
from ael_cli.flags.scenario_flags import scenario_options
from ael_tui.config import LabSettings, load_keymap
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.dialogs import ConfirmScreen, PromptScreen
from ael_tui.help_screen import HelpScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.files.start_screen import StartScreen
from ael_tui.widgets.opening import NewSession, build_session, open_session


MAX_NOTIFICATIONS = 3


class AelLab(NotificationHooks):
    # what every screen shares, then each feature folder's own styles
    CSS_PATH = ["app.tcss", "lab/lab.tcss", "compare/compare.tcss", "tour/tour.tcss", "files/files.tcss",
                "decisions/decisions.tcss"]
    TITLE = "AEL Lab"
    BINDINGS = bindings_for("app")
    COMMANDS = App.COMMANDS | {LabCommands}

    def __init__(self, session: Session | None = None, *, path: Path | None = None,
                 settings: LabSettings | None = None, keymap_path: Path | None = None,
                 cursor_blink: bool = True, show_times: bool = True) -> None:
        """`cursor_blink` and `show_times` exist for tests and screenshots: no blinking
        cursor and no wall-clock times on screen make every picture the same."""
        super().__init__()
        share_parsed_css(self)  # each stylesheet source parsed once per process, not once per lab
        self.initial_session = session
        self.initial_path = path
        self.settings = settings or LabSettings()
        self.keymap_path = keymap_path
        self.cursor_blink_enabled = cursor_blink
        self.show_times = show_times
        self.keymap: dict[str, str] = {}
        self._notify_kinds: dict[str, object] = {}
        self._held: dict[str, float] = {}  # notifications waiting for a dialog to close -> their timeout

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True, kind: str | None = None) -> None:
        """Notifications carry engine messages and paths verbatim: never parsed as markup, and
        a control in them (a file's column name, a model's words) shown, never obeyed.
        One of a `kind` (e.g. "reflection") replaces the previous one of that kind."""
        notification = Notification(shown_lines(message), shown(title), severity,
                                    self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=False)
        if kind is not None:
            previous = self._notify_kinds.get(kind)
            if previous is not None and previous in self.notifications:
                self.expire(previous)
                self.refresh_notifications()
            self._notify_kinds[kind] = notification
        self.post_message(Notify(notification))

    # ------------------------------------------------------------ overlays
    # The one rule for what is drawn over what, kept here and nowhere else: a notification is
    # never drawn over a dialog, a tour card (every ModalScreen: dialogs, cards, help, the
    # palette) or the footer. One raised while such a screen is on top waits, its timer
    # stopped, and is shown with its full time once a screen with no dialog over it is back
    # (one already shown waits too, with the time it had left); while a run goes on in the lab
    # (the one a decision let go on), it waits on for the run's end, a quiet moment, instead
    # of covering the panels the run is drawing. The toasts sit just above the footer
    # (ToastRack's margin is the footer's height).

    def notification_raised(self, notification: Notification) -> None:
        """At most MAX_NOTIFICATIONS are kept (the oldest go first), so a stack of them
        never covers a panel's worth of the lab."""
        if self._covered():
            self._held[notification.identity] = notification.timeout
            notification.timeout = float("inf")  # waits: not reaped, not counted down
        self.notifications.add(notification)
        for old in list(self.notifications)[:-MAX_NOTIFICATIONS]:
            self.expire(old)
        self.refresh_notifications()

    def _covered(self) -> bool:
        try:
            return isinstance(self.screen, ModalScreen)
        except ScreenStackError:  # no screen yet (start-up): nothing to cover
            return False

    def refresh_notifications(self) -> None:
        """A dialog or card on top: no toast on it, and those of the screens under it are taken
        down too (a card leaves the lab in view, and a toast peeking out beside it read as one
        over it); each waits with the time it had left. Back on a screen without one, what
        waited is shown from now, for that time."""
        if self._covered():
            for notification in self.notifications:
                if notification.identity not in self._held:
                    self._held[notification.identity] = max(notification.time_left, 2.0)
                    notification.timeout = float("inf")
            for screen in self.screen_stack:
                try:
                    rack = screen.get_child_by_type(ToastRack)
                except NoMatches:
                    continue
                self.call_later(rack.show, Notifications())
            return
        self._held = {k: v for k, v in self._held.items() if any(n.identity == k for n in self.notifications)}
        if self._held and self._run_going():
            # what waited for a dialog waits on for a quiet moment: the run a decision let go on
            # would otherwise have it over its panels (the run's end calls this again, issue 41)
            visible = Notifications()
            for notification in self.notifications:
                if notification.identity not in self._held:
                    visible.add(notification)
            try:
                rack = self.screen.get_child_by_type(ToastRack)
            except NoMatches:
                return
            self.call_later(rack.show, visible)
            return
        for notification in list(self.notifications):
            timeout = self._held.pop(notification.identity, None)
            if timeout is not None:
                notification.timeout, notification.raised_at = timeout, time()
        super().refresh_notifications()

    def _run_going(self) -> bool:
        """A run goes in the lab (a quiet moment is one without)."""
        lab = self.lab
        return lab is not None and lab.host.running is not None

    def waiting_notifications(self) -> list[Notification]:
        """The notifications held until the dialog or card on top closes."""
        return [n for n in self.notifications if n.identity in self._held]

    def key_for(self, binding_id: str) -> str:
        """The key the active keymap gives an action, as shown to a person (hints in texts)."""
        return key_label(self.keymap.get(binding_id) or BY_ID[binding_id].key)

    def on_mount(self) -> None:
        keymap, problems = load_keymap(self.keymap_path)
        if keymap:
            self.keymap = keymap
            self.set_keymap(keymap)
        for problem in problems:
            self.notify(problem, severity="warning", title="Keymap", timeout=10)
        from ael_lab.registries import PLUGIN_NOTICES  # plugins left out at start-up: one line each, the lab works on

        for notice in PLUGIN_NOTICES:
            self.notify(notice, severity="warning", title="Plugin", timeout=10)
        if self.initial_session is not None:
            self.push_screen(LabScreen(SessionHost(self.initial_session, self.settings, self.initial_path)))
        else:
            self.push_screen(StartScreen())

    # ---------------------------------------------------------------- screens
    @property
    def lab(self) -> LabScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, LabScreen):
                return screen
        return None

    def _replace_top(self, screen) -> None:
        while isinstance(self.screen, ModalScreen) or (isinstance(self.screen, StartScreen) and
                                                       len(self.screen_stack) > 2):
            self.pop_screen()  # dialogs, and a start screen opened over a lab (ctrl+n)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def show_lab(self, session: Session, path: Path | None = None) -> None:
        self._replace_top(LabScreen(SessionHost(session, self.settings, path)))

    def show_start(self, config: SessionConfig | None = None) -> None:
        """The start screen over the lab (Escape comes back to it unchanged)."""
        defaults = None
        if config is not None:
            defaults = NewSession(config.scenario, config.seed, config.selector,
                                  config.approval if config.approval in ("manual", "auto") else "manual",
                                  variants=list(config.variants))
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        self.push_screen(StartScreen(defaults))

    def leave_lab_then(self, then, doing: str, stay: str = "No") -> None:
        """Run `then` (which closes or replaces the open session) at once if no progress would
        be lost, else after a person confirms: the one leave-the-lab question, for quitting,
        a new session and opening a save. `doing` names the way out ("Quit"), `stay` the answer
        that keeps the lab. A question already showing is not asked again over itself (a
        second ctrl+q)."""
        lab = self.lab
        if lab is None or not lab.host.unsaved:
            then()
            return
        showing = self.screen
        if isinstance(showing, ConfirmScreen) and showing.has_class("confirm-leave") and showing.yes == doing:
            return
        lab.host.pause()
        with lab.host.lock:
            t = lab.host.session.t
        where = f" since the last save ({lab.host.saved_at})" if lab.host.saved_at else ""
        question = (f"Episode {t} of the open session has progress no file holds{where}. "
                    f"{doing} anyway? ({stay} goes back; {self.key_for('lab.save')} in the lab saves first)")

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmScreen(question, yes=doing, no=stay, classes="confirm-leave"), answered)

    # ------------------------------------------------------- app-wide actions
    def on_key(self, event: events.Key) -> None:
        """Help over a dialog or a card too. Textual stops a modal screen's binding chain at
        the screen, so the app's help key did nothing in a decision dialog; a key the dialog
        did not take (an input keeps its "?") comes up here."""
        keys = (self.keymap.get("app.help") or BY_ID["app.help"].key).split(",")
        if event.key in keys and isinstance(self.screen, ModalScreen) and not isinstance(self.screen, HelpScreen):
            event.stop()
            self.action_help()

    def action_help(self) -> None:
        if not any(isinstance(s, HelpScreen) for s in self.screen_stack):
            self.push_screen(HelpScreen(self.keymap))

    def action_save_svg(self) -> None:
        """The screen as SVG, for slides: asks where (exports/<what>-e<episode>.svg by default,
        never over an older one), then takes it once the prompt and the notifications are gone
        (they are not part of the lab). The prompt takes the Enter that answers it: without
        one, an Enter meant for it went on to the focused panel (and opened an episode)."""
        if any(isinstance(s, PromptScreen) and s.input_id == "svg-path" for s in self.screen_stack):
            return
        named = getattr(self.screen, "screenshot_name", None)
        if named is None and self.lab is not None:
            named = self.lab.screenshot_name
        folder = self.settings.exports_dir
        default = _free(folder / f"{named() if named else 'ael-lab'}.svg")
        self.push_screen(
            PromptScreen("Save a screenshot of this screen (SVG) as", value=str(default),
                         placeholder=f"{folder}/name.svg", ok="Save", input_id="svg-path", required="a file name",
                         hint=f"The screen as it is now, without this dialog; the folder must exist ({folder}/ "
                              "is created). An existing file is never overwritten: -2, -3… is added."),
            self._svg_named)

    def _svg_named(self, text: str | None) -> None:
        if text is None:
            return
        path = Path(text.strip()).expanduser()
        if path.suffix.lower() != ".svg":
            path = path.with_name(path.name + ".svg")
        try:
            path = self.settings.place(path, "export")
        except AELError as err:
            self.notify(str(err), severity="error", title="Screenshot")
            return
        self.clear_notifications()
        self.call_after_refresh(lambda: self.call_after_refresh(self._save_svg, path))

    def _save_svg(self, path: Path) -> None:
        try:
            if path.parent == self.settings.place(self.settings.exports_dir, "export"):
                path.parent.mkdir(parents=True, exist_ok=True)
            elif not path.parent.is_dir():
                self.notify(f"no screenshot: the folder {path.parent} does not exist", severity="error",
                            title="Screenshot")
                return
            path = _free(path)
            saved = self.save_screenshot(filename=path.name, path=str(path.parent))
        except (OSError, AELError) as err:
            self.notify(f"no screenshot: {getattr(err, 'strerror', None) or err}", severity="error",
                        title="Screenshot")
            return
        self.notify(saved, title="Screenshot saved")

    async def action_quit(self) -> None:
        self.leave_lab_then(self.exit, "Quit", stay="Stay")

    # -------------------------------------------------------------- sessions
    def start_new_session(self, spec: NewSession) -> None:
        def build() -> None:
            self.notify(f"Building {spec.scenario}, seed {spec.seed}…", timeout=2)
            self._build(spec)

        self.leave_lab_then(build, "Start a new session")

    @work(thread=True, exclusive=True, group="session-io", exit_on_error=False)
    def _build(self, spec: NewSession) -> None:
        try:
            session = build_session(spec)
        except AELError as err:
            self.call_from_thread(self.notify, str(err), severity="error", title="Cannot start")
            return
        self.call_from_thread(self.show_lab, session, None)

    def open_saved_session(self, path: Path) -> None:
        """Load in a thread; on failure the notification says why and nothing else changes."""
        self.leave_lab_then(lambda: self._load(path), "Open the save")

    @work(thread=True, exclusive=True, group="session-io", exit_on_error=False)
    def _load(self, path: Path) -> None:
        try:
            session = open_session(path)
        except AELError as err:
            self.call_from_thread(self.notify, str(err), severity="error", title="Not loaded", timeout=10)
            return
        self.call_from_thread(self._loaded, session, path)

    def _loaded(self, session: Session, path: Path) -> None:
        self.show_lab(session, path)
        self.notify(f"Loaded {path} at episode {session.t}.", title="Loaded")


def run_app(args: argparse.Namespace | None = None) -> int:
    """Open the lab for `ael-lab` (start screen), `ael-lab lab …` or `ael-lab open FILE`."""
    command = getattr(args, "command", None)
    session: Session | None = None
    path: Path | None = None
    if command == "lab":
        from ael_cli.flags.reflection_flags import reflector_options
        from ael_cli.flags.variant_flags import variants_of
        session = build_session(NewSession(
            scenario=args.scenario, seed=args.seed, selector=args.selector, approval=args.approve,
            options=scenario_options(args, spec_of(args.scenario), all_specs()),
            llm=llm_config(args) if hasattr(args, "agent") else None,
            reflector_options=reflector_options(args) if hasattr(args, "trigger") else None,
            variants=variants_of(args, args.scenario)))
    elif command == "open":
        path = Path(args.file)
        session = open_session(path, llm_url=getattr(args, "llm_url", None))
    app = AelLab(session, path=path, settings=LabSettings(tends_heap=True))
    app.run()
    return app.return_code or 0  # a crash inside the interface must not look like success


def _free(path: Path) -> Path:
    """`path`, or NAME-2.svg, NAME-3.svg… beside it if it exists: never over an older file."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate
