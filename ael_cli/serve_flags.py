"""`ael-lab serve`'s flags: parsed and checked here, on the command line's side, so building the
parser imports no part of the lab. The command itself (ael_tui/serve/command.py: the lab
served) is imported only when `serve` runs. Nothing here names a world: a flag's folder is
made absolute here and read by the served lab, which knows what it holds."""

from __future__ import annotations

from pathlib import Path

from ael_lab import AELError

from ael_cli.flags import values as types

MIN_KEY = 16                        # characters: a teacher's key shorter than this can be guessed
DEFAULT_QUOTA_MIB = 50.0            # what one visitor's lab may write into the sessions folder
DEFAULT_FOLDER_QUOTA_MIB = 2048.0   # the whole sessions folder, every visitor together
DEFAULT_MAX_SESSIONS = 40
DEFAULT_PER_ADDRESS = 4      # one student's tabs; a class behind one proxy or NAT needs more
MAX_QUOTA_MIB = 1024 * 1024  # 1 TiB: beyond any disk a class shares
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


FONT_SIZES = (6, 48)  # pixels: the page's bounds for `?fontsize=` too


def font_size(text: str) -> int:
    value = types._whole("--font-size", text, f"pixels {FONT_SIZES[0]}..{FONT_SIZES[1]}")
    if not FONT_SIZES[0] <= value <= FONT_SIZES[1]:
        raise AELError(f"--font-size: {value} is outside {FONT_SIZES[0]}..{FONT_SIZES[1]}; give pixels, e.g. 20")
    return value


def teacher_key(text: str) -> str:
    """The teacher's key: long enough not to be guessed, one token a URL and a form carry as is."""
    if len(text) < MIN_KEY:
        raise AELError(f"--teacher-key: {len(text)} character{'' if len(text) == 1 else 's'} {'is' if len(text) == 1 else 'are'} too few (a short key is guessed); give "
                       f"{MIN_KEY} or more, or leave the flag out for a new random key")
    if len(text) > 256 or not text.isprintable() or any(c.isspace() for c in text):
        raise AELError("--teacher-key: give up to 256 printable characters without spaces, e.g. from "
                       "python -c 'import secrets; print(secrets.token_urlsafe(24))'")
    return text


max_sessions = types.integer("--max-sessions", 1, "at least 1 session")
max_per_address = types.integer("--max-per-address", 1, "at least 1 session")


def quota(flag: str):
    def parse(text: str) -> float:
        value = types._number(flag, text, f"MiB between 0 and {MAX_QUOTA_MIB}")
        if not 0 < value <= MAX_QUOTA_MIB:
            raise AELError(f"{flag}: {value:g} is outside (0, {MAX_QUOTA_MIB}]; give MiB, e.g. 50")
        return value
    return parse


def local_path(text: str) -> str:
    """A file or folder the teacher names, absolute; what it holds is checked by the served lab,
    which knows the world it is for, before the server starts (one line when it is wrong)."""
    return str(Path(text).expanduser().resolve())


def _local_copy_worlds() -> list:
    """(name, LocalCopy) of each world a served lab reads only from the teacher's copy (ScenarioSpec.local_copy)."""
    from ael_lab.worlds import all_specs

    return [(spec.name, spec.local_copy) for spec in all_specs() if spec.local_copy is not None]


def local_copies(args) -> dict[str, str]:
    """World -> the teacher's local copy of its data, as given (`--NAME-data PATH`; absolute)."""
    return {name: path for name, _ in _local_copy_worlds()
            if (path := getattr(args, f"{name.replace('-', '_')}_data", None)) is not None}


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="serve the lab to web browsers (a class), one lab per visitor")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: the whole network)")
    p.add_argument("--port", type=port, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--sessions", default="class-sessions",
                   help="the only folder visitors can save to and load from (default class-sessions/, created)")
    p.add_argument("--max-sessions", type=max_sessions, default=DEFAULT_MAX_SESSIONS,
                   help=f"visitors at once; more get a 'full' page (default {DEFAULT_MAX_SESSIONS})")
    p.add_argument("--max-per-address", type=max_per_address, default=DEFAULT_PER_ADDRESS,
                   help=f"labs open at once from one address (default {DEFAULT_PER_ADDRESS}; behind a proxy every "
                        "visitor has the proxy's address: raise it)")
    p.add_argument("--quota-mib", type=quota("--quota-mib"), default=DEFAULT_QUOTA_MIB,
                   help=f"MiB of saves, exports and screenshots each visitor's lab may write (default "
                        f"{DEFAULT_QUOTA_MIB:g})")
    p.add_argument("--folder-quota-mib", type=quota("--folder-quota-mib"), default=DEFAULT_FOLDER_QUOTA_MIB,
                   help=f"MiB the whole sessions folder may hold; past it no visitor writes "
                        f"(default {DEFAULT_FOLDER_QUOTA_MIB:g})")
    for name, copy in _local_copy_worlds():  # --news-data: each from a world's spec, none named here
        p.add_argument(f"--{name}-data", metavar="PATH", type=local_path,
                       help=f"{copy.what}; without it the {name} world is not offered (a served lab downloads "
                            "nothing)")
    p.add_argument("--idle-minutes", type=idle_minutes, default=DEFAULT_IDLE_MINUTES,
                   help=f"end a lab after this long without a key or click (default {DEFAULT_IDLE_MINUTES:g})")
    p.add_argument("--allow-llm", action="store_true",
                   help="let visitors start LLM backends with this machine's API keys (off: offline only)")
    p.add_argument("--scenario", help="open every visitor's lab on this scenario (default: the start screen)")
    p.add_argument("--seed", type=types.seed, default=42, help="with --scenario: its seed (default 42)")
    p.add_argument("--selector", default="ts+reflection", help="with --scenario: its selector (default ts+reflection)")
    p.add_argument("--teacher-key", metavar="KEY", type=teacher_key,
                   help="the key of the teacher's page /teacher?key=KEY, 16 characters or more (default: a new one, "
                        "written to .ael-lab/teacher-key in the sessions folder; never printed)")
    p.add_argument("--no-fork", action="store_true",
                   help="start each visitor's lab as a new Python process instead of forking a prepared one")
    p.add_argument("--warm-labs", type=types.integer("--warm-labs", 0, "0 or more"), default=None,
                   help="labs started before anyone asks, ready for the next visitors (default: --max-sessions)")
    p.add_argument("--font-size", type=font_size, default=16, metavar="N",
                   help="the terminal's font size in pixels in every visitor's page (default 16; 6..48; larger for "
                        "the back of the room or a projector: fewer cells fit, the lab goes to tab mode below "
                        "120x42; a visitor's ?fontsize=N overrides it)")
    p.add_argument("--tour", action="store_true", help="with --scenario: open at the guided tour's first card")
