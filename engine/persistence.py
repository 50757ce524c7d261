"""Sessions on disk: one JSON document, written atomically, never pickle.

A save is `{"format": "ael-lab-session", "schema_version": N, "saved_at": ..., "session": {...}}`.
Writing goes to a temp file in the same folder, is fsynced, then renamed over
the target, so a crash or a bad session never leaves a half-written file and
the previous save stays intact. Loading refuses, with one line a person can
act on, a missing file, a non-JSON or truncated file, a JSON file that is not
an AEL Lab session, and a session written by a newer version; older versions
are migrated (`MIGRATIONS`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

from .approvals import now_iso
from .atomic import write_json_atomic
from .errors import AELError
from .session import Session

FORMAT = "ael-lab-session"
SCHEMA_VERSION = 1
# version -> function upgrading a document of that version to version + 1
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def save_session(session: Session, path: str | os.PathLike) -> None:
    try:
        document = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "saved_at": now_iso(),
                    "session": session.to_dict()}
        write_json_atomic(path, document)
    except (TypeError, ValueError) as err:  # a value JSON cannot hold: a bug, but never a half file
        raise AELError(f"cannot save to {path}: session state is not serialisable ({err})") from err
    except OSError as err:
        raise AELError(f"cannot save to {path}: {err.strerror or err}") from err


def read_document(path: str | os.PathLike) -> dict[str, Any]:
    """The session document in `path`, checked and migrated to the current version."""
    p = Path(path)
    if not p.exists():
        raise AELError(f"no such session file: {p}")
    if p.is_dir():
        raise AELError(f"{p} is a folder, not a session file")
    try:
        raw = p.read_bytes()
    except OSError as err:
        raise AELError(f"cannot read {p}: {err.strerror or err}") from err
    if not raw.strip():
        raise AELError(f"{p} is empty: not an AEL Lab session file")
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        what = "truncated or corrupt" if raw.lstrip()[:1] in (b"{", b"[") else "not JSON"
        raise AELError(f"{p} is {what} (JSON error at byte {getattr(err, 'pos', 0)}): not a usable session file") from err
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise AELError(f"{p} is JSON but not an AEL Lab session (no \"format\": \"{FORMAT}\")")
    version = doc.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise AELError(f"{p} has an invalid schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise AELError(f"{p} was written by a newer AEL Lab (schema {version}; this one reads up to "
                       f"{SCHEMA_VERSION}): upgrade ael-lab to open it")
    while version < SCHEMA_VERSION:
        doc = MIGRATIONS[version](doc)
        version = doc["schema_version"]
    if not isinstance(doc.get("session"), dict):
        raise AELError(f"{p} has no session in it")
    return doc


def load_session(path: str | os.PathLike, scenario_factory) -> Session:
    doc = read_document(path)
    try:
        return Session.from_dict(doc["session"], scenario_factory)
    except AELError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise AELError(f"{path} is an AEL Lab session but its contents are damaged "
                       f"({type(err).__name__}: {err})") from err
