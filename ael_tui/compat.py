"""Every private name of Textual and textual-serve the project uses, here and nowhere else.

Read from textual==8.2.8 and textual-serve==1.1.3 (both pinned exactly in pyproject.toml
and constraints.txt). A private name can change in any release: an upgrade reads each
use below against the new source, and `tests/test_textual_compat.py` fails when one of
the names in `PRIVATE_NAMES` is gone (and when a module outside this one names one).
Each use is a small named function or a class whose hooks have public names, so the
rest of the project calls those and never the private name itself.

Dropped: the cap on notifications (at most a few on screen) no longer removes the old
ones with `App._unnotify`: it expires them through the public `Notification.timeout`,
and Textual's own collection forgets an expired notification. (Textual 8 has no public
cap as such: Textualize/textual#5129 asks for one.)

textual-serve's classes are made on first use (`service_base()`, `server_base()`):
importing them loads aiohttp, which a lab in a terminal never needs.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache
from typing import Any, Callable

from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.geometry import Size
from textual.keys import _character_to_key
from textual.notifications import Notification, Notifications, Notify
from textual.widget import Widget
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup  # the footer's parts, not exported
from textual.widgets._toast import Toast, ToastRack  # the notifications' rack, not exported
from textual.widgets._toggle_button import ToggleButton  # a selection box's glyphs, not exported

TEXTUAL_VERSION = "8.2.8"
TEXTUAL_SERVE_VERSION = "1.1.3"

# (where, name): every private name this module reads, calls or overrides; "module:Class" or
# "module". The compat test checks each is still there (a class attribute, or an attribute its
# source assigns to `self`), and that no other module of the project names one of them.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("textual.keys", "_character_to_key"),
    ("textual.widgets", "_footer"),
    ("textual.widgets", "_toast"),
    ("textual.widgets", "_toggle_button"),
    ("textual.app:App", "_notifications"),
    ("textual.app:App", "_on_notify"),
    ("textual.app:App", "_refresh_notifications"),
    ("textual.app:App", "_on_exit_app"),
    ("textual.app:App", "_display"),
    ("textual.app:App", "_start_widget"),
    ("textual.screen:Screen", "_bindings"),
    ("textual.widgets:Footer", "_bindings_ready"),
    ("textual.widgets:SelectionList", "_selected"),
    ("textual.widget:Widget", "_scroll_update"),
    ("textual.widget:Widget", "_vertical_scrollbar"),
    ("textual_serve.app_service:AppService", "_open_app_process"),
    ("textual_serve.app_service:AppService", "_build_environment"),
    ("textual_serve.app_service:AppService", "_process"),
    ("textual_serve.app_service:AppService", "_stdin"),
    ("textual_serve.app_service:AppService", "_task"),
    ("textual_serve.server:Server", "_make_app"),
    ("textual.css.stylesheet:Stylesheet", "_parse_rules"),
)

__all__ = ["FooterKey", "FooterLabel", "KeyGroup", "Toast", "ToastRack", "ToggleButton",
           "character_to_key", "bindings_of", "bindings_ready", "selected_values", "scroll_update",
           "vertical_scrollbar", "on_each_frame", "share_parsed_css", "NotificationHooks", "ExitHook",
           "service_base", "server_base"]


def character_to_key(character: str) -> str:
    """A character's key name ("?" -> "question_mark"): Textual's own reading of a keymap."""
    return _character_to_key(character)


def bindings_of(screen: Any) -> Any:
    """A screen's own bindings map (key -> bindings), enabled or not: `active_bindings` leaves
    out those `check_action` disables, the very keys that must say why."""
    return screen._bindings


def bindings_ready(footer: Any) -> bool:
    """Whether a Footer has been told its screen's bindings (composing before would show none)."""
    return footer._bindings_ready


def selected_values(selection_list: Any) -> Any:
    """The values a SelectionList has ticked, as a set to test membership (`selected` is a list
    built on each read, and is read for every line drawn)."""
    return selection_list._selected


def scroll_update(widget: Widget, virtual_size: Size) -> None:
    """Tell a widget's scrollbars a virtual size set without the reactive's layout pass
    (their thumb's size and place, not only whether they show)."""
    widget._scroll_update(virtual_size)


def vertical_scrollbar(widget: Widget, make: Callable[[], Widget]) -> Any:
    """The widget's vertical scrollbar, created by `make` on first use in the slot Textual's
    own property fills, and started as Textual starts its own (it is no child in the DOM)."""
    if widget._vertical_scrollbar is None:
        widget._vertical_scrollbar = bar = make()
        bar.display = False
        widget.app._start_widget(widget, bar)
    return widget._vertical_scrollbar


def on_each_frame(app: App, seen: Callable[[], None]) -> None:
    """`seen()` runs as each composed frame goes out: `App._display` receives every frame
    the screen composes (a benchmark times the first frame that shows something)."""
    original = app._display

    def display(screen: Any, renderable: Any) -> Any:
        if renderable is not None:
            seen()
        return original(screen, renderable)

    app._display = display  # type: ignore[method-assign]


class _ParsedOncePerProcess(Stylesheet):
    """Textual parses each source of a stylesheet (the app's files, every widget class's
    DEFAULT_CSS) once per stylesheet, so once per app: a tenth to a sixth of a lab's start (0.42 s
    of CPU), paid again by every lab a process starts (a fork server's visitors, the tests).
    This one keeps the parsed rules for the process, keyed by everything they are parsed from:
    the text, where it was read, its kind and scope, and the theme's variables. Textual never
    changes rules once parsed (its own cache hands the same ones to each parse of the sheet)."""

    _PARSED: OrderedDict[tuple, list] = OrderedDict()
    KEPT = 512  # sources: a lab with its first dialog open has about fifty

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key = tuple(sorted((variables or {}).items()))

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = tuple(sorted(variables.items()))

    def _parse_rules(self, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0,
                     scope: str = "") -> list:
        key = (css, read_from, is_default_rules, tie_breaker, scope, self._variables_key)
        parsed = self._PARSED
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if len(parsed) > self.KEPT:
                parsed.popitem(last=False)
        else:
            parsed.move_to_end(key)
        return rules


def share_parsed_css(app: App) -> None:
    """Called in the app's __init__, before any source is added: its stylesheet parses each
    source once per process (`_ParsedOncePerProcess`)."""
    app.stylesheet = _ParsedOncePerProcess(variables=app.get_css_variables())


class NotificationHooks(App):
    """An App whose notifications go through public hooks: `notification_raised` (Textual's
    handler of the Notify message `notify` posts), `refresh_notifications` (Textual calls it
    when a screen comes back), `notifications` (the live collection) and `expire`."""

    def _on_notify(self, event: Notify) -> None:
        self.notification_raised(event.notification)

    def notification_raised(self, notification: Notification) -> None:
        self._notifications.add(notification)
        self.refresh_notifications()

    def _refresh_notifications(self) -> None:
        self.refresh_notifications()

    def refresh_notifications(self) -> None:
        """Textual's own: each screen's toast rack shows the app's notifications."""
        App._refresh_notifications(self)

    @property
    def notifications(self) -> Notifications:
        """The notifications shown (or waiting) now; an expired one is forgotten as it is read."""
        return self._notifications

    @staticmethod
    def expire(notification: Notification) -> None:
        """Ends a notification now through its public timeout (Textual's collection drops an
        expired one when next read; the rack's next refresh takes its toast down)."""
        notification.timeout = float("-inf")


class ExitHook:
    """Mixed into an App before it: `before_exit_app` runs as Textual ends the app
    (`_on_exit_app`), whoever asks (the served page closing, a signal), before the screens go."""

    async def before_exit_app(self) -> None:
        pass

    async def _on_exit_app(self) -> None:
        await self.before_exit_app()
        await super()._on_exit_app()  # type: ignore[misc]


@cache
def service_base() -> type:
    """textual-serve's AppService with its process hooks under public names: a subclass
    overrides `open_app_process` and `build_environment`, and hands a process of its own
    over with `adopt_process`."""
    from textual_serve.app_service import AppService

    class ServiceBase(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            return await self.open_app_process(width, height)

        async def open_app_process(self, width: int = 80, height: int = 24) -> Any:
            """textual-serve's own: a new interpreter runs the app's command."""
            return await AppService._open_app_process(self, width, height)

        def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
            return self.build_environment(width, height)

        def build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
            return AppService._build_environment(self, width, height)

        def adopt_process(self, process: Any) -> None:
            """A process started elsewhere (a fork) becomes the one this service talks to."""
            self._process, self._stdin = process, process.stdin

        @property
        def app_process(self) -> Any:
            return self._process

        @property
        def app_task(self) -> Any:
            """The task that runs the app's process and reads its output (None before it starts)."""
            return self._task

    return ServiceBase


@cache
def server_base() -> type:
    """textual-serve's Server with the aiohttp application it builds under a public name:
    a subclass adds routes in `make_app` (and calls super's)."""
    from textual_serve.server import Server

    class ServerBase(Server):
        async def _make_app(self) -> Any:
            return await self.make_app()

        async def make_app(self) -> Any:
            return await Server._make_app(self)

    return ServerBase
