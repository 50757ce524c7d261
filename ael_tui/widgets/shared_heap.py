"""The garbage collector around a loaded session: what the lab and `ael-lab serve`'s fork
server hold long is frozen out of the collector's sight, and a lab forked from the server
never unfreezes what the server froze (its pages stay shared)."""

from __future__ import annotations

import gc

from textual.screen import Screen

_heap_shared = False  # the frozen objects came from a fork server: pages shared with other labs


def keep_shared_heap_frozen() -> None:
    """Called in a lab forked from the fork server of `ael-lab serve`: what the server froze
    before forking stays frozen. Unfreezing and collecting it would write to every object's
    header, copying each page of it into this lab (about 45 MiB per visitor)."""
    global _heap_shared
    _heap_shared = True


def settle_heap() -> None:
    """Move what a loaded session and the interface hold (long-lived) out of the garbage
    collector's sight. A full collection walks every object, 60-80 ms with a 1,200-episode
    session; it would land in the middle of a step now and then. Unfreezing first lets a
    previous session be collected, except in a forked lab (keep_shared_heap_frozen): there
    only what the lab made since is collected, and a previous session's cycles stay (its
    other objects are freed by their reference counts, frozen or not)."""
    if not _heap_shared:
        gc.unfreeze()
    gc.collect()
    gc.freeze()


def settle_heap_soon(screen: Screen) -> None:
    """The process's first session: freeze at once (constant time; a collection here finds
    nothing to free, it only costs the walk, and a first key press would wait for it).
    A later one: collect the previous session, after the first frame."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
    else:
        screen.call_after_refresh(settle_heap)
