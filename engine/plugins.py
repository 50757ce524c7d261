"""Worlds, methods and variants from other packages, through entry points.

A package declares, in its pyproject.toml,

    [project.entry-points."ael_lab.scenarios"]
    my-world = "my_package.spec"            # a module holding SPEC (an engine ScenarioSpec)

    [project.entry-points."ael_lab.methods"]
    my-method = "my_package.methods:MyMethod"   # an engine.methods.Method subclass

    [project.entry-points."ael_lab.variants"]
    my-variant = "my_package.variants:MyVariant"  # an engine.variants.Variant subclass

    [project.entry-points."ael_lab.panels"]
    my-panel = "my_package.panel:PANEL"     # an ael_tui.lab.panels.LabPanel: a variant's panel in the lab

and, once installed, appears in `--help`, the start screen and the compare view with
nothing edited here. `ael_lab.panels` is read by the lab alone (ael_tui/lab/panels.py), when
it first lists its panels: a panel's module imports Textual, which `ael-lab run` never loads,
and its probe (below) is its own, made when the lab reads the group. One `Kind` per group says what its entry points must name and which
registry (engine/registry.py) admits them; each group is read once, when its registry is first used
(`scenarios`' functions, the import of engine/methods.py, of engine/variants/session_variants.py). A
plugin that fails (raises on import, names the wrong thing, takes a built-in name) is left
out with one line in `NOTICES`, which the command line prints on stderr at start-up and
the lab shows as a notification: never a crash.

A plugin's code is not ours to trust with the process: each distribution is imported
first in a child (engine/plugin_probe.py), so one that exits, calls `os._exit`, hangs
or dies there is left out (one line naming it) before it runs here; what it raises
here, `SystemExit` and `KeyboardInterrupt` included, leaves it out too, and so does a
hang or an `os._exit` here alone (engine/plugin_deadline.py); what it prints
while loading goes to stderr, so `--json`, `--export` and `export-stream` output stays
parseable. `loaded()` names the distributions admitted (name and version): every
result says what else ran in the engine. AEL_NO_PLUGINS=1 (`ael-lab --no-plugins`)
reads no entry point at all.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from .registry import Registry

SCENARIOS = "ael_lab.scenarios"
METHODS = "ael_lab.methods"
VARIANTS = "ael_lab.variants"
PANELS = "ael_lab.panels"
GROUPS = (SCENARIOS, METHODS, VARIANTS)  # what every command reads (and probes together)
LAB_GROUPS = (PANELS,)                   # what only the lab reads (and probes apart)
OFF = "AEL_NO_PLUGINS"

NOTICES: list[str] = []  # one line per plugin left out, in the order they were met
_loaded: set[str] = set()
_admitted: dict[str, str] = {}  # distribution name -> version, of the plugins registered
_probed: dict[tuple, dict[str, Any]] = {}  # a distribution's probe per family of groups, once per process


def disabled() -> bool:
    """Whether plugins are off (AEL_NO_PLUGINS set to anything but "" or "0")."""
    return os.environ.get(OFF, "") not in ("", "0")


def loaded() -> list[dict[str, str]]:
    """The distributions whose plugins this process registered, by name: what every result names."""
    return [{"distribution": name, "version": _admitted[name]} for name in sorted(_admitted)]


def loaded_line() -> str:
    """"plugins: NAME VERSION, ..." or "" when none was loaded (a status line, a report)."""
    names = ", ".join(f"{p['distribution']} {p['version']}" for p in loaded())
    return f"plugins: {names}" if names else ""


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    try:
        found = entry_points(group=group)
    except Exception as err:  # noqa: BLE001 - a broken installed distribution must not stop the lab
        _notice(f"plugins of {group} were not read ({type(err).__name__}: {_short(err)})")
        return []
    seen, out = set(), []
    for ep in sorted(found, key=lambda e: (e.name, e.value)):
        if ep.name in seen:  # the same distribution seen twice on the path
            continue
        seen.add(ep.name)
        out.append(ep)
    return out


def _short(err: BaseException) -> str:
    return " ".join(str(err).split())[:160] or type(err).__name__


def _printable(text: str) -> str:
    """A plugin's names and messages reach the terminal: an escape or control character in
    them is shown as "?", never obeyed."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _notice(line: str) -> None:
    line = _printable(line)
    if line not in NOTICES:  # one line for a distribution, however many entry points it has
        NOTICES.append(line)


def _where(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return f" from {dist.name}" if dist is not None and getattr(dist, "name", None) else ""


def _distribution(ep: Any) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    if not name:
        return _printable(ep.value.partition(":")[0].strip()[:100]), "?"  # no distribution: its module
    return _printable(str(name)[:100]), _printable(str(getattr(dist, "version", None) or "?")[:40])


def _probe(ep: Any) -> dict[str, Any]:
    """The child's verdict on `ep`'s distribution, every AEL entry point of its family at once
    (the commands' groups, or the lab's: a panel's Textual is imported in a child only for the lab)."""
    from . import plugin_probe

    family = LAB_GROUPS if getattr(ep, "group", None) in LAB_GROUPS else GROUPS
    key = _distribution(ep)
    if (*key, family) not in _probed:
        dist = getattr(ep, "dist", None)
        try:
            values = sorted({e.value for e in dist.entry_points if e.group in family}) if dist else [ep.value]
            metadata = "".join((dist.read_text(f) or "")[:65536] for f in ("METADATA", "entry_points.txt")) \
                if dist else ""
        except Exception:  # noqa: BLE001 - unreadable metadata: probe this entry point alone
            values, metadata = [ep.value], ""
        _probed[(*key, family)] = plugin_probe.probe(key, values if ep.value in values else [*values, ep.value],
                                                     metadata)
    return _probed[(*key, family)]


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """What a plugin prints while it loads goes to stderr, from Python and from C alike (the
    descriptor too only while this is the one thread: a running lab's writer owns fd 1)."""
    saved = None
    if threading.active_count() == 1:
        try:
            sys.stdout.flush()
            saved = os.dup(1)
            os.dup2(2, 1)
        except (OSError, ValueError, AttributeError):
            saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.stderr.flush()
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def plugin_code(what: str) -> Iterator[None]:
    """A plugin's code run after start-up (a world's class imported when one is built): what it
    prints goes to stderr, and an exit or interrupt it raises is one line (AELError naming `what`)."""
    from .errors import AELError
    from .plugin_deadline import PluginExited, PluginOverran

    try:
        with _guarded():
            yield
    except Exception:
        raise
    except (PluginExited, PluginOverran) as err:
        raise AELError(_printable(f"{what}: {_short(err)}")) from None
    except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from a plugin's import
        raise AELError(_printable(f"{what}: {type(err).__name__} ({_short(err)})")) from None


@contextlib.contextmanager
def _guarded() -> Iterator[None]:
    """Where a plugin's code runs in our process: what it prints goes to stderr, under a
    deadline of twice what its child probe was given (it passed there; here it runs among the
    modules already imported, on a machine maybe busier), with os._exit refused; it may behave
    otherwise here than in the probe."""
    from .plugin_deadline import deadline

    with _stdout_to_stderr(), deadline(_in_process_limit()):
        yield


def _in_process_limit() -> float:
    from .plugin_probe import timeout_s

    return 2 * timeout_s()


def load(group: str, admit: Callable[[Any], None]) -> None:
    """Read `group` once: `admit(entry_point)` registers one plugin, raising to refuse it
    (any exception: it becomes one notice line naming the plugin)."""
    if group in _loaded:
        return
    _loaded.add(group)
    if disabled():
        return
    for ep in _entry_points(group):
        name, version = _distribution(ep)
        outcome = _probe(ep)
        if outcome["failed"]:
            _notice(f"plugin distribution {name} {version} was left out: {outcome['failed']}")
            continue
        why = outcome["verdicts"].get(ep.value)
        if why is None:
            from .plugin_deadline import PluginExited, PluginOverran

            try:
                with _guarded():
                    admit(ep)
                _admitted[name] = version
                continue
            except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too: its, not ours
                from .errors import AELError  # a refusal's message is the line; anything else names its type

                said = isinstance(err, (AELError, PluginExited, PluginOverran))
                kind = "" if said else f"{type(err).__name__}: "
                why = f"{kind}{_short(err)}"
        _notice(f"plugin {ep.name!r} ({group}{_where(ep)}, {ep.value}) was left out: {why}")


def _imported(ep: Any) -> Any:
    return ep.load()


def _itself(ep: Any, loaded: Any) -> Any:
    return loaded


def subclass_of(base: type) -> Callable[[Any], bool]:
    """`accepts` of a kind whose entry points name classes: a subclass of `base`."""
    return lambda loaded: isinstance(loaded, type) and issubclass(loaded, base)


@dataclass(frozen=True)
class Kind:
    """What one entry-point group adds to one registry: a world, a method, a variant.

    An entry point NAME = "module:object" is admitted when NAME is free and a registry
    may hold it, its object is what `accepts` takes (`expected` says what that is in a
    refusal) and the object calls itself NAME (its `name`); the registry then keeps
    `entry(ep, object)` under NAME. `imported(ep)` is the object: the entry point's own
    by default; a world's module's `SPEC`, kept as the module's name (a lazy entry)."""

    group: str
    registry: "Registry[Any]"
    expected: str
    accepts: Callable[[Any], bool]
    imported: Callable[[Any], Any] = _imported
    entry: Callable[[Any, Any], Any] = _itself

    def admit(self, ep: Any) -> None:
        """One entry point registered, or an exception saying why not (a notice line, by `load`)."""
        from .errors import AELError

        self.registry.check_name(ep.name)
        if ep.name in self.registry:
            raise AELError(f"the {self.registry.kind} name {ep.name!r} is taken")
        loaded = self.imported(ep)
        if not self.accepts(loaded):
            raise AELError(f"{ep.value} is not {self.expected}")
        named = getattr(loaded, "name", None)
        if named != ep.name:
            raise AELError(f"{ep.value} is named {named!r}, not {ep.name!r}")
        self.registry.register(ep.name, self.entry(ep, loaded))

    def read(self) -> None:
        """The group's plugins, read once (the first call), each admitted or left out with a notice."""
        load(self.group, self.admit)
