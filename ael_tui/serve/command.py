"""`ael-lab serve`: the lab in a browser for a class (flags, checks, then the server)."""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

from engine.errors import AELError

from .. import args as types
from .mode import ServedMode

DEFAULT_MAX_SESSIONS = 40
DEFAULT_IDLE_MINUTES = 30.0   # a lesson's pause for discussion, not a forgotten tab all afternoon
MAX_IDLE_MINUTES = 24 * 60


def idle_minutes(text: str) -> float:
    value = types._number("--idle-minutes", text, f"minutes between 0 and {MAX_IDLE_MINUTES}")
    if not 0 < value <= MAX_IDLE_MINUTES:
        raise AELError(f"--idle-minutes: {value:g} is outside (0, {MAX_IDLE_MINUTES}]; give minutes, e.g. 30")
    return value


def port(text: str) -> int:
    value = types._whole("--port", text, "a port number 0..65535 (0: any free port)")
    if not 0 <= value <= 65535:
        raise AELError(f"--port: {value} is not a port number; expected 0..65535 (0: any free port)")
    return value


max_sessions = types.integer("--max-sessions", 1, "at least 1 session")


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="serve the lab to web browsers (a class), one lab per visitor")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: the whole network)")
    p.add_argument("--port", type=port, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--sessions", default="class-sessions",
                   help="the only folder visitors can save to and load from (default class-sessions/, created)")
    p.add_argument("--max-sessions", type=max_sessions, default=DEFAULT_MAX_SESSIONS,
                   help=f"visitors at once; more get a 'full' page (default {DEFAULT_MAX_SESSIONS})")
    p.add_argument("--idle-minutes", type=idle_minutes, default=DEFAULT_IDLE_MINUTES,
                   help=f"end a lab after this long without a key or click (default {DEFAULT_IDLE_MINUTES:g})")
    p.add_argument("--allow-llm", action="store_true",
                   help="let visitors start LLM backends with this machine's API keys (off: offline only)")
    p.add_argument("--scenario", help="open every visitor's lab on this scenario (default: the start screen)")
    p.add_argument("--seed", type=types.seed, default=42, help="with --scenario: its seed (default 42)")
    p.add_argument("--selector", default="ts+reflection", help="with --scenario: its selector (default ts+reflection)")
    p.add_argument("--tour", action="store_true", help="with --scenario: open at the guided tour's first card")


def describe(mode: ServedMode) -> str:
    if mode.scenario is None:
        return "the start screen"
    return f"{mode.scenario}, seed {mode.seed}" + (", guided tour" if mode.tour else "")


def serve_command(args: argparse.Namespace) -> int:
    if args.tour and not args.scenario:
        raise AELError("--tour: give the scenario too, e.g. --scenario support --seed 42 --tour")
    folder = Path(args.sessions).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise AELError(f"--sessions: cannot create {folder}: {err.strerror or err}") from None
    mode = ServedMode(root=str(folder.resolve()), allow_llm=args.allow_llm, scenario=args.scenario,
                      seed=args.seed, selector=args.selector, tour=args.tour)
    if mode.scenario is not None:  # a wrong scenario or selector is the teacher's to hear now, not each visitor's
        from .lab import first_session

        first_session(mode)
    try:
        from .server import LabServer
    except ImportError as err:
        raise AELError(f"serving needs textual-serve ({err}); pip install textual-serve") from None
    server = LabServer(mode, host=args.host, port=args.port, what=describe(mode),
                       max_sessions=args.max_sessions, idle_seconds=args.idle_minutes * 60)
    try:
        sock = server.bind()
    except OSError as err:
        why = "the port is in use" if err.errno == errno.EADDRINUSE else (err.strerror or str(err))
        raise AELError(f"cannot listen on {args.host}:{args.port}: {why}") from None
    server.serve(sock=sock)
    return 0
