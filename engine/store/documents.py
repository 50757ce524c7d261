"""Reading a document a user hands us: capped, parsed, bounded, validated.

Every file that comes from outside (a save, a cassette, the keys file, the
JSON of a market data folder) goes through here before anything reads its
contents: its size is checked before a byte is parsed, its nesting depth and
its numbers (finite only: Python's JSON reader accepts NaN and Infinity)
before any code walks it, and then it is checked against an explicit schema
(pydantic v2 models, in strict mode). A failure is one `AELError` line naming
the file, the field and what was expected.
"""

from __future__ import annotations

import json
import math
import re
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import AELError

MiB = 1024 * 1024
# A 1,200-episode support session is about 0.7 MiB and a full portfolio run 1.5 MiB:
# these caps leave ample room and still refuse a file that would exhaust memory.
MAX_SESSION_BYTES = 64 * MiB
# A long stream's save grows with its rows (each episode's history record and memory entry,
# about 0.6 KiB on the demo stream): its cap is this much per episode of the stream, when
# that is more than MAX_SESSION_BYTES (from about 32,000 episodes; 1 GiB at the 500,000 a
# stream may have). The save states its episodes first, so the cap is known before parsing.
SAVE_BYTES_PER_EPISODE = 2 * 1024
MAX_CASSETTE_BYTES = 64 * MiB
MAX_DATA_JSON_BYTES = 8 * MiB
MAX_KEYS_BYTES = 64 * 1024
MAX_DEPTH = 32     # the deepest real save nests about 8 levels


def read_capped(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of `path`, refusing a missing file, a folder, a non-regular file
    (a FIFO would block, a device never end) or one larger than `limit`."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise AELError(f"no such {what}: {p}") from None
    except OSError as err:
        raise AELError(f"cannot read {p}: {err.strerror or err}") from None
    if stat.S_ISDIR(st.st_mode):
        raise AELError(f"{p} is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise AELError(f"{p} is not a regular file: not a {what}")
    if st.st_size > limit:
        raise AELError(f"{p} is {st.st_size / MiB:.1f} MiB: larger than the {limit / MiB:g} MiB a {what} "
                       "may be")
    try:
        with open(p, "rb") as f:
            raw = f.read(limit + 1)  # the file may have grown since stat
    except OSError as err:
        raise AELError(f"cannot read {p}: {err.strerror or err}") from None
    if len(raw) > limit:
        raise AELError(f"{p} is larger than the {limit / MiB:g} MiB a {what} may be")
    return raw


def parse_json(raw: bytes, path: str | os.PathLike, what: str, depth: int = MAX_DEPTH,
               finite: bool = True) -> Any:
    """JSON from `raw`, then `check_tree`; AELError naming `path` on any failure."""
    if not raw.strip():
        raise AELError(f"{path} is empty: not a usable {what}")
    nonfinite: list[str] = []

    def constant(name: str) -> float:  # called only for NaN / Infinity / -Infinity literals
        nonfinite.append(name)
        return float(name.replace("Infinity", "inf"))

    try:
        doc = json.loads(raw, parse_constant=constant)
    except RecursionError:
        raise AELError(f"{path}: nested deeper than {depth} levels: not a usable {what}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        how = "not valid JSON, truncated or corrupt" if raw.lstrip()[:1] in (b"{", b"[") else "not JSON"
        raise AELError(f"{path} is {how} (error at byte {getattr(err, 'pos', 0)}): "
                       f"not a usable {what}") from None
    if finite and nonfinite:
        check_tree(doc, path, depth, finite)  # the slow walk, only to say where the bad number is
    _check_depth(doc, path, depth)
    return doc


def _check_depth(doc: Any, path: str | os.PathLike, depth: int) -> None:
    """Nesting depth only: the fast walk every document gets (containers, no scalars)."""
    stack: list[tuple[Any, int]] = [(doc, 0)] if type(doc) in (dict, list) else []
    while stack:
        node, level = stack.pop()
        if level > depth:  # as check_tree counts: a container `depth` keys deep is still allowed
            check_tree(doc, path, depth, finite=False)  # the slow walk, to say where
        for value in (node.values() if type(node) is dict else node):
            kind = type(value)
            if (kind is dict or kind is list) and value:
                stack.append((value, level + 1))


def check_tree(doc: Any, path: str | os.PathLike, depth: int = MAX_DEPTH, finite: bool = True) -> None:
    """Refuse nesting deeper than `depth` and (if `finite`) non-finite numbers anywhere
    in `doc` (iteratively: a hostile document must not exhaust the stack here either)."""
    if finite and isinstance(doc, float) and not math.isfinite(doc):
        raise AELError(f"{path}: expected a finite number, got {doc}")
    stack: list[tuple[Any, tuple]] = [(doc, ())] if isinstance(doc, (dict, list)) else []
    while stack:
        node, where = stack.pop()
        if len(where) > depth:
            raise AELError(f"{path}: field {_loc(where[:4])}… nests deeper than {depth} levels")
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, (dict, list)):
                if value:
                    stack.append((value, where + (key,)))
            elif finite and isinstance(value, float) and not math.isfinite(value):
                raise AELError(f"{path}: field {_loc(where + (key,))}: expected a finite number, got {value}")


def _loc(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def validation_error(err: ValidationError, path: str | os.PathLike, prefix: tuple = ()) -> AELError:
    """One line from pydantic's errors: the file, the first bad field, what was expected."""
    errors = err.errors(include_url=False)
    first = errors[0]
    where = _loc(prefix + tuple(first["loc"]))
    msg = first["msg"]
    msg = msg[0].lower() + msg[1:] if msg else "invalid"
    msg = re.sub(r" or instance of \w+", "", msg)
    if msg.startswith("value error, "):
        msg = msg[len("value error, "):]
    got = first.get("input")
    shown = "" if first["type"] in ("missing", "value_error") or isinstance(got, (dict, list)) \
        else f" (got {_short(got)})"
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return AELError(f"{path}: field {where}: {msg}{shown}{more}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"
