"""Files on disk, written so that a crash or a full disk never leaves half of one: atomic
writes (a temp file renamed over the target), the save's file (an AEL Lab session), and JSON
documents read within a size cap. What `ael-lab run --save`, `ael-lab chart`, the lab's saves
and exports and its settings write and read (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    # atomic writes (engine/store/atomic.py)
    "check_target": "engine.store.atomic:check_target",
    "write_text_atomic": "engine.store.atomic:write_text_atomic",
    "write_json_atomic": "engine.store.atomic:write_json_atomic",
    "writer_lock": "engine.store.atomic:writer_lock",
    "remove_temp_files_on_signals": "engine.store.atomic:remove_temp_files_on_signals",
    # the save (engine/store/persistence.py; its schema loads with the first of these read)
    "save_session": "engine.store.persistence:save_session",
    "load_session": "engine.store.persistence:load_session",
    "is_session_file": "engine.store.persistence:is_session_file",
    "read_document": "engine.store.persistence:read_document",
    # JSON documents within a cap (engine/store/documents.py)
    "read_capped": "engine.store.documents:read_capped",
    "parse_json": "engine.store.documents:parse_json",
    "MAX_KEYS_BYTES": "engine.store.documents:MAX_KEYS_BYTES",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
