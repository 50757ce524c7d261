"""`ael-lab serve`: the lab in a browser for a class (checks, then the server). Its flags are
parsed on the command line's side (ael_cli/serve_flags.py); this runs when `serve` does."""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path

from ael_lab import AELError

from ael_cli.serve_flags import DEFAULT_MAX_SESSIONS  # noqa: F401 - the flags and their defaults live there
from ael_cli.serve_flags import local_copies
from .mode import ServedMode

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
    copies = {name: ServedMode.local_copy(name, path) for name, path in local_copies(args).items()}
    mode = ServedMode(root=str(folder.resolve()), allow_llm=args.allow_llm, scenario=args.scenario,
                      seed=args.seed, selector=args.selector, tour=args.tour, local_copies=copies,
                      quota_mib=args.quota_mib, folder_quota_mib=args.folder_quota_mib)
    try:
        mode.prepare()
    except OSError as err:
        raise AELError(f"--sessions: cannot create {mode.private}: {err.strerror or err}") from None
    if mode.scenario is not None:  # a wrong scenario or selector is the teacher's to hear now, not each visitor's
        from .mode import first_session

        # this check builds the session too: its cache goes where the visitors' goes, not to the teacher's home
        old = os.environ.get("AEL_LAB_CACHE_DIR")
        os.environ["AEL_LAB_CACHE_DIR"] = mode.private_env()["AEL_LAB_CACHE_DIR"]
        try:
            first_session(mode)
        finally:
            if old is None:
                del os.environ["AEL_LAB_CACHE_DIR"]
            else:
                os.environ["AEL_LAB_CACHE_DIR"] = old
    try:
        from .server import LabServer
    except ImportError as err:
        raise AELError(f"serving needs textual-serve ({err}); pip install textual-serve") from None
    server = LabServer(mode, host=args.host, port=args.port, what=describe(mode),
                       max_sessions=args.max_sessions, idle_seconds=args.idle_minutes * 60,
                       max_per_address=args.max_per_address, teacher_key=args.teacher_key,
                       fork=not args.no_fork, warm=args.warm_labs,
                       font_size=args.font_size)
    try:
        sock = server.bind()
    except OSError as err:
        why = "the port is in use" if err.errno == errno.EADDRINUSE else (err.strerror or str(err))
        raise AELError(f"cannot listen on {args.host}:{args.port}: {why}") from None
    server.serve(sock=sock)
    return 0
