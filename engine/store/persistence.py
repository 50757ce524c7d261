"""Sessions on disk: one JSON document, written atomically, never pickle.

A save is `{"format": "ael-lab-session", "schema_version": N, "saved_at": ..., "session": {...},
"plugins": [...]}` (the plugins loaded when it was written: engine/store/plugin_refs.py; absent
in older saves), and `"timeline": {...}` when the session went back (the run ahead, a branch's
original: engine/timetravel.py, `Timeline.to_doc`).
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
import re
from pathlib import Path
from typing import Any, Callable

from ..approvals import now_iso
from pydantic import ValidationError

from .atomic import write_text_atomic
from .documents import MAX_SESSION_BYTES, MiB, SAVE_BYTES_PER_EPISODE, parse_json, read_capped, validation_error
from ..limits import EPISODES_MAX
from ..errors import AELError
from ..plugins import loaded as plugins_loaded
from ..session import Session

FORMAT = "ael-lab-session"
SCHEMA_VERSION = 1
# version -> function upgrading a document of that version to version + 1
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def session_cap(episodes: int | None) -> int:
    """The most bytes a save of a session of `episodes` may have: MAX_SESSION_BYTES, or
    SAVE_BYTES_PER_EPISODE per episode of a long stream when that is more."""
    return max(MAX_SESSION_BYTES, min(episodes or 0, EPISODES_MAX) * SAVE_BYTES_PER_EPISODE)


# How a save begins (`save_session` writes these keys first, compactly): the episodes that
# size its cap are read from the head of a file over MAX_SESSION_BYTES, before it is parsed.
_HEAD = re.compile(rb'\A\{"format":"ael-lab-session","schema_version":\d{1,6},"saved_at":"[^"\\]{0,64}",'
                   rb'"episodes":(\d{1,9})[,}]')


def save_session(session: Session, path: str | os.PathLike) -> None:
    try:
        document = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "saved_at": now_iso(),
                    "episodes": session.n_episodes, "session": session.to_dict()}
        timeline = session.timeline.to_doc(session)
        if timeline is not None:
            document["timeline"] = timeline
        document["plugins"] = plugins_loaded()  # what else ran in the engine that made this run
        text = json.dumps(document, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:  # a value JSON cannot hold: a bug, but never a half file
        raise AELError(f"cannot save to {path}: session state is not serialisable ({err})") from err
    cap = session_cap(session.n_episodes)
    if len(text) > cap:  # ASCII (json.dumps escapes the rest): a save that could never be read back is not written
        raise AELError(f"cannot save to {path}: the save would be {len(text) / MiB:,.0f} MiB, over the "
                       f"{cap / MiB:,.0f} MiB a save of {session.n_episodes:,} episodes may be")
    try:
        write_text_atomic(path, text)
    except OSError as err:
        raise AELError(f"cannot save to {path}: {err.strerror or err}") from err


def _cap_of(p: Path) -> int:
    """The cap for the save in `p`: MAX_SESSION_BYTES, or a long stream's, from the
    episodes its head states (checked against the stream once it is loaded)."""
    try:
        if os.stat(p).st_size <= MAX_SESSION_BYTES:
            return MAX_SESSION_BYTES
        with open(p, "rb") as f:
            head = f.read(256)
    except OSError:
        return MAX_SESSION_BYTES  # read_capped says what is wrong with the file
    found = _HEAD.match(head)
    return session_cap(int(found.group(1))) if found else MAX_SESSION_BYTES


def read_document(path: str | os.PathLike) -> dict[str, Any]:
    """The session document in `path`, checked against the schema and migrated to
    the current version (size, depth and finite numbers before anything else)."""
    p = Path(path)
    raw = read_capped(p, _cap_of(p), "session file")
    doc = parse_json(raw, p, "session file")
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
    episodes = doc.get("episodes")  # what sized the cap (absent in saves made before it did)
    if episodes is not None and (not isinstance(episodes, int) or isinstance(episodes, bool)
                                 or not 1 <= episodes <= EPISODES_MAX):
        raise AELError(f"{p}: field episodes: {episodes!r} is not a count of episodes (1 to {EPISODES_MAX:,})")
    from .session_schema import SessionDoc, TimelineDoc  # the models of every extension: built when a file is read

    try:
        SessionDoc.model_validate(doc["session"])
    except ValidationError as err:
        raise validation_error(err, p, ("session",)) from None
    if doc.get("timeline") is not None:
        try:
            TimelineDoc.model_validate(doc["timeline"])
        except ValidationError as err:
            raise validation_error(err, p, ("timeline",)) from None
    from .plugin_refs import PLUGIN_REFS

    try:
        PLUGIN_REFS.validate_python(doc.setdefault("plugins", []))  # absent in saves made before plugins were named
    except ValidationError as err:
        raise validation_error(err, p, ("plugins",)) from None
    return doc


def is_session_file(path: str | os.PathLike) -> bool:
    """Whether `path` holds an AEL Lab session (any version): what `--save` may replace."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and f'"format":"{FORMAT}"'.encode() in head.replace(b" ", b"")


def load_session(path: str | os.PathLike, scenario_factory, *, llm_url: str | None = None,
                 record: str | None = None) -> Session:
    """The session in `path`. A file is untrusted: where its LLM calls go and which new
    file it records them to are used only when the person confirms them (`llm_url`,
    `record`: the `--llm-url` / `--record` they gave)."""
    doc = read_document(path)
    check_llm_destinations(doc["session"]["config"].get("llm") or {}, path, llm_url, record)

    def checked_scenario(name: str, seed: int, options: dict[str, Any]):
        """The scenario, with the save's run state checked against its model before it is loaded."""
        scenario = scenario_factory(name, seed, options)
        _check_scenario_state(doc["session"]["scenario_state"], scenario, path)
        return scenario

    try:
        session = Session.from_dict(doc["session"], checked_scenario)
    except _Refused:
        raise
    except AELError as err:
        raise AELError(f"{path}: {err}") from err
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:  # past the schema: still one line
        raise AELError(f"{path} is an AEL Lab session but its contents are damaged "
                       f"({type(err).__name__}: {err})") from err
    _check_memory_metadata(doc["session"]["memory"], session.scenario.memory_metadata, path)
    stated = doc.get("episodes")
    if stated is not None and stated != session.n_episodes:  # the cap it was read under was the stream's
        raise AELError(f"{path}: field episodes: the save states {stated:,} episodes but its session has "
                       f"{session.n_episodes:,}")
    if session.t > session.n_episodes:  # needs the scenario: its stream's length
        raise AELError(f"{path}: field session.t: {session.t} is beyond the end of the "
                       f"{session.config.scenario} stream ({session.n_episodes} episodes)")
    original = (doc.get("timeline") or {}).get("original")
    if original is not None:  # the compare view (B) rebuilds it: the same checks as the session's
        where = ("timeline", "original")
        _check_scenario_state(original["scenario_state"], session.scenario, path, where)
        _check_memory_metadata(original["memory"], session.scenario.memory_metadata, path, where)
        if original["t"] > session.n_episodes:
            raise AELError(f"{path}: field timeline.original.t: {original['t']} is beyond the end of the "
                           f"{session.config.scenario} stream ({session.n_episodes} episodes)")
    try:
        session.timeline.load_doc(doc.get("timeline"), session)
    except AELError as err:
        raise AELError(f"{path}: {err}") from None
    return session


def check_llm_destinations(llm: dict[str, Any], path, llm_url: str | None, record: str | None) -> None:
    """Refuse a file that would send the user's API key to a host of its author's
    choosing, or create a cassette at a path of its author's choosing, unless the
    person names the same host or path. Appending to a cassette that is already
    there (and parses as one) needs no confirmation: it is what a resume does."""
    uses_llm = any(llm.get(role, "offline") != "offline" for role in ("agent", "reflector"))
    base_url = llm.get("base_url")
    if llm_url is not None and _endpoint(llm_url) != _endpoint(base_url):
        raise AELError(f"--llm-url: {path} sends its LLM calls to {base_url or 'the provider itself'}; "
                       "a resumed session keeps its endpoint: give that one or drop --llm-url")
    if uses_llm and base_url and llm_url is None:
        raise AELError(f"{path} sends its LLM calls to {base_url}: a session file cannot choose where your "
                       f"API key goes; to continue it, confirm with --llm-url {_endpoint(base_url)}")
    tape = llm.get("record")
    if record is not None and record != tape:
        raise AELError(f"--record: {path} records to {tape or 'no cassette'}; a resumed session keeps its "
                       "cassette: give that one or drop --record")
    if tape and not Path(tape).exists() and record is None:
        raise AELError(f"{path} records LLM calls to {tape}, which is not there: a session file cannot create "
                       f"files; put the cassette back, or confirm with --record {tape}")


def _endpoint(url: str | None) -> str | None:
    """A URL without its userinfo (a save keeps `[redacted]@` in its place)."""
    return re.sub(r"://[^/@]*@", "://", url) if url else url


def _check_memory_metadata(memory: dict[str, Any], models: dict[str, Any], path,
                           where: tuple[str, ...] = ("session",)) -> None:
    """What the scenario reads from its memory entries (`Scenario.memory_metadata`)."""
    for tier, model in models.items():
        for i, row in enumerate(memory["tiers"].get(tier, [])):
            try:
                model.model_validate(row["metadata"])
            except ValidationError as err:
                raise validation_error(err, path, (*where, "memory", "tiers", tier, i, "metadata")) from None


class _Refused(AELError):
    """A refusal that already names the file and the field."""


def _check_scenario_state(state: dict[str, Any], scenario, path, where: tuple[str, ...] = ("session",)) -> None:
    """The save's "scenario_state" against the model the scenario's class declares
    (`state_model`; none: the world keeps no run state, so only `{}` fits)."""
    model = getattr(scenario, "state_model", None)
    if model is None:
        if state:
            raise _Refused(f"{path}: field {'.'.join(where)}.scenario_state: the {getattr(scenario, 'name', '')} "
                           f"scenario keeps no run state, but the save holds {sorted(state)[0]!r}")
        return
    try:
        model.model_validate(state)
    except ValidationError as err:
        raise _Refused(str(validation_error(err, path, (*where, "scenario_state")))) from None
